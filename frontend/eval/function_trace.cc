// frontend/eval/function_trace.cc: turns a language function into a graph
// function. The body is built in a graph of its own with the thread's
// scopes cleared (a function has its own name scopes, and outer control
// dependencies or devices do not leak into it, as in TF); tensors it uses
// from the enclosing graph become captured parameters.
#include <algorithm>

#include "frontend/eval/dataset_objects.h"
#include "frontend/eval/interp.h"

namespace sluice::frontend {

namespace {

// Puts the thread's graph and scopes back however tracing ends.
class TraceScope {
public:
  TraceScope(ThreadState &ts, GraphContext *body) : ts_(ts), saved_(ts) {
    ts_.graph = body;
    ts_.nameScopes.clear();
    ts_.devices.clear();
    ts_.controlDeps.clear();
    ts_.colocations.clear();
  }
  ~TraceScope() {
    ts_.graph = saved_.graph;
    ts_.nameScopes = std::move(saved_.nameScopes);
    ts_.devices = std::move(saved_.devices);
    ts_.controlDeps = std::move(saved_.controlDeps);
    ts_.colocations = std::move(saved_.colocations);
  }

private:
  ThreadState &ts_;
  ThreadState saved_;
};

std::string functionBaseName(const Value &fn, const std::string &what) {
  std::string base = what + "_";
  if (fn.is(Value::kFunction))
    base += fn.asFunction()->name.empty() ? "lambda" : fn.asFunction()->name;
  else if (fn.is(Value::kBuiltin))
    base += fn.asBuiltin()->name;
  else
    base += "fn";
  return base;
}

} // namespace

TracedFunction traceFunction(EvaluatorImpl &ev, const Value &fn, const ElementSpec &in,
                             const std::string &what, const SourceLoc &loc) {
  if (!fn.is(Value::kFunction) && !fn.is(Value::kBuiltin))
    throwError(Code::kTypeError, what + "() needs a function, got " + fn.typeName(), loc);
  GraphContext &outer = ev.graph();
  ev.functionBodies.push_back(std::make_unique<GraphContext>());
  GraphContext &body = *ev.functionBodies.back();
  body.captureFrom = &outer;
  body.graphSeed = outer.graphSeed;

  TracedFunction out;
  std::vector<ir::Output> rets;
  {
    TraceScope scope(ev.ts(), &body);
    std::vector<Value> leaves;
    for (size_t i = 0; i < in.types.size(); ++i) {
      ir::NodeSpec arg;
      arg.op = "function_arg";
      arg.name = body.graph->uniqueName(in.types.size() == 1 ? "arg" : "arg_" + std::to_string(i));
      arg.attrs = {{"T", in.types[i]},
                   {"index", static_cast<int64_t>(i)},
                   {"shape", in.shapes[i]}};
      arg.loc = loc;
      ir::Node &n = ev.addNode(std::move(arg), false);
      leaves.push_back(Value::tensor(&body, {n.id(), 0}));
    }
    body.nextArgIndex = static_cast<int>(in.types.size());
    size_t next = 0;
    Value element = packValue(in.structure, leaves, next);
    CallArgs args;
    args.loc = loc;
    if (in.structure.kind == Structure::kTuple)
      args.positional = *element.asList();
    else
      args.positional.push_back(element);
    args.positionalLocs.assign(args.positional.size(), loc);
    Value result = ev.call(fn, args);

    std::vector<Value> resultLeaves;
    out.result.structure = flattenValue(result, resultLeaves);
    if (resultLeaves.empty())
      throwError(Code::kValueError, what + " function returned no tensors", loc);
    for (const Value &leaf : resultLeaves) {
      if (leaf.isNone() || leaf.is(Value::kOp))
        throwError(Code::kTypeError,
                   what + " function must return tensors, got " + leaf.typeName(), loc);
      ir::Output o = ev.toTensor(leaf, std::nullopt, loc);
      const ir::Node &n = body.graph->node(o.node);
      out.result.types.push_back(n.outputType(o.index));
      out.result.shapes.push_back(n.outputShape(o.index));
      rets.push_back(o);
    }
  }

  auto def = std::make_shared<ir::FunctionDef>();
  def->loc = loc;
  {
    std::shared_lock lock(body.mutex);
    def->body = std::shared_ptr<const ir::Graph>(body.graph->clone());
  }
  std::vector<std::pair<int64_t, ir::NodeId>> args;
  for (ir::NodeId id = 0; id < def->body->numNodes(); ++id)
    if (def->body->node(id).opName() == "function_arg")
      args.emplace_back(def->body->node(id).attr<int64_t>("index"), id);
  std::sort(args.begin(), args.end());
  for (auto &[index, id] : args)
    def->args.push_back(id);
  def->rets = rets;
  for (const auto &[from, to] : body.captures)
    out.captured.push_back(from);
  {
    std::unique_lock lock(outer.mutex);
    def->name = outer.graph->functions().uniqueName(functionBaseName(fn, what));
    out.name = def->name;
    Status s = outer.graph->functions().add(def);
    if (!s.isOk())
      throwStatus(std::move(s), loc);
  }
  return out;
}

} // namespace sluice::frontend
