// frontend/evaluator.cc: the public face of the evaluator.
#include "frontend/evaluator.h"

#include <filesystem>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "frontend/eval/pipeline_objects.h"

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
  return joinTopLevel(impl_->runFile(path));
}

Status Evaluator::runSource(const std::string &path, std::string text) {
  return joinTopLevel(impl_->runSource(path, std::move(text)));
}

Status Evaluator::joinTopLevel(Status s) {
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

GraphContext &Evaluator::graph() { return *impl_->topGraph; }

std::map<std::string, TopLevelRef> Evaluator::topLevelNames() const {
  const GraphContext &g = *impl_->topGraph;
  std::map<std::string, TopLevelRef> names;
  for (const auto &[name, v] : impl_->globals->vars()) {
    if (v.is(Value::kTensor) && v.asTensor().graph == &g)
      names[name] = {v.asTensor().out, false};
    else if (v.is(Value::kOp) && v.asOp().graph == &g)
      names[name] = {{v.asOp().node, 0}, true};
    else if (auto var = v.objectAs<VariableObject>(); var && var->graph == &g)
      names[name] = {var->info.readValue, false};
  }
  return names;
}

std::vector<tflib::QueueRunnerDef> Evaluator::queueRunners() const {
  const GraphContext &g = *impl_->topGraph;
  std::vector<tflib::QueueRunnerDef> defs;
  for (const auto &o : g.queueRunners)
    if (auto qr = std::dynamic_pointer_cast<QueueRunnerObject>(o); qr && qr->graph == &g)
      defs.push_back(qr->runner->def());
  return defs;
}
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
  const size_t tempDirsBefore = ev.tempDirs.size();
  TestOutcome out;
  auto env = std::make_shared<Env>(ev.globals);
  auto joinSpawned = [&](bool report) {
    auto threads = std::move(state.spawnScopes.back());
    state.spawnScopes.back().clear();
    for (auto &t : threads) {
      try {
        t->join(ev, test.loc);
      } catch (LangError &) {
        if (report)
          throw;
      }
    }
  };
  try {
    Value ret;
    ev.execBlock(*test.body, env, ret);
    joinSpawned(true);
    out.passed = true;
  } catch (LangError &e) {
    joinSpawned(false);
    out.failure = e.status;
  }
  // Teardowns run last to first, after a failure too; the first failure
  // is the one reported.
  while (!state.teardowns.empty()) {
    auto [body, scope] = std::move(state.teardowns.back());
    state.teardowns.pop_back();
    try {
      Value ret;
      ev.execBlock(*body, scope, ret);
      joinSpawned(true);
    } catch (LangError &e) {
      joinSpawned(false);
      if (out.passed) {
        out.passed = false;
        out.failure = e.status;
      }
    }
  }
  // Whatever the test made with temp_dir() goes with it.
  for (size_t i = tempDirsBefore; i < ev.tempDirs.size(); ++i) {
    std::error_code ec;
    std::filesystem::remove_all(ev.tempDirs[i], ec);
  }
  ev.tempDirs.resize(std::min(ev.tempDirs.size(), tempDirsBefore));
  tlsThreadState = saved;
  return out;
}

} // namespace sluice::frontend
