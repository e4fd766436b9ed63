// passes/shape_inference.cc: re-infers static shapes in topological order.
#include "passes/shape_inference.h"

namespace sluice::passes {

namespace {

class ShapeInferencePass : public Pass {
public:
  std::string_view name() const override { return "shape-inference"; }
  Status run(ir::Graph &graph, PassContext &) override {
    SLUICE_ASSIGN_OR_RETURN(auto order, graph.topologicalOrder());
    for (ir::NodeId id : order)
      SLUICE_TRY(graph.reinfer(id));
    return Status::ok();
  }
};

} // namespace

std::unique_ptr<Pass> createShapeInferencePass() {
  return std::make_unique<ShapeInferencePass>();
}

} // namespace sluice::passes
