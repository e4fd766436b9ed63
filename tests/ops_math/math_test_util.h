// tests/ops_math/math_test_util.h: one-op graphs over constants and
// placeholders, run through the op's CPU kernel by hand.
#pragma once

#include <gtest/gtest.h>

#include <map>

#include "backend/kernel_registry.h"
#include "backend/resource_mgr.h"
#include "ir/graph.h"
#include "ir/op_registry.h"

namespace sluice::testing {

using ir::DType;
using ir::Dims;
using ir::Half;
using ir::Shape;
using ir::Tensor;

template <typename T> Tensor tensor(std::vector<T> v, Dims dims) {
  return Tensor::fromVector(v, std::move(dims));
}
template <typename T> Tensor vec(std::vector<T> v) {
  return Tensor::fromVector(v, {static_cast<int64_t>(v.size())});
}
inline Tensor bools(std::vector<int> v, Dims dims) {
  Tensor t(DType::kBool, dims);
  for (size_t i = 0; i < v.size(); ++i)
    t.data<bool>()[i] = v[i] != 0;
  return t;
}
inline Tensor halves(std::vector<float> v, Dims dims) {
  Tensor t(DType::kF16, dims);
  for (size_t i = 0; i < v.size(); ++i)
    t.data<Half>()[i] = Half(v[i]);
  return t;
}
/// 0, 1, 2, ... as T.
template <typename T> Tensor iota(Dims dims, double start = 0) {
  Tensor t = Tensor::uninitialized(ir::DTypeOf<T>::value, dims);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.data<T>()[i] = static_cast<T>(start + static_cast<double>(i));
  return t;
}
/// Elements as doubles, to compare any numeric tensor with a literal.
inline std::vector<double> values(const Tensor &t) {
  std::vector<double> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    v[i] = t.elementAsDouble(i);
  return v;
}

class MathOpTest : public ::testing::Test {
protected:
  ir::Graph g;
  std::map<ir::NodeId, Tensor> feeds;
  backend::ResourceMgr resources;

  ir::Output constant(Tensor t) {
    ir::NodeSpec s;
    s.op = "constant";
    s.attrs["value"] = t;
    s.attrs["dtype"] = t.dtype();
    auto n = g.addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return {(*n)->id(), 0};
  }
  /// A placeholder of static shape `shape`, fed `value` by eval().
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
  /// A placeholder that is never fed (for static shape checks).
  ir::Output input(DType dtype, Shape shape = Shape::unknown()) {
    return fed(Tensor(dtype, {}), shape);
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
  std::string addError(std::string op, std::vector<ir::Output> inputs,
                       ir::AttrMap attrs = {}) {
    auto n = add(std::move(op), std::move(inputs), std::move(attrs));
    return n.hasValue() ? "" : n.status().message();
  }
  Shape shapeOf(std::string op, std::vector<ir::Output> inputs,
                ir::AttrMap attrs = {}) {
    ir::Node *n = mustAdd(std::move(op), std::move(inputs), std::move(attrs));
    return n ? n->outputShape(0) : Shape();
  }

  Expected<Tensor> eval(const ir::Node *n,
                        std::unique_ptr<backend::OpKernel> *keep = nullptr) {
    std::vector<Tensor> in;
    for (const ir::Output &o : n->inputs())
      in.push_back(feeds.count(o.node) ? feeds[o.node]
                                       : g.node(o.node).attr<Tensor>("value"));
    std::unique_ptr<backend::OpKernel> local;
    std::unique_ptr<backend::OpKernel> &kernel = keep ? *keep : local;
    if (!kernel) {
      SLUICE_ASSIGN_OR_RETURN(kernel, backend::kernelRegistry().create(*n, "CPU"));
    }
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
    p.resources = useResources ? &resources : nullptr;
    backend::KernelContext ctx(p);
    kernel->compute(ctx);
    if (!ctx.ok())
      return ctx.status();
    EXPECT_EQ(out[0].dtype(), n->outputType(0)) << n->name();
    EXPECT_TRUE(n->outputShape(0).isCompatibleWith(out[0].dims()))
        << n->name() << " static " << n->outputShape(0).str() << " vs run "
        << ir::dimsString(out[0].dims());
    return out[0];
  }
  Tensor eval1(const ir::Node *n) {
    if (!n)
      return Tensor();
    auto r = eval(n);
    EXPECT_TRUE(r.hasValue()) << (r.hasValue() ? "" : r.status().message());
    return r.hasValue() ? *r : Tensor();
  }
  std::string evalError(const ir::Node *n) {
    auto r = eval(n);
    return r.hasValue() ? "" : r.status().message();
  }
  /// Builds `op` over constants and runs it.
  Tensor run(std::string op, std::vector<Tensor> ins, ir::AttrMap attrs = {}) {
    std::vector<ir::Output> outs;
    for (Tensor &t : ins)
      outs.push_back(constant(t));
    return eval1(mustAdd(std::move(op), outs, std::move(attrs)));
  }
  /// Builds `op` over placeholders of unknown shape (so only the kernel can
  /// object) and returns the run-time error.
  std::string runError(std::string op, std::vector<Tensor> ins,
                       ir::AttrMap attrs = {}) {
    std::vector<ir::Output> outs;
    for (Tensor &t : ins)
      outs.push_back(fed(t));
    ir::Node *n = mustAdd(std::move(op), outs, std::move(attrs));
    return n ? evalError(n) : "node not added";
  }

  bool useResources = false;
};

#define EXPECT_TENSOR_EQ(a, b)                                                 \
  EXPECT_TRUE((a).equals(b)) << ir::formatTensor(a) << " dims "                \
                             << ir::dimsString((a).dims()) << " dtype "        \
                             << ir::dtypeName((a).dtype()) << " vs "           \
                             << ir::formatTensor(b) << " dims "                \
                             << ir::dimsString((b).dims()) << " dtype "        \
                             << ir::dtypeName((b).dtype())

#define EXPECT_HAS(msg, sub)                                                   \
  EXPECT_NE(std::string(msg).find(sub), std::string::npos)                     \
      << "message: '" << (msg) << "' lacks '" << (sub) << "'"

inline void expectNear(const Tensor &t, const std::vector<double> &want,
                       double tol = 1e-6) {
  ASSERT_EQ(t.numElements(), static_cast<int64_t>(want.size()))
      << ir::formatTensor(t);
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(t.elementAsDouble(i), want[i], tol) << "element " << i;
}

} // namespace sluice::testing
