// frontend/driver.h: the library calls behind the CLI's commands. Each
// takes an options struct and returns the process exit code (0 ok, 1 a
// program, run or test failed); diagnostics go to `err`.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace sluice::frontend {

struct RunProgramOptions {
  std::string file;
  std::string workDir; // -C: chdir before running
  std::vector<std::pair<std::string, std::string>> sets; // --set NAME=VALUE
  bool json = false;
  bool werror = false; // pipeline warnings are errors
};
int runProgram(const RunProgramOptions &opts, std::ostream &out, std::ostream &err);

struct CompileOptions {
  std::string file;       // .sluice or .sir
  std::string emit = "ir"; // "ir", "dot", "placement", "partitions" or "cost"
  std::string output;     // "" = stdout; the directory for "partitions"
  std::string printAfter; // pass name or "all"
  bool werror = false;    // pipeline warnings are errors
  int cpus = 1;           // CPU devices per task (placement, dot, partitions, cost)
  bool allowSoftPlacement = false;
};
int compileProgram(const CompileOptions &opts, std::ostream &out, std::ostream &err);

struct TestOptions {
  std::vector<std::string> paths; // files or directories of *.sluice
  std::string filter;             // substring of "file: test name"
  bool json = false;
};
int runTests(const TestOptions &opts, std::ostream &out, std::ostream &err);

} // namespace sluice::frontend
