// backend/fused_interpreter.cc: the body of a fused node, interpreted.
#include "backend/fused_interpreter.h"

#include "backend/function.h"
#include "ir/graph.h"

namespace sluice::backend {

Expected<std::unique_ptr<FusedInterpreter>>
FusedInterpreter::create(std::shared_ptr<const ir::FunctionDef> def,
                         const KernelRegistry &kernels) {
  std::unique_ptr<FusedInterpreter> in(new FusedInterpreter);
  const ir::Graph &body = *def->body;
  SLUICE_ASSIGN_OR_RETURN(auto order, body.topologicalOrder());
  std::vector<int> start(body.numNodes(), -1);
  for (ir::NodeId id : order) {
    start[id] = in->numSlots_;
    in->numSlots_ += body.node(id).numOutputs();
  }
  for (ir::NodeId a : def->args)
    in->argSlots_.push_back(start[a]);
  for (const ir::Output &r : def->rets)
    in->resultSlots_.push_back(start[r.node] + r.index);
  for (ir::NodeId id : order) {
    const ir::Node &n = body.node(id);
    if (n.opName() == "function_arg")
      continue;
    Step s;
    s.node = &n;
    SLUICE_ASSIGN_OR_RETURN(s.kernel, kernels.create(n, "CPU"));
    if (s.kernel->isAsync())
      return Status(Code::kInvalidArgument,
                    "fused body '" + def->name + "' has a blocking op", n.loc(), n.name());
    for (const ir::Output &o : n.inputs())
      s.inputSlots.push_back(start[o.node] + o.index);
    s.outputStart = start[id];
    in->steps_.push_back(std::move(s));
  }
  in->def_ = std::move(def);
  return in;
}

void FusedInterpreter::run(KernelContext &ctx) const {
  if (ctx.numInputs() != static_cast<int>(argSlots_.size()) ||
      ctx.numOutputs() != static_cast<int>(resultSlots_.size())) {
    ctx.fail(invalidArgument("fused node takes " + std::to_string(argSlots_.size()) +
                             " inputs and " + std::to_string(resultSlots_.size()) +
                             " outputs, body '" + def_->name + "' does not match"));
    return;
  }
  std::vector<ir::Tensor> slots(numSlots_);
  for (size_t i = 0; i < argSlots_.size(); ++i) {
    // The body's kernels trust its static dtypes and shapes.
    const ir::Tensor &t = ctx.input(static_cast<int>(i));
    const ir::Node &arg = def_->body->node(def_->args[i]);
    if (t.dtype() != arg.outputType(0) || !arg.outputShape(0).isCompatibleWith(t.dims())) {
      ctx.fail(invalidArgument("fused input " + std::to_string(i) + " is " +
                               std::string(ir::dtypeName(t.dtype())) + ir::dimsString(t.dims()) +
                               ", body '" + def_->name + "' takes " +
                               std::string(ir::dtypeName(arg.outputType(0))) +
                               arg.outputShape(0).str()));
      return;
    }
    slots[argSlots_[i]] = t;
  }
  std::vector<const ir::Tensor *> inputs;
  for (const Step &s : steps_) {
    inputs.clear();
    for (int slot : s.inputSlots)
      inputs.push_back(&slots[slot]);
    KernelContext inner = ctx.nested(*s.node, inputs.data(), static_cast<int>(inputs.size()),
                                     &slots[s.outputStart], s.node->numOutputs());
    s.kernel->compute(inner);
    if (!inner.ok()) {
      Status st = inner.status();
      st = Status(st.code(), st.message() + " (op " + s.node->opName() + ")", st.loc(),
                  st.node());
      st.withNode(s.node->name()).withLoc(s.node->loc());
      ctx.fail(std::move(st));
      return;
    }
  }
  for (size_t i = 0; i < resultSlots_.size(); ++i)
    ctx.setOutput(static_cast<int>(i), slots[resultSlots_[i]]);
}

Expected<std::shared_ptr<const ir::FunctionDef>> fusedBody(const ir::Node &node,
                                                          const KernelContext &ctx) {
  const std::string &name = node.attr<std::string>("f");
  auto def = ctx.functions() ? ctx.functions()->lookup(name) : nullptr;
  if (!def)
    return Status(Code::kFailedPrecondition,
                  "fused node names function '" + name + "', which the graph does not define",
                  node.loc(), node.name());
  return def;
}

} // namespace sluice::backend
