// passes/constant_folding.cc: runs constant subgraphs through their CPU
// kernels at compile time and substitutes `constant` nodes.
#include "passes/constant_folding.h"

#include <set>


namespace sluice::passes {

namespace {

bool isConstant(const ir::Node &n) { return n.opName() == "constant"; }

class ConstantFoldingPass : public Pass {
public:
  std::string_view name() const override { return "constant-folding"; }
  Status run(ir::Graph &graph, PassContext &ctx) override;

private:
  bool foldable(const ir::Graph &g, const ir::Node &n,
                const std::set<ir::NodeId> &fedNodes, int64_t limit) const;
};

bool ConstantFoldingPass::foldable(const ir::Graph &g, const ir::Node &n,
                                   const std::set<ir::NodeId> &fedNodes,
                                   int64_t limit) const {
  const ir::OpDef &op = n.op();
  if (op.stateful || op.async || n.numOutputs() == 0 || isConstant(n))
    return false;
  // Fed outputs take their value from the caller; control inputs order
  // the node after something that is not a constant.
  if (fedNodes.count(n.id()) || !n.controlInputs().empty())
    return false;
  for (const ir::Output &in : n.inputs())
    if (!isConstant(g.node(in.node)) || fedNodes.count(in.node))
      return false;
  for (int i = 0; i < n.numOutputs(); ++i) {
    if (!ir::isPod(n.outputType(i)) && n.outputType(i) != ir::DType::kString)
      return false;
    int64_t count = n.outputShape(i).numElements();
    if (count > limit)
      return false;
  }
  return true;
}

Status ConstantFoldingPass::run(ir::Graph &g, PassContext &ctx) {
  if (!ctx.options.constantFolding || !ctx.options.kernels.evaluate)
    return Status::ok();
  std::set<ir::NodeId> fedNodes;
  for (const ir::Output &o : ctx.feeds)
    fedNodes.insert(o.node);
  SLUICE_ASSIGN_OR_RETURN(auto order, g.topologicalOrder());
  for (ir::NodeId id : order) {
    const ir::Node &n = g.node(id);
    if (!foldable(g, n, fedNodes, ctx.options.maxFoldElements))
      continue;
    // Any failure (no kernel, bad input) leaves the node for run time,
    // where it reports exactly what it would have without folding.
    std::vector<const ir::Tensor *> inputs;
    for (const ir::Output &in : n.inputs())
      inputs.push_back(&g.node(in.node).attr<ir::Tensor>("value"));
    auto folded = ctx.options.kernels.evaluate(n, inputs);
    if (!folded.hasValue() || static_cast<int>(folded->size()) != n.numOutputs())
      continue;
    std::vector<ir::Tensor> outputs = std::move(*folded);
    bool usable = true;
    for (int i = 0; i < n.numOutputs(); ++i)
      usable = usable && outputs[i].valid() &&
               outputs[i].dtype() == n.outputType(i) &&
               outputs[i].numElements() <= ctx.options.maxFoldElements;
    if (!usable)
      continue;

    // Copy what replacement needs: addNode may reallocate node storage.
    std::string baseName = n.name();
    SourceLoc loc = n.loc();
    std::string device = n.requestedDevice();
    std::string assigned = n.assignedDevice();
    for (int i = 0; i < static_cast<int>(outputs.size()); ++i) {
      ir::NodeSpec spec;
      spec.name = g.uniqueName(baseName + "/_folded_" + std::to_string(i));
      spec.op = "constant";
      spec.attrs.emplace("dtype", outputs[i].dtype());
      spec.attrs.emplace("value", std::move(outputs[i]));
      spec.requestedDevice = device;
      spec.loc = loc;
      SLUICE_ASSIGN_OR_RETURN(ir::Node * c, g.addNode(std::move(spec)));
      c->setAssignedDevice(assigned);
      ir::Output from{id, i}, to{c->id(), 0};
      g.replaceUses(from, to);
      for (ir::Output &f : ctx.fetches)
        if (f == from)
          f = to;
    }
  }
  return Status::ok();
}

} // namespace

std::unique_ptr<Pass> createConstantFoldingPass() {
  return std::make_unique<ConstantFoldingPass>();
}

} // namespace sluice::passes
