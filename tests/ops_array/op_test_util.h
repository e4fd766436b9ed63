// tests/ops_array/op_test_util.h: builds one-op graphs over constants and
// placeholders and runs the op's CPU kernel by hand.
#pragma once

#include <gtest/gtest.h>

#include "backend/kernel_registry.h"
#include "ir/graph.h"

namespace sluice::testing {

using ir::DType;
using ir::Shape;
using ir::Tensor;

template <typename T>
Tensor vec(std::vector<T> v, ir::Dims dims = {-1}) {
  if (dims == ir::Dims{-1})
    dims = {static_cast<int64_t>(v.size())};
  return Tensor::fromVector(v, dims);
}

inline Tensor strings(std::vector<std::string> v, ir::Dims dims = {-1}) {
  if (dims == ir::Dims{-1})
    dims = {static_cast<int64_t>(v.size())};
  Tensor t(DType::kString, dims);
  for (size_t i = 0; i < v.size(); ++i)
    t.strings()[i] = v[i];
  return t;
}

/// 0, 1, 2, ... of the given dims, as T.
template <typename T> Tensor iota(ir::Dims dims) {
  Tensor t = Tensor::uninitialized(ir::DTypeOf<T>::value, dims);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<T>()[i] = static_cast<T>(i);
  return t;
}

class OpTest : public ::testing::Test {
protected:
  ir::Graph g;
  // Values of placeholders for eval().
  std::map<ir::NodeId, Tensor> feeds;

  ir::Output constant(Tensor t) {
    ir::NodeSpec s;
    s.op = "constant";
    s.attrs["value"] = t;
    s.attrs["dtype"] = t.dtype();
    auto n = g.addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return {(*n)->id(), 0};
  }
  /// A placeholder of static shape `shape` fed with `value` in eval().
  ir::Output fed(Tensor value, Shape shape = Shape::unknown()) {
    ir::NodeSpec s;
    s.op = "placeholder";
    s.attrs["dtype"] = value.dtype();
    if (shape.hasRank())
      s.attrs["shape"] = shape;
    auto n = g.addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    feeds[(*n)->id()] = value;
    return {(*n)->id(), 0};
  }
  Expected<ir::Node *> add(std::string op, std::vector<ir::Output> inputs,
                           ir::AttrMap attrs = {}) {
    ir::NodeSpec s;
    s.op = std::move(op);
    s.inputs = std::move(inputs);
    s.attrs = std::move(attrs);
    return g.addNode(std::move(s));
  }
  ir::Node *mustAdd(std::string op, std::vector<ir::Output> inputs,
                    ir::AttrMap attrs = {}) {
    auto n = add(std::move(op), std::move(inputs), std::move(attrs));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return n.hasValue() ? *n : nullptr;
  }
  /// The message of a failing addNode ("" when it succeeds).
  std::string addError(std::string op, std::vector<ir::Output> inputs,
                       ir::AttrMap attrs = {}) {
    auto n = add(std::move(op), std::move(inputs), std::move(attrs));
    return n.hasValue() ? "" : n.status().message();
  }

  /// Runs `n`'s kernel on its inputs' values (constants or feeds).
  Expected<std::vector<Tensor>> eval(const ir::Node *n) {
    std::vector<Tensor> in;
    for (const ir::Output &o : n->inputs()) {
      const ir::Node &p = g.node(o.node);
      if (feeds.count(o.node))
        in.push_back(feeds[o.node]);
      else
        in.push_back(p.attr<Tensor>("value"));
    }
    return run(n, in);
  }
  Expected<std::vector<Tensor>> run(const ir::Node *n,
                                    const std::vector<Tensor> &in) {
    SLUICE_ASSIGN_OR_RETURN(auto kernel,
                            backend::kernelRegistry().create(*n, "CPU"));
    std::vector<const Tensor *> ptrs;
    for (const Tensor &t : in)
      ptrs.push_back(&t);
    std::vector<Tensor> out(n->numOutputs());
    backend::KernelContext::Params p;
    p.node = n;
    p.inputs = ptrs.data();
    p.numInputs = static_cast<int>(ptrs.size());
    p.outputs = out.data();
    p.numOutputs = n->numOutputs();
    backend::KernelContext ctx(p);
    kernel->compute(ctx);
    if (!ctx.ok())
      return ctx.status();
    for (int i = 0; i < n->numOutputs(); ++i) {
      EXPECT_EQ(out[i].dtype(), n->outputType(i)) << n->name() << ":" << i;
      EXPECT_TRUE(n->outputShape(i).isCompatibleWith(out[i].dims()))
          << n->name() << ":" << i << " static " << n->outputShape(i).str()
          << " vs run " << ir::dimsString(out[i].dims());
    }
    return out;
  }
  Tensor eval1(const ir::Node *n) {
    auto r = eval(n);
    EXPECT_TRUE(r.hasValue()) << (r.hasValue() ? "" : r.status().message());
    return r.hasValue() ? (*r)[0] : Tensor();
  }
  std::string evalError(const ir::Node *n) {
    auto r = eval(n);
    return r.hasValue() ? "" : r.status().message();
  }
};

#define EXPECT_TENSOR_EQ(a, b)                                                 \
  EXPECT_TRUE((a).equals(b)) << ir::formatTensor(a) << " dims "                \
                             << ir::dimsString((a).dims()) << " vs "           \
                             << ir::formatTensor(b) << " dims "                \
                             << ir::dimsString((b).dims())

#define EXPECT_HAS(msg, sub)                                                   \
  EXPECT_NE(std::string(msg).find(sub), std::string::npos)                     \
      << "message: '" << (msg) << "' lacks '" << (sub) << "'"

} // namespace sluice::testing
