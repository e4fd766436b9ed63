// driver/driver.h: the library calls behind the CLI's commands. Each
// takes an options struct and returns the process exit code (0 ok, 1 a
// program, run or test failed); diagnostics go to `err`.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace sluice::driver {

/// --cluster FILE.json and --task JOB:INDEX: which task of which cluster
/// `task` describes. Without either, the TF_CONFIG environment variable
/// decides, as in TF; without that, the local chief worker.
struct TaskFlags {
  std::string clusterFile; // a cluster ({"ps": [...]}) or a whole TF_CONFIG
  std::string job;         // --job ps
  std::string task;        // "worker:1", or "1" with --job
};

/// How this process joins a cluster: the shared secret (--cluster-token
/// FILE, else $SLUICE_CLUSTER_TOKEN) every call must carry, TLS, and how
/// long a session waits for a task to come up.
struct ClusterFlags {
  std::string tokenFile;
  std::string tlsCert, tlsKey, tlsCa;
  int cpus = 1; // CPU devices per task
  int waitForTasksSeconds = 120;
};

struct RunProgramOptions {
  std::string file;
  std::string workDir; // -C: chdir before running
  std::vector<std::pair<std::string, std::string>> sets; // --set NAME=VALUE
  bool json = false;
  bool werror = false; // pipeline warnings are errors
  TaskFlags taskFlags;
  ClusterFlags clusterFlags;
  bool oneDevice = false; // ignore device requests (compare with a placed run)
  std::string backend;    // --backend jit|interp (empty: the session default, jit)
};
int runProgram(const RunProgramOptions &opts, std::ostream &out, std::ostream &err);

struct CompileOptions {
  std::string file;       // .sluice or .sir
  std::string emit = "ir"; // a name of driver/emit.h's table
  std::string gpuArch = "sm_90"; // for "ptx"
  std::vector<std::string> fetches; // for "obj": what the function computes (--fetch)
  std::string header;             // for "obj": the C header ("": -o with .h)
  std::string function;           // for "obj": the C function ("": <stem of -o>_run)
  std::string output;     // "" = stdout; the directory for "partitions"
  std::string printAfter; // pass name or "all"
  bool werror = false;    // pipeline warnings are errors
  int cpus = 1;           // CPU devices per task (placement, dot, partitions, cost)
  bool allowSoftPlacement = false;
  TaskFlags taskFlags;    // with a cluster, its tasks are the devices
};
int compileProgram(const CompileOptions &opts, std::ostream &out, std::ostream &err);

/// `sluice serve`: this task's server, until SIGTERM/SIGINT.
struct ServeOptions {
  TaskFlags taskFlags;
  ClusterFlags clusterFlags;
};
int serveTask(const ServeOptions &opts, std::ostream &out, std::ostream &err);

struct TestOptions {
  std::vector<std::string> paths; // files or directories of *.sluice
  std::string filter;             // substring of "file: test name"
  bool json = false;
  bool list = false;              // print "file: name" per test, run nothing
  std::string junit;              // also write JUnit XML here
  int jobs = 1;                   // -j: tests at once, each in its own process
  double timeoutSeconds = 0;      // --timeout: a test running longer fails (0: no limit)
  bool updateGolden = false;      // expect_golden writes its files instead of comparing
  std::string onlyTest;           // run only the test with this exact name
  std::string executable;         // the sluice binary that runs isolated tests ("": this one)
  std::string backend;            // --backend interp|jit (empty: the session default)
};
/// Runs the tests of every file. With jobs > 1 or a timeout, each test
/// runs in a child process of its own (`executable test FILE
/// --only-test NAME`), so a test that hangs or crashes fails alone;
/// results print in file order either way.
int runTests(const TestOptions &opts, std::ostream &out, std::ostream &err);

} // namespace sluice::driver
