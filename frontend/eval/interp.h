// frontend/eval/interp.h: the evaluator's internals, shared by the files
// in frontend/eval/. Language errors travel as LangError exceptions inside
// the evaluator only; Evaluator's public API turns them into Status.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontend/evaluator.h"
#include "ir/device_spec.h"
#include "runtime/remote_cluster.h"
#include "tflib/input/activity.h"

namespace sluice::rt {
class Session;
}

namespace sluice::frontend {

/// A language-level error in flight. Test-assertion failures are marked so
/// that `catch any` does not swallow them.
struct LangError {
  Status status;
  bool testFailure = false;
};

[[noreturn]] void throwError(Code code, std::string message, const SourceLoc &loc);
[[noreturn]] void throwStatus(Status s, const SourceLoc &loc);

/// A binding scope. Only fn, test and spawn bodies open a new one.
class Env {
public:
  explicit Env(std::shared_ptr<Env> parent = nullptr) : parent_(std::move(parent)) {}
  Value *lookup(const std::string &name);
  void set(const std::string &name, Value v) { vars_[name] = std::move(v); }
  /// Replaces every binding (the REPL restoring its scope after an error).
  void setVars(std::unordered_map<std::string, Value> vars) { vars_ = std::move(vars); }
  const std::unordered_map<std::string, Value> &vars() const { return vars_; }
  const std::shared_ptr<Env> &parent() const { return parent_; }

private:
  std::unordered_map<std::string, Value> vars_;
  std::shared_ptr<Env> parent_;
};

class SessionObject;
class ThreadObject;

/// `with device(...)` entries, innermost last.
struct DeviceScope {
  enum Kind { kSpec, kFunction, kClear } kind = kSpec;
  ir::DeviceSpec spec;
  Value fn;
};

/// Scope stacks of one thread (TF keeps them per thread too).
struct ThreadState {
  GraphContext *graph = nullptr;
  std::vector<std::string> nameScopes; // each a full prefix ending in '/'
  std::vector<DeviceScope> devices;
  std::vector<std::vector<ir::NodeId>> controlDeps;
  std::vector<std::vector<std::string>> colocations;
  std::vector<std::shared_ptr<SessionObject>> sessions;
  /// Threads spawned in the innermost session block (joined at its end).
  std::vector<std::vector<std::shared_ptr<ThreadObject>>> spawnScopes;
  int callDepth = 0;
  bool inTest = false;
  /// The fixtures this test has applied (each once), the ones being
  /// applied now (to refuse a cycle), and the teardown blocks they left,
  /// run last to first when the test ends.
  std::set<std::string> usedFixtures;
  std::vector<std::string> fixtureStack;
  std::vector<std::pair<std::shared_ptr<Block>, std::shared_ptr<Env>>> teardowns;
};

/// A `fixture NAME { }` block and the scope it was defined in.
struct FixtureDef {
  std::shared_ptr<Block> body;
  std::shared_ptr<Env> closure;
  SourceLoc loc;
};

extern thread_local ThreadState *tlsThreadState;

/// TF's `with` scopes for code that builds graphs, as RAII guards on the
/// calling thread's stacks: each pushes when made and pops when it goes, so
/// an error thrown inside leaves the stacks as they were.
template <typename T> class PushGuard {
public:
  PushGuard(std::vector<T> &stack, T entry) : stack_(stack) { stack_.push_back(std::move(entry)); }
  ~PushGuard() { stack_.pop_back(); }
  PushGuard(const PushGuard &) = delete;
  PushGuard &operator=(const PushGuard &) = delete;

private:
  std::vector<T> &stack_;
};

/// `with name_scope(...)`: `prefix` is a full scope ending in '/', or ""
/// for the graph's root.
struct NameScopeGuard : PushGuard<std::string> {
  NameScopeGuard(ThreadState &t, std::string prefix) : PushGuard(t.nameScopes, std::move(prefix)) {}
};

/// `with control_dependencies(deps)`.
struct ControlDepsGuard : PushGuard<std::vector<ir::NodeId>> {
  ControlDepsGuard(ThreadState &t, std::vector<ir::NodeId> deps)
      : PushGuard(t.controlDeps, std::move(deps)) {}
};

/// Ops made at the graph's root whatever scopes are open (TF builds a
/// saver's ops and the global step there): under `scope` alone (a full
/// prefix ending in '/'; "": none) and no control dependencies; both
/// stacks come back when it goes.
class RootScopeGuard {
public:
  explicit RootScopeGuard(ThreadState &t, std::string scope = "")
      : t_(t), names_(std::move(t.nameScopes)), deps_(std::move(t.controlDeps)) {
    t_.nameScopes.clear();
    if (!scope.empty())
      t_.nameScopes.push_back(std::move(scope));
    t_.controlDeps.clear();
  }
  ~RootScopeGuard() {
    t_.nameScopes = std::move(names_);
    t_.controlDeps = std::move(deps_);
  }
  RootScopeGuard(const RootScopeGuard &) = delete;
  RootScopeGuard &operator=(const RootScopeGuard &) = delete;

private:
  ThreadState &t_;
  std::vector<std::string> names_;
  std::vector<std::vector<ir::NodeId>> deps_;
};

enum class Flow { kNormal, kBreak, kContinue, kReturn };

/// Releases the interpreter lock for a blocking call (run, join, sleep).
class GilRelease {
public:
  explicit GilRelease(std::mutex &gil) : gil_(gil) { gil_.unlock(); }
  ~GilRelease() { gil_.lock(); }

private:
  std::mutex &gil_;
};

class EvaluatorImpl {
public:
  EvaluatorImpl(EvalOptions opts, DiagnosticEngine &diags);
  ~EvaluatorImpl();

  // --- files ---
  Status runFile(const std::string &path);
  Status runSource(const std::string &path, std::string text);
  /// Evaluates a parsed module in `env`; throws LangError.
  void runModule(const Module &m, const std::shared_ptr<Env> &env);
  std::shared_ptr<Env> importFile(const std::string &path, const SourceLoc &loc);

  // --- statements and expressions (eval_stmt.cc, eval_expr.cc) ---
  Flow execBlock(const Block &b, const std::shared_ptr<Env> &env, Value &ret);
  Flow exec(const Stmt &s, const std::shared_ptr<Env> &env, Value &ret);
  Value eval(const Expr &e, const std::shared_ptr<Env> &env);
  void assign(const Expr &target, Value v, const std::shared_ptr<Env> &env);
  Value call(const Value &callee, CallArgs &args);
  /// Calls `fn` with arguments made in C++ (library code composing other
  /// builtins), each located at `loc`.
  Value callWith(const Value &fn, std::vector<Value> positional,
                 std::vector<std::pair<std::string, Value>> keywords, const SourceLoc &loc);
  /// The builtin named so.
  const Value &builtin(const std::string &name);
  Value callFunction(const Function &f, CallArgs &args);
  Value binary(BinaryOp op, const Value &a, const Value &b, const SourceLoc &loc);
  Value unary(UnaryOp op, const Value &a, const SourceLoc &loc);
  int compareSequences(const Value &a, const Value &b, const SourceLoc &loc);
  Value getAttr(const Value &obj, const std::string &name, const SourceLoc &loc);
  Value index(const Value &obj, const IndexExpr &e, const std::shared_ptr<Env> &env);
  bool truthy(const Value &v, const SourceLoc &loc);
  std::vector<Value> iterate(const Value &v, const SourceLoc &loc);

  // --- graph building (eval_ops.cc, convert.cc) ---
  ThreadState &ts();
  GraphContext &graph() { return *ts().graph; }
  /// Adds a node under the current name/device/control/colocation scopes.
  ir::Node &addNode(ir::NodeSpec spec, bool applyScopes = true);
  /// The full node name for `base` under the current name scope, unique.
  std::string scopedName(const std::string &base);
  /// A fresh name scope `name` under the current one, made unique as
  /// TF's name_scope does ("tower", "tower_1", ...); ends in '/'.
  std::string uniqueScope(const std::string &name);
  /// Builds an op from a call with TF1 Python-style arguments.
  Value callOp(const ir::OpDef &op, CallArgs &args);
  /// Adds a node for `opName` with already-converted inputs and attrs.
  Value makeOp(const std::string &opName, std::vector<ir::Output> inputs,
               ir::AttrMap attrs, const SourceLoc &loc, std::string name = "");
  /// A symbolic tensor for `v`: symbolic values pass through, variables
  /// read, host values become constants (of `want` when given), lists of
  /// tensors are stacked.
  ir::Output toTensor(const Value &v, std::optional<ir::DType> want,
                      const SourceLoc &loc);
  /// `o` of graph `owner` as an output usable in `g`: itself when g is
  /// its graph, a captured parameter when g is a function body traced
  /// inside owner, else a value_error naming `what`.
  ir::Output captureInto(GraphContext &g, GraphContext *owner, ir::Output o, const char *what,
                         const SourceLoc &loc);
  /// The dtype a host value would get as a tensor with no context.
  std::optional<ir::DType> symbolicDType(const Value &v);
  /// Converts a host value to a tensor of `want` (or its natural dtype).
  ir::Tensor hostToTensor(const Value &v, std::optional<ir::DType> want,
                          const SourceLoc &loc);
  /// Runs one op eagerly on host tensors (host arithmetic, indexing).
  ir::Tensor eager(const std::string &opName, std::vector<ir::Tensor> inputs,
                   ir::AttrMap attrs, const SourceLoc &loc);
  /// (seed, seed2) for a random op, following TF's get_seed.
  std::pair<int64_t, int64_t> opSeeds(std::optional<int64_t> opSeed);

  // --- printing ---
  std::string repr(const Value &v, bool quoteStrings);
  std::string toJson(const Value &v);
  void print(const std::string &line);

  // --- sessions and threads (eval_session.cc) ---
  std::shared_ptr<SessionObject> currentSession(const SourceLoc &loc);
  void runSessionBlock(const SessionStmt &s, const std::shared_ptr<Env> &env);
  /// A session block with supervisor keys (logdir:, is_chief: ...):
  /// TF's Supervisor.managed_session (supervisor.cc).
  void runSupervisedSession(const SessionStmt &s, CallArgs &args,
                            const std::shared_ptr<Env> &env);
  /// Shows the static pipeline warnings once each (errors under --Werror).
  void checkPipelinesAtRun(GraphContext &g);
  Value spawn(const SpawnExpr &e, const std::shared_ptr<Env> &env);
  Value runFetches(SessionObject &sess, CallArgs &args);
  /// Cancels the steps of every run() in flight, from any thread (the
  /// REPL's Ctrl-C); their run() calls fail with cancelled.
  void interruptRuns();
  std::mutex runningMu;
  std::multiset<rt::Session *> runningSessions; // guarded by runningMu
  /// This program's live threads and runs in flight, for the stall check.
  const std::shared_ptr<tflib::ProgramActivity> activity =
      std::make_shared<tflib::ProgramActivity>();

  EvalOptions opts;
  DiagnosticEngine &diags;
  /// A supervised session's progress line is on stderr (a terminal);
  /// print() clears it first so output does not run into it.
  std::atomic<bool> progressLineShown{false};
  std::mutex gil;
  std::mutex printMu;
  std::shared_ptr<Env> builtins;
  std::shared_ptr<Env> globals;
  std::unique_ptr<GraphContext> topGraph;
  std::vector<TestCase> tests;
  std::map<std::string, FixtureDef> fixtures;
  /// `use NAME`: applies the fixture (and those it uses) once per test,
  /// binding what its body binds into `into`.
  void useFixture(const std::string &name, const SourceLoc &loc,
                  const std::shared_ptr<Env> &into);
  std::map<std::string, std::shared_ptr<Env>> imports;
  std::vector<std::string> importStack;
  std::vector<std::unique_ptr<Module>> modules;
  std::vector<std::shared_ptr<ThreadObject>> topLevelThreads;
  std::vector<std::string> tempDirs;
  /// The process's servers and cluster connections (builtins_server.cc);
  /// failed_precondition at `loc` when the embedder gave none.
  rt::ClusterHost &clusterHost(const SourceLoc &loc);
  /// Graphs that map/filter bodies were traced in; kept because values
  /// made while tracing may outlive the trace.
  std::vector<std::unique_ptr<GraphContext>> functionBodies;
  ThreadState mainState;
};

// Builtin installers, one per file.
void installHostBuiltins(EvaluatorImpl &ev, Env &env);
void installGraphBuiltins(EvaluatorImpl &ev, Env &env);
void installSessionBuiltins(EvaluatorImpl &ev, Env &env);
void installTestBuiltins(EvaluatorImpl &ev, Env &env);
void installQueueBuiltins(EvaluatorImpl &ev, Env &env);   // builtins_queues.cc
void installReaderBuiltins(EvaluatorImpl &ev, Env &env);  // builtins_readers.cc
void installPipelineBuiltins(EvaluatorImpl &ev, Env &env); // builtins_pipeline.cc
void installDatasetBuiltins(EvaluatorImpl &ev, Env &env);  // builtins_datasets.cc
void installPlacerBuiltins(EvaluatorImpl &ev, Env &env);   // builtins_placer.cc
void installClusterBuiltins(EvaluatorImpl &ev, Env &env);  // builtins_cluster.cc
void installDeviceSetterBuiltins(EvaluatorImpl &ev, Env &env); // builtins_device_setter.cc
void installReplicationBuiltins(EvaluatorImpl &ev, Env &env); // builtins_replication.cc
void installTrainingBuiltins(EvaluatorImpl &ev, Env &env);   // builtins_training.cc
void installLossBuiltins(EvaluatorImpl &ev, Env &env);       // builtins_losses.cc
void installOptimizerBuiltins(EvaluatorImpl &ev, Env &env);  // builtins_optimizers.cc
void installSyncReplicasBuiltins(EvaluatorImpl &ev, Env &env); // builtins_sync_replicas.cc
void installServerBuiltins(EvaluatorImpl &ev, Env &env);     // builtins_server.cc
/// The cluster a session block's `target` names; null: in-process.
std::shared_ptr<rt::RemoteCluster> sessionCluster(EvaluatorImpl &ev, const Value &target,
                                                  const SourceLoc &loc);

struct VariableOptions {
  std::optional<ir::DType> dtype;
  std::optional<ir::Shape> shape;
  bool trainable = true;
  bool validateShape = true;
  /// Slot variables: colocated with this variable node, on its device.
  std::optional<ir::NodeId> colocateWith;
};
/// TF's Variable(initial_value, ...): the variable node named `baseName`
/// under the current name scope, its initializer and its read; returns the
/// variable object and adds it to the global variables.
Value createVariable(EvaluatorImpl &ev, const std::string &baseName, const Value &init,
                     const VariableOptions &opts, const SourceLoc &loc);
void installCheckpointBuiltins(EvaluatorImpl &ev, Env &env);  // builtins_checkpoint.cc
void installSummaryBuiltins(EvaluatorImpl &ev, Env &env);     // builtins_summary.cc
void installSupervisorBuiltins(EvaluatorImpl &ev, Env &env);  // supervisor.cc
/// Whether `key` is a supervised session's argument (supervisor.cc).
bool isSupervisorKey(const std::string &key);
/// The arguments of a supervised session when a session block opens one
/// (`session(supervisor(...))`, or supervisor keywords given to
/// session(...) itself); none for a plain session.
std::optional<CallArgs> supervisedSessionArgs(const CallArgs &a);

/// Argument helpers for builtins.
const Value *argAt(CallArgs &a, size_t pos, const std::string &name);
Value argOr(CallArgs &a, size_t pos, const std::string &name, Value def);
const Value &requireArg(CallArgs &a, size_t pos, const std::string &name,
                        const std::string &fn);
/// type_error for an unexpected keyword among `allowed`.
void checkKeywords(CallArgs &a, const std::string &fn,
                   std::initializer_list<const char *> allowed);
int64_t toInt(const Value &v, const std::string &what, const SourceLoc &loc);
double toNumber(const Value &v, const std::string &what, const SourceLoc &loc);
std::string toStr(const Value &v, const std::string &what, const SourceLoc &loc);
ir::DType toDType(const Value &v, const std::string &what, const SourceLoc &loc);
/// A shape from a list of ints/none or a host tensor; none = unknown rank.
ir::Shape toShape(const Value &v, const std::string &what, const SourceLoc &loc);

} // namespace sluice::frontend
