// frontend/evaluator.h: runs the build-time language. Statements bind host
// values, ops add nodes to the current graph, and session blocks run the
// graph through the runtime. Errors are Status values with locations.
#pragma once

#include <iosfwd>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "frontend/ast.h"
#include "frontend/diagnostics.h"
#include "frontend/graph_context.h"
#include "frontend/value.h"
#include "tflib/cluster/tf_config.h"
#include "runtime/cluster_host.h"
#include "tflib/input/queue_runner.h"

namespace sluice::frontend {

/// How the evaluator treats driver code.
enum class EvalMode {
  kRun,     // everything runs; test blocks are skipped
  kCompile, // session blocks are skipped: only the graph is built
  kTest,    // test blocks are collected for the test runner
};

struct EvalOptions {
  EvalMode mode = EvalMode::kRun;
  bool json = false;           // print() writes one JSON line per value
  std::ostream *out = nullptr; // print() target (stdout if null)
  std::ostream *err = nullptr; // warnings (stderr if null)
  bool werror = false;         // pipeline warnings are errors
  bool updateGolden = false;   // expect_golden writes its files instead of comparing
  /// A supervised session may keep a progress line on stderr (the driver
  /// sets it when stderr is a terminal and SLUICE_PROGRESS is not 0).
  bool progressLine = false;
  std::vector<std::pair<std::string, Value>> globals; // --set bindings
  /// What `task` is bound to (--task/--cluster or TF_CONFIG); unset: the
  /// local default, worker 0 and chief.
  std::optional<tflib::TaskConfig> task;
  /// Sessions run every node on one CPU, ignoring device requests.
  bool oneDevice = false;
  /// What runs fused clusters ("jit" or "interp"; empty: the session's
  /// default, jit) unless config_proto(backend:) says (`--backend`).
  std::string backend;
  /// The process's cluster side (servers, session targets, the CLI's own
  /// task), injected by whoever owns the process; null: the program runs
  /// without one, and server(...) or a session target is an error.
  std::shared_ptr<rt::ClusterHost> clusterHost;
};

/// One `test "name" { }` block found in a file.
struct TestCase {
  std::string name;
  std::shared_ptr<Block> body;
  SourceLoc loc;
};

/// A top-level name bound to something of the graph: a tensor (a
/// variable names its read value) or an op with no output to fetch.
struct TopLevelRef {
  ir::Output out;
  bool isOp = false;
};

/// The result of running one test.
struct TestOutcome {
  bool passed = false;
  Status failure;
};

class EvaluatorImpl;

class Evaluator {
public:
  Evaluator(EvalOptions opts, DiagnosticEngine &diags);
  ~Evaluator();

  /// Parses and evaluates a file. Syntax errors are reported to the
  /// DiagnosticEngine; the first run-time error is returned.
  Status runFile(const std::string &path);
  /// Evaluates source text as if it were a file at `path`.
  Status runSource(const std::string &path, std::string text);

  /// The graph built by the top level (for `compile`).
  GraphContext &graph();
  /// The top-level names bound to tensors, variables or ops of graph().
  std::map<std::string, TopLevelRef> topLevelNames() const;
  /// TF's QUEUE_RUNNERS collection of graph(), as tflib definitions.
  std::vector<tflib::QueueRunnerDef> queueRunners() const;
  /// Tests collected in EvalMode::kTest.
  const std::vector<TestCase> &tests() const;
  /// Runs one collected test in a fresh graph and scope.
  TestOutcome runTest(const TestCase &test);

  /// The interpreter's internals, for the REPL engine alone (it
  /// completes names and swaps the session of a live scope).
  EvaluatorImpl &impl() { return *impl_; }

private:
  /// Threads spawned at top level are joined when the program ends; an
  /// error nobody joined is the program's error.
  Status joinTopLevel(Status s);

  std::unique_ptr<EvaluatorImpl> impl_;
};

} // namespace sluice::frontend
