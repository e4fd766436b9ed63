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
#include "ir/cluster_spec.h"

namespace sluice::frontend {

class ClusterHost; // frontend/cluster_host.h

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
  std::vector<std::pair<std::string, Value>> globals; // --set bindings
  /// What `task` is bound to (--task/--cluster or TF_CONFIG); unset: the
  /// local default, worker 0 and chief.
  std::optional<ir::TaskConfig> task;
  /// Sessions run every node on one CPU, ignoring device requests.
  bool oneDevice = false;
  /// What runs fused clusters ("jit" or "interp"; empty: the session's
  /// default, jit) unless config_proto(backend:) says (`--backend`).
  std::string backend;
  /// The process's cluster side (token, TLS, the CLI's task server);
  /// null: made on first use of server(...) or a session target.
  std::shared_ptr<ClusterHost> clusterHost;
};

/// One `test "name" { }` block found in a file.
struct TestCase {
  std::string name;
  std::shared_ptr<Block> body;
  SourceLoc loc;
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
  /// Tests collected in EvalMode::kTest.
  const std::vector<TestCase> &tests() const;
  /// Runs one collected test in a fresh graph and scope.
  TestOutcome runTest(const TestCase &test);

  EvaluatorImpl &impl() { return *impl_; }

private:
  std::unique_ptr<EvaluatorImpl> impl_;
};

} // namespace sluice::frontend
