// ir/gradients.cc: the backward walk over the ops between xs and ys, and
// the node-building helpers gradient rules share.
#include "ir/gradients.h"

#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

bool carriesGradient(DType t) { return isFloating(t) || t == DType::kResource; }

Output invalidOutput() { return Output{kNoNode, 0}; }

} // namespace

GradBuilder::GradBuilder(Graph &g, NodeId op, std::vector<std::optional<Output>> outputGrads,
                         const NodeFactory &factory)
    : g_(g), op_(op), grads_(std::move(outputGrads)), factory_(factory),
      inputGrads_(g.node(op).inputs().size()) {}

DType GradBuilder::inputType(int i) const {
  Output in = input(i);
  return g_.node(in.node).outputType(in.index);
}

const Shape &GradBuilder::inputShape(int i) const {
  Output in = input(i);
  return g_.node(in.node).outputShape(in.index);
}

Output GradBuilder::op(const std::string &opName, std::vector<Output> inputs, AttrMap attrs,
                       const std::string &base) {
  if (!status_.isOk())
    return invalidOutput();
  for (const Output &in : inputs)
    if (in.node == kNoNode)
      return invalidOutput();
  NodeSpec spec;
  spec.name = node().name() + "_grad/" + (base.empty() ? opName : base);
  spec.op = opName;
  spec.inputs = std::move(inputs);
  spec.attrs = std::move(attrs);
  spec.loc = node().loc();
  auto n = factory_(std::move(spec));
  if (!n.hasValue()) {
    Status s = n.takeStatus();
    status_ = Status(s.code(), "while building the gradient of '" + node().name() + "' (" +
                                   node().opName() + "): " + s.message(),
                     node().loc(), node().name());
    return invalidOutput();
  }
  return Output{(*n)->id(), 0};
}

Output GradBuilder::constant(Tensor value) {
  DType t = value.dtype();
  return op("constant", {}, {{"value", std::move(value)}, {"dtype", t}}, "Const");
}

Output GradBuilder::scalar(double v, DType dtype) {
  Tensor t(dtype, {});
  dispatchPod(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, bool>)
      *t.data<T>() = v != 0;
    else
      *t.data<T>() = static_cast<T>(v);
  });
  return constant(std::move(t));
}

Output GradBuilder::shapeOf(Output x) {
  // A static shape becomes a constant, so the gradient's own shapes stay
  // static and shape-agreeing cases need no reduction at all.
  if (x.node != kNoNode) {
    const Shape &s = g_.node(x.node).outputShape(x.index);
    if (s.isFullyDefined()) {
      Tensor t(DType::kI32, Dims{static_cast<int64_t>(s.rank())});
      for (int i = 0; i < s.rank(); ++i)
        t.data<int32_t>()[i] = static_cast<int32_t>(s.dim(i));
      return constant(std::move(t));
    }
  }
  return op("shape", {x}, {}, "Shape");
}

Output GradBuilder::zerosLike(Output x) { return op("zeros_like", {x}); }

Output GradBuilder::gradOrZeros(int i) {
  if (grads_[static_cast<size_t>(i)])
    return *grads_[static_cast<size_t>(i)];
  return zerosLike(output(i));
}

Output GradBuilder::sumToShapeOf(Output g, Output like) {
  if (g.node == kNoNode || like.node == kNoNode)
    return invalidOutput();
  const Shape &gs = g_.node(g.node).outputShape(g.index);
  const Shape &ls = g_.node(like.node).outputShape(like.index);
  if (gs.isFullyDefined() && gs == ls)
    return g;
  return op("sum_to_shape", {g, shapeOf(like)});
}

void GradBuilder::setInputGrad(int i, Output g) {
  if (g.node != kNoNode)
    inputGrads_[static_cast<size_t>(i)] = g;
}

void GradBuilder::fail(Status s) {
  if (status_.isOk())
    status_ = Status(s.code(), s.message(), node().loc(), node().name());
}

Expected<std::vector<std::optional<Output>>>
buildGradients(Graph &g, const std::vector<Output> &ys, const std::vector<Output> &xs,
               const std::vector<std::optional<Output>> &gradYs, const GradientOptions &opts) {
  NodeFactory factory = opts.factory;
  if (!factory) {
    std::string scope = opts.scope;
    factory = [&g, scope](NodeSpec spec) {
      spec.name = g.uniqueName(scope + spec.name);
      return g.addNode(std::move(spec));
    };
  }
  const int n = g.numNodes(); // the forward graph; gradient nodes come after
  // The ops between: reachable from an x and reaching a y (data edges).
  std::vector<char> fromX(n, 0), toY(n, 0);
  std::vector<NodeId> work;
  for (const Output &x : xs)
    if (x.node >= 0 && x.node < n && !fromX[x.node]) {
      fromX[x.node] = 1;
      work.push_back(x.node);
    }
  while (!work.empty()) {
    NodeId id = work.back();
    work.pop_back();
    for (const Use &u : g.consumers(id))
      if (u.inputIndex >= 0 && u.node < n && !fromX[u.node]) {
        fromX[u.node] = 1;
        work.push_back(u.node);
      }
  }
  for (const Output &y : ys)
    if (y.node >= 0 && y.node < n && !toY[y.node]) {
      toY[y.node] = 1;
      work.push_back(y.node);
    }
  while (!work.empty()) {
    NodeId id = work.back();
    work.pop_back();
    for (const Output &in : g.node(id).inputs())
      if (!toY[in.node]) {
        toY[in.node] = 1;
        work.push_back(in.node);
      }
  }
  std::vector<char> between(n, 0);
  for (NodeId id = 0; id < n; ++id)
    between[id] = fromX[id] && toY[id];

  // An op is processed once all its consumers in between have been.
  std::vector<int> pending(n, 0);
  for (NodeId id = 0; id < n; ++id)
    if (between[id])
      for (const Output &in : g.node(id).inputs())
        if (between[in.node])
          ++pending[in.node];

  // Gradient contributions per output, and their sums once processed.
  std::vector<std::vector<std::vector<Output>>> parts(n);
  std::vector<std::vector<std::optional<Output>>> sums(n);
  auto addPart = [&](Output o, Output grad) {
    auto &p = parts[o.node];
    if (p.empty())
      p.resize(static_cast<size_t>(g.node(o.node).numOutputs()));
    p[static_cast<size_t>(o.index)].push_back(grad);
  };
  auto sumOf = [&](NodeId id, int out) -> Expected<std::optional<Output>> {
    if (parts[id].empty() || parts[id][static_cast<size_t>(out)].empty())
      return std::optional<Output>();
    std::vector<Output> &ps = parts[id][static_cast<size_t>(out)];
    if (ps.size() == 1)
      return std::optional<Output>(ps[0]);
    const Node &fwd = g.node(id);
    NodeSpec spec;
    spec.name = fwd.name() + "_grad/AddN";
    spec.op = "add_n";
    spec.inputs = ps;
    spec.loc = fwd.loc();
    SLUICE_ASSIGN_OR_RETURN(Node * s, factory(std::move(spec)));
    return std::optional<Output>(Output{s->id(), 0});
  };

  for (size_t i = 0; i < ys.size(); ++i) {
    const Output &y = ys[i];
    if (y.node < 0 || y.node >= n || !between[y.node])
      continue;
    const Node &yn = g.node(y.node);
    if (!carriesGradient(yn.outputType(y.index)))
      continue;
    if (i < gradYs.size() && gradYs[i]) {
      addPart(y, *gradYs[i]);
      continue;
    }
    NodeSpec ones;
    ones.name = yn.name() + "_grad/ones_like";
    ones.op = "ones_like";
    ones.inputs = {y};
    ones.loc = yn.loc();
    SLUICE_ASSIGN_OR_RETURN(Node * o, factory(std::move(ones)));
    addPart(y, Output{o->id(), 0});
  }

  std::vector<NodeId> ready;
  for (NodeId id = 0; id < n; ++id)
    if (between[id] && pending[id] == 0)
      ready.push_back(id);
  while (!ready.empty()) {
    NodeId id = ready.back();
    ready.pop_back();
    const Node &fwd = g.node(id);
    std::vector<std::optional<Output>> outGrads(static_cast<size_t>(fwd.numOutputs()));
    bool anyGrad = false;
    for (int o = 0; o < fwd.numOutputs(); ++o) {
      SLUICE_ASSIGN_OR_RETURN(outGrads[static_cast<size_t>(o)], sumOf(id, o));
      anyGrad = anyGrad || outGrads[static_cast<size_t>(o)].has_value();
    }
    sums[id] = outGrads;
    bool inputNeedsGrad = false;
    for (const Output &in : fwd.inputs())
      inputNeedsGrad = inputNeedsGrad ||
                       (between[in.node] && carriesGradient(g.node(in.node).outputType(in.index)));
    if (anyGrad && inputNeedsGrad) {
      const OpDef &def = fwd.op();
      if (def.gradient) {
        GradBuilder b(g, id, outGrads, factory);
        try {
          def.gradient(b);
        } catch (const std::exception &e) {
          // A rule reading an attr the node lacks is a bug, not a crash.
          return Status(Code::kInternal,
                        "the gradient rule of " + fwd.opName() + " failed: " + e.what(),
                        fwd.loc(), fwd.name());
        }
        SLUICE_TRY(b.status());
        const Node &f = g.node(id); // nodes may have been added
        for (size_t i = 0; i < f.inputs().size(); ++i) {
          const Output in = f.inputs()[i];
          const auto &gi = b.inputGrads()[i];
          if (gi && between[in.node] && carriesGradient(g.node(in.node).outputType(in.index)))
            addPart(in, *gi);
        }
      } else if (!def.notDifferentiable) {
        return Status(Code::kInvalidArgument,
                      "No gradient defined for operation '" + fwd.name() +
                          "' (op type: " + fwd.opName() + ")",
                      fwd.loc(), fwd.name());
      }
    }
    for (const Output &in : g.node(id).inputs())
      if (between[in.node] && --pending[in.node] == 0)
        ready.push_back(in.node);
  }

  std::vector<std::optional<Output>> out;
  for (const Output &x : xs) {
    if (x.node < 0 || x.node >= n || !between[x.node] || sums[x.node].empty()) {
      out.emplace_back();
      continue;
    }
    out.push_back(sums[x.node][static_cast<size_t>(x.index)]);
  }
  return out;
}

void registerAllGradients(OpRegistry &reg) {
  registerMathGradients(reg);
  registerArrayGradients(reg);
  registerNnGradients(reg);
}

} // namespace sluice::ir
