// tests/passes/test_graph.h: a tiny graph builder and a one-line-per-node
// dump used as golden text by the pass and runtime tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/graph.h"

namespace sluice::testing {

class TestGraph {
public:
  ir::Graph &graph() { return *g_; }
  std::unique_ptr<ir::Graph> &owned() { return g_; }

  ir::Node *add(std::string name, std::string op, std::vector<ir::Output> inputs,
                ir::AttrMap attrs = {}, std::vector<ir::NodeId> controls = {}) {
    ir::NodeSpec spec;
    spec.name = std::move(name);
    spec.op = std::move(op);
    spec.inputs = std::move(inputs);
    spec.attrs = std::move(attrs);
    spec.controlInputs = std::move(controls);
    spec.loc = SourceLoc{file_, ++line_, 1};
    auto n = g_->addNode(std::move(spec));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return n.hasValue() ? *n : nullptr;
  }
  ir::Output out(ir::Node *n, int i = 0) { return ir::Output{n->id(), i}; }

  template <typename T> ir::Output constant(std::string name, T v) {
    ir::Tensor t = ir::Tensor::scalar<T>(v);
    return out(add(std::move(name), "constant", {},
                   {{"value", t}, {"dtype", t.dtype()}}));
  }
  template <typename T>
  ir::Output constantVec(std::string name, std::vector<T> v) {
    ir::Tensor t = ir::Tensor::fromVector<T>(v);
    return out(add(std::move(name), "constant", {},
                   {{"value", t}, {"dtype", t.dtype()}}));
  }
  ir::Output placeholder(std::string name, ir::DType t, ir::Shape s) {
    return out(add(std::move(name), "placeholder", {}, {{"dtype", t}, {"shape", s}}));
  }
  ir::Output binary(std::string name, std::string op, ir::Output a, ir::Output b) {
    return out(add(std::move(name), std::move(op), {a, b}));
  }

private:
  std::unique_ptr<ir::Graph> g_ = std::make_unique<ir::Graph>();
  std::shared_ptr<const std::string> file_ =
      std::make_shared<const std::string>("test.sluice");
  int line_ = 0;
};

/// "name = op(in:0, ...) ^ctl" per node in id order; constants show value.
inline std::string dump(const ir::Graph &g) {
  std::string s;
  for (int i = 0; i < g.numNodes(); ++i) {
    const ir::Node &n = g.node(i);
    s += n.name() + " = " + n.opName() + "(";
    for (size_t k = 0; k < n.inputs().size(); ++k) {
      const ir::Output &in = n.inputs()[k];
      s += (k ? ", " : "") + g.node(in.node).name();
      if (in.index)
        s += ":" + std::to_string(in.index);
    }
    s += ")";
    for (ir::NodeId c : n.controlInputs())
      s += " ^" + g.node(c).name();
    if (n.opName() == "constant")
      s += " " + ir::formatTensor(n.attr<ir::Tensor>("value"));
    s += "\n";
  }
  return s;
}

} // namespace sluice::testing
