// ir/gradients.h: reverse-mode differentiation as a graph rewrite (TF's
// gradients_impl.py). Each op's rule is a GradFn in its registry row: given
// the gradients flowing into the op's outputs, it adds the nodes computing
// the gradients of its inputs. buildGradients walks the ops between xs and
// ys backwards, sums the gradients of each output, and calls the rules.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace sluice::ir {

/// How gradient nodes are added: the frontend applies its name, device and
/// control scopes; `spec.name` is the base name within the gradient scope.
using NodeFactory = std::function<Expected<Node *>(NodeSpec spec)>;

/// What a gradient rule sees of one op, and how it builds nodes. Errors are
/// sticky: after a failed addNode every later call returns an invalid
/// Output and buildGradients returns the first error.
class GradBuilder {
public:
  GradBuilder(Graph &g, NodeId op, std::vector<std::optional<Output>> outputGrads,
              const NodeFactory &factory);

  const Node &node() const { return g_.node(op_); }
  Output input(int i) const { return node().inputs()[static_cast<size_t>(i)]; }
  Output output(int i) const { return Output{op_, i}; }
  int numInputs() const { return static_cast<int>(node().inputs().size()); }
  DType inputType(int i) const;
  const Shape &inputShape(int i) const;
  /// The summed gradient of output i; nullopt when nothing flows into it.
  const std::optional<Output> &grad(int i) const { return grads_[static_cast<size_t>(i)]; }
  /// The gradient of output i, zeros shaped like it when none flows in.
  Output gradOrZeros(int i);

  /// Adds `opName(inputs)`, named "<op>_grad/<base>" (base: the op name)
  /// within the gradient scope, at the forward op's location.
  Output op(const std::string &opName, std::vector<Output> inputs, AttrMap attrs = {},
            const std::string &base = "");
  Output constant(Tensor value);
  Output scalar(double v, DType dtype);
  Output shapeOf(Output x);
  Output zerosLike(Output x);
  /// `g` summed over the axes along which `like` was broadcast to g's
  /// shape, reshaped to `like`'s shape (the inverse of broadcasting); g
  /// itself when the static shapes already agree.
  Output sumToShapeOf(Output g, Output like);

  /// The gradient of input i (none unless set).
  void setInputGrad(int i, Output g);
  /// Marks the op's own failure (e.g. an attr a rule cannot differentiate).
  void fail(Status s);

  Status status() const { return status_; }
  const std::vector<std::optional<Output>> &inputGrads() const { return inputGrads_; }

private:
  Graph &g_;
  NodeId op_;
  std::vector<std::optional<Output>> grads_;
  const NodeFactory &factory_;
  std::vector<std::optional<Output>> inputGrads_;
  Status status_;
};

struct GradientOptions {
  /// Makes each gradient node; null: Graph::addNode with unique names.
  NodeFactory factory;
  /// Prefix of the nodes' names ("gradients/").
  std::string scope = "gradients/";
};

/// d(sum of ys)/d(xs): for each x its gradient, or nullopt when no y depends
/// on it (TF's None). `gradYs[i]` weights ys[i] (ones when absent). Only
/// float gradients flow (and into resource handles, through their reads).
/// An op on a needed path without a rule is invalid_argument "No gradient
/// defined for operation 'name' (op type: op)" at its location.
Expected<std::vector<std::optional<Output>>>
buildGradients(Graph &g, const std::vector<Output> &ys, const std::vector<Output> &xs,
               const std::vector<std::optional<Output>> &gradYs, const GradientOptions &opts = {});

// The rule families, one per file in ir/grads/ (registerAllGradients, in
// ir/op_registry.h, calls them once the ops exist).
class OpRegistry;
void registerMathGradients(OpRegistry &reg);  // ir/grads/math_grads.cc
void registerArrayGradients(OpRegistry &reg); // ir/grads/array_grads.cc
void registerNnGradients(OpRegistry &reg);    // ir/grads/nn_grads.cc

} // namespace sluice::ir
