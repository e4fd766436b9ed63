// tests/ir/graph_builder.h: terse node constructors for IR tests; each
// fails the test (and returns null) when addNode rejects the node.
#pragma once

#include <gtest/gtest.h>

#include "ir/graph.h"

namespace sluice::ir::testing {

inline SourceLoc testLoc(int line, int col = 1) {
  static auto file = std::make_shared<const std::string>("test.sluice");
  return SourceLoc{file, line, col};
}

inline Node *addOrFail(Graph &g, NodeSpec spec) {
  auto n = g.addNode(std::move(spec));
  EXPECT_TRUE(n.hasValue()) << n.status().toString();
  return n.hasValue() ? *n : nullptr;
}

inline Node *constant(Graph &g, const std::string &name, Tensor value) {
  NodeSpec s;
  s.name = name;
  s.op = "constant";
  s.attrs["value"] = std::move(value);
  return addOrFail(g, std::move(s));
}

inline Node *placeholder(Graph &g, const std::string &name, DType dtype,
                         std::optional<Shape> shape = std::nullopt) {
  NodeSpec s;
  s.name = name;
  s.op = "placeholder";
  s.attrs["dtype"] = dtype;
  if (shape)
    s.attrs["shape"] = *shape;
  return addOrFail(g, std::move(s));
}

inline Node *op(Graph &g, const std::string &name, const std::string &opName,
                std::vector<Output> inputs, AttrMap attrs = {},
                std::vector<NodeId> controls = {}) {
  NodeSpec s;
  s.name = name;
  s.op = opName;
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  s.controlInputs = std::move(controls);
  return addOrFail(g, std::move(s));
}

inline Output out(const Node *n, int index = 0) {
  return Output{n ? n->id() : kNoNode, index};
}

} // namespace sluice::ir::testing
