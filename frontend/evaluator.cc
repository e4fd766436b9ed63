// frontend/evaluator.cc: the public face of the evaluator.
#include "frontend/evaluator.h"

#include <filesystem>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

EvaluatorImpl::EvaluatorImpl(EvalOptions o, DiagnosticEngine &d)
    : opts(std::move(o)), diags(d), builtins(std::make_shared<Env>()),
      topGraph(std::make_unique<GraphContext>()) {
  installGraphBuiltins(*this, *builtins);
  installHostBuiltins(*this, *builtins);
  installSessionBuiltins(*this, *builtins);
  installTestBuiltins(*this, *builtins);
  installQueueBuiltins(*this, *builtins);
  installReaderBuiltins(*this, *builtins);
  installPipelineBuiltins(*this, *builtins);
  installDatasetBuiltins(*this, *builtins);
  installPlacerBuiltins(*this, *builtins);
  installClusterBuiltins(*this, *builtins);
  installDeviceSetterBuiltins(*this, *builtins);
  installReplicationBuiltins(*this, *builtins);
  installTrainingBuiltins(*this, *builtins);
  installLossBuiltins(*this, *builtins);
  installOptimizerBuiltins(*this, *builtins);
  installSyncReplicasBuiltins(*this, *builtins);
  installServerBuiltins(*this, *builtins);
  installCheckpointBuiltins(*this, *builtins);
  installSummaryBuiltins(*this, *builtins);
  installSupervisorBuiltins(*this, *builtins);
  globals = std::make_shared<Env>(builtins);
  for (auto &[name, v] : opts.globals)
    globals->set(name, v);
  mainState.graph = topGraph.get();
  gil.lock();
}

EvaluatorImpl::~EvaluatorImpl() {
  for (auto &t : topLevelThreads) {
    try {
      t->join(*this, {});
    } catch (LangError &) {
    }
  }
  gil.unlock();
  for (const auto &dir : tempDirs) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
}

Evaluator::Evaluator(EvalOptions opts, DiagnosticEngine &diags)
    : impl_(std::make_unique<EvaluatorImpl>(std::move(opts), diags)) {}
Evaluator::~Evaluator() = default;

Status Evaluator::runFile(const std::string &path) {
  Status s = impl_->runFile(path);
  if (!s.isOk())
    return s;
  // Threads spawned at top level are joined when the program ends; an
  // error nobody joined is the program's error.
  auto threads = std::move(impl_->topLevelThreads);
  for (auto &t : threads) {
    try {
      t->join(*impl_, {});
    } catch (LangError &e) {
      return e.status;
    }
  }
  return Status::ok();
}

Status Evaluator::runSource(const std::string &path, std::string text) {
  return impl_->runSource(path, std::move(text));
}

GraphContext &Evaluator::graph() { return *impl_->topGraph; }
const std::vector<TestCase> &Evaluator::tests() const { return impl_->tests; }

TestOutcome Evaluator::runTest(const TestCase &test) {
  EvaluatorImpl &ev = *impl_;
  GraphContext graph;
  ThreadState state;
  state.graph = &graph;
  state.inTest = true;
  ThreadState *saved = tlsThreadState;
  tlsThreadState = &state;
  state.spawnScopes.emplace_back();
  TestOutcome out;
  auto env = std::make_shared<Env>(ev.globals);
  try {
    Value ret;
    ev.execBlock(*test.body, env, ret);
    for (auto &t : state.spawnScopes.back())
      t->join(ev, test.loc);
    out.passed = true;
  } catch (LangError &e) {
    for (auto &t : state.spawnScopes.back()) {
      try {
        t->join(ev, test.loc);
      } catch (LangError &) {
      }
    }
    out.failure = e.status;
  }
  tlsThreadState = saved;
  return out;
}

} // namespace sluice::frontend
