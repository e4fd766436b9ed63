// ir/inference.cc: the shape-function context and shared shape functions.
#include "ir/inference.h"

#include "ir/graph.h"

namespace sluice::ir {

InferenceContext::InferenceContext(const Graph &g, const NodeSpec &spec,
                                   const OpDef &op, std::vector<DType> inTypes,
                                   std::vector<Shape> inShapes,
                                   std::vector<DType> &outTypes,
                                   std::vector<Shape> &outShapes)
    : graph_(g), spec_(spec), op_(op), inputTypes_(std::move(inTypes)),
      inputShapes_(std::move(inShapes)), outputTypes_(outTypes),
      outputShapes_(outShapes) {}

const Node &InferenceContext::inputNode(int i) const {
  return graph_.node(spec_.inputs[i].node);
}

const Tensor *InferenceContext::inputConstant(int i) const {
  const Node &n = graph_.node(spec_.inputs[i].node);
  if (n.opName() != "constant" || !n.hasAttr("value"))
    return nullptr;
  return &n.attr<Tensor>("value");
}

std::optional<std::vector<int64_t>>
InferenceContext::inputConstantInts(int i) const {
  const Tensor *t = inputConstant(i);
  if (!t || t->rank() > 1 || !isInteger(t->dtype()))
    return std::nullopt;
  std::vector<int64_t> out(t->numElements());
  for (int64_t k = 0; k < t->numElements(); ++k)
    out[k] = t->elementAsInt(k);
  return out;
}

Status InferenceContext::error(std::string message) const {
  return Status(Code::kInvalidArgument, std::move(message), spec_.loc, spec_.name);
}

Status unchangedShape(InferenceContext &c) {
  c.setOutput(0, c.inputShape(0));
  return Status::ok();
}

Status scalarShape(InferenceContext &c) {
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, Shape::scalar());
  return Status::ok();
}

Status unknownShape(InferenceContext &c) {
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, Shape::unknown());
  return Status::ok();
}

std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b) {
  if (!a.hasRank() || !b.hasRank())
    return Shape::unknown();
  int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> out(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.rank() - rank + i, ib = b.rank() - rank + i;
    int64_t da = ia >= 0 ? a.dim(ia) : 1;
    int64_t db = ib >= 0 ? b.dim(ib) : 1;
    if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (da < 0 || db < 0)
      out[i] = da < 0 ? db : da; // unknown meets known (if known != 1)
    else if (da == db)
      out[i] = da;
    else
      return std::nullopt;
  }
  return Shape(std::move(out));
}

Status broadcastShape(InferenceContext &c) {
  auto s = broadcastShapes(c.inputShape(0), c.inputShape(1));
  if (!s)
    return c.error("Incompatible shapes: " + c.inputShape(0).str() + " vs. " +
                   c.inputShape(1).str());
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, *s);
  return Status::ok();
}

} // namespace sluice::ir
