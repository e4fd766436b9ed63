// ir/inference.h: what an op's shape function sees while a node is added.
#pragma once

#include <vector>

#include "ir/attr.h"
#include "ir/node.h"
#include "support/status.h"

namespace sluice::ir {

class Graph;

class InferenceContext {
public:
  InferenceContext(const Graph &g, const NodeSpec &spec, const OpDef &op,
                   std::vector<DType> inputTypes, std::vector<Shape> inputShapes,
                   std::vector<DType> &outputTypes,
                   std::vector<Shape> &outputShapes);

  int numInputs() const { return static_cast<int>(inputTypes_.size()); }
  int numOutputs() const { return static_cast<int>(outputShapes_.size()); }
  DType inputType(int i) const { return inputTypes_[i]; }
  const Shape &inputShape(int i) const { return inputShapes_[i]; }
  /// The node producing input i (e.g. a read's `variable`, for its attrs).
  const Node &inputNode(int i) const;
  /// The value of input i when it is produced by a `constant` node, else null.
  const Tensor *inputConstant(int i) const;
  /// Known integer values of a constant 0-d or 1-d input, else nullopt.
  std::optional<std::vector<int64_t>> inputConstantInts(int i) const;

  template <typename T> const T &attr(std::string_view name) const {
    return std::get<T>(spec_.attrs.find(name)->second);
  }
  bool hasAttr(std::string_view name) const { return spec_.attrs.count(name) > 0; }
  /// The node's name, for TF-style messages ("... for 'matmul_1' (op: ...)").
  const std::string &nodeName() const { return spec_.name; }

  DType outputType(int i) const { return outputTypes_[i]; }
  void setOutputType(int i, DType t) { outputTypes_[i] = t; }
  void setOutput(int i, Shape s) { outputShapes_[i] = std::move(s); }

  /// An invalid_argument error for this node (the caller adds the location).
  Status error(std::string message) const;

private:
  const Graph &graph_;
  const NodeSpec &spec_;
  const OpDef &op_;
  std::vector<DType> inputTypes_;
  std::vector<Shape> inputShapes_;
  std::vector<DType> &outputTypes_;
  std::vector<Shape> &outputShapes_;
};

// Shape functions shared by many op rows.
Status unchangedShape(InferenceContext &c);   // output 0 = input 0
Status scalarShape(InferenceContext &c);      // every output is []
Status unknownShape(InferenceContext &c);     // every output unknown
/// numpy broadcasting of inputs 0 and 1 (invalid_argument when they clash).
Status broadcastShape(InferenceContext &c);
/// Broadcasts two static shapes; nullopt if they are incompatible.
std::optional<Shape> broadcastShapes(const Shape &a, const Shape &b);

} // namespace sluice::ir
