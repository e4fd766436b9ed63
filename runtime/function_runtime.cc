// runtime/function_runtime.cc: backend::FunctionRuntime over executors.
// Instantiations are cached while something (a dataset) holds them; the
// cache keeps weak references, so the runtime never keeps a function alive
// and a function's executor may point back at the runtime without a cycle.
#include <map>
#include <mutex>

#include "runtime/executor.h"

namespace sluice::rt {

namespace {

class ExecutorFunction : public backend::Function {
public:
  ExecutorFunction(std::shared_ptr<const ir::FunctionDef> def, std::unique_ptr<Executor> exec)
      : def_(std::move(def)), exec_(std::move(exec)) {}

  const ir::FunctionDef &def() const override { return *def_; }

  Expected<std::vector<ir::Tensor>> call(const std::vector<ir::Tensor> &args,
                                         const backend::CallFrame &frame) const override {
    if (args.size() != def_->args.size())
      return invalidArgument("function '" + def_->name + "' takes " +
                             std::to_string(def_->args.size()) + " arguments, got " +
                             std::to_string(args.size()));
    for (size_t i = 0; i < args.size(); ++i) {
      ir::DType want = def_->body->node(def_->args[i]).outputType(0);
      if (args[i].dtype() != want)
        return invalidArgument("argument " + std::to_string(i) + " of function '" +
                               def_->name + "' must be " + std::string(ir::dtypeName(want)) +
                               ", got " + std::string(ir::dtypeName(args[i].dtype())));
    }
    // A failing step cancels its cancellation manager, so each call gets
    // its own: an error in one element must not cancel the caller (a
    // prefetch thread goes on to the next element). The caller's
    // cancellation still reaches the call.
    // Shared with the callback, which may still run after the call ends.
    auto own = std::make_shared<CancellationManager>();
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (frame.cancellation) {
      token = frame.cancellation->registerCallback([own] { own->startCancel(); });
      if (token == CancellationManager::kInvalidToken)
        return Status(Code::kCancelled, "function '" + def_->name + "' was cancelled");
    }
    StepParams p;
    p.feedValues = &args;
    p.resources = frame.resources;
    p.cancellation = own.get();
    auto result = exec_->run(p);
    if (token != CancellationManager::kInvalidToken)
      frame.cancellation->deregisterCallback(token);
    return result;
  }

private:
  std::shared_ptr<const ir::FunctionDef> def_;
  std::unique_ptr<Executor> exec_;
};

class ExecutorFunctionRuntime : public backend::FunctionRuntime,
                                public std::enable_shared_from_this<ExecutorFunctionRuntime> {
public:
  ExecutorFunctionRuntime(ir::FunctionLibrary lib, ExecutorOptions opts)
      : lib_(std::move(lib)), opts_(std::move(opts)) {}

  Expected<std::shared_ptr<const backend::Function>>
  instantiate(const std::string &name) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto cached = cache_[name].lock())
      return std::shared_ptr<const backend::Function>(cached);
    auto def = lib_.find(name);
    if (!def)
      return notFound("function '" + name + "' is not defined in this graph");
    std::vector<ir::Output> feeds;
    for (ir::NodeId a : def->args)
      feeds.push_back({a, 0});
    // Every node runs, as in a TF function: side effects in a map body
    // (an assign, a print) happen even when no result depends on them.
    std::vector<ir::NodeId> targets;
    for (ir::NodeId id = 0; id < def->body->numNodes(); ++id)
      if (def->body->node(id).opName() != "function_arg")
        targets.push_back(id);
    ExecutorOptions opts = opts_;
    opts.functions = shared_from_this();
    auto exec = Executor::create(def->body, feeds, def->rets, targets, opts);
    if (!exec.hasValue()) {
      Status s = exec.takeStatus();
      return Status(s.code(), "in function '" + name + "': " + s.message(), s.loc(), s.node());
    }
    auto fn = std::make_shared<ExecutorFunction>(def, std::move(*exec));
    cache_[name] = fn;
    return std::shared_ptr<const backend::Function>(fn);
  }

  std::shared_ptr<const ir::FunctionDef> lookup(const std::string &name) const override {
    return lib_.find(name);
  }

private:
  ir::FunctionLibrary lib_;
  ExecutorOptions opts_;
  std::mutex mu_;
  std::map<std::string, std::weak_ptr<ExecutorFunction>> cache_;
};

} // namespace

std::shared_ptr<backend::FunctionRuntime>
makeFunctionRuntime(const ir::FunctionLibrary &lib, const ExecutorOptions &opts) {
  ExecutorOptions o = opts;
  o.functions = nullptr;
  return std::make_shared<ExecutorFunctionRuntime>(lib, std::move(o));
}

} // namespace sluice::rt
