// ir/text/verifier.cc: whole-graph invariant checks, independent of the
// Boost edge index (it reads each node's own input lists, which is what
// the executor and the printer trust).
#include "ir/text/verifier.h"

#include <unordered_set>

#include "ir/inference.h"

namespace sluice::ir {

namespace {

Status nodeError(const Node &n, const std::string &msg,
                 Code code = Code::kInvalidArgument) {
  // Status::toString prefixes "node 'name': "; the message names the op.
  return Status(code, msg, n.loc(), n.name());
}

std::string typeName(DType t) { return std::string(dtypeName(t)); }

// The attr `name` of n as a T, or null if absent or of another type (the
// attr check reports that; here it only must not crash).
template <typename T> const T *attrAs(const Node &n, const std::string &name) {
  auto it = n.attrs().find(name);
  return it == n.attrs().end() ? nullptr : std::get_if<T>(&it->second);
}

// Dtypes an argument list expects (inputs or outputs) under n's attrs, as
// Graph::addNode binds them; nullopt when an attr it needs is missing.
std::optional<std::vector<DType>>
expectedTypes(const Node &n, const std::vector<ArgDef> &args) {
  std::vector<DType> out;
  for (const ArgDef &arg : args) {
    if (!arg.typeListAttr.empty()) {
      const auto *types = attrAs<std::vector<DType>>(n, arg.typeListAttr);
      if (!types)
        return std::nullopt;
      out.insert(out.end(), types->begin(), types->end());
      continue;
    }
    DType t = arg.fixedType;
    if (t == DType::kInvalid) {
      const DType *bound = attrAs<DType>(n, arg.typeAttr);
      if (!bound)
        return std::nullopt;
      t = *bound;
    }
    int64_t count = 1;
    if (!arg.numberAttr.empty()) {
      const int64_t *num = attrAs<int64_t>(n, arg.numberAttr);
      if (!num || *num < 0 || *num > (int64_t(1) << 24))
        return std::nullopt;
      count = *num;
    }
    out.insert(out.end(), static_cast<size_t>(count), t);
  }
  return out;
}

Status checkAttrs(const Node &n) {
  const OpDef &op = n.op();
  for (const AttrDef &def : op.attrs) {
    auto it = n.attrs().find(def.name);
    if (it == n.attrs().end()) {
      if (def.optional)
        continue;
      return nodeError(n, "missing attribute '" + def.name + "' of " + op.name);
    }
    if (attrTypeOf(it->second) != def.type)
      return nodeError(
          n, "attribute '" + def.name + "' of " + op.name + " must be " +
                 std::string(attrTypeName(def.type)) + ", got " +
                 std::string(attrTypeName(attrTypeOf(it->second))));
    if (def.type == AttrType::kType && !def.allowed.empty()) {
      DType t = std::get<DType>(it->second);
      bool ok = false;
      for (DType a : def.allowed)
        ok |= a == t;
      if (!ok)
        return nodeError(n, "attribute '" + def.name + "' = " + typeName(t) +
                                " is not an allowed dtype for " + op.name);
    }
    if (def.minimum && def.type == AttrType::kInt &&
        std::get<int64_t>(it->second) < *def.minimum)
      return nodeError(n, "attribute '" + def.name + "' of " + op.name +
                              " must be at least " +
                              std::to_string(*def.minimum) + ", got " +
                              std::to_string(std::get<int64_t>(it->second)));
  }
  for (const auto &[name, value] : n.attrs())
    if (!op.findAttr(name) && (name.empty() || name[0] != '_'))
      return nodeError(n, "op " + op.name + " has no attribute '" + name + "'");
  return Status::ok();
}

Status checkEdges(const Graph &g, const Node &n) {
  for (int i = 0; i < n.numInputs(); ++i) {
    const Output &in = n.inputs()[i];
    if (in.node < 0 || in.node >= g.numNodes())
      return nodeError(n, "input " + std::to_string(i) + " of " + n.opName() +
                              " refers to missing node " +
                              std::to_string(in.node));
    const Node &src = g.node(in.node);
    if (in.index < 0 || in.index >= src.numOutputs())
      return nodeError(n, "input " + std::to_string(i) + " of " + n.opName() +
                              " reads output " + std::to_string(in.index) +
                              " of '" + src.name() + "', which has " +
                              std::to_string(src.numOutputs()) + " output" +
                              (src.numOutputs() == 1 ? "" : "s"));
  }
  for (NodeId c : n.controlInputs())
    if (c < 0 || c >= g.numNodes())
      return nodeError(n, "control input of " + n.opName() +
                              " refers to missing node " + std::to_string(c));
  auto expected = expectedTypes(n, n.op().inputs);
  if (!expected)
    return Status::ok(); // checkAttrs reports the missing attr
  if (static_cast<int>(expected->size()) != n.numInputs())
    return nodeError(n, n.opName() + " expects " +
                            std::to_string(expected->size()) + " inputs, got " +
                            std::to_string(n.numInputs()));
  for (int i = 0; i < n.numInputs(); ++i) {
    const Output &in = n.inputs()[i];
    DType got = g.node(in.node).outputType(in.index);
    if (got != (*expected)[i])
      return nodeError(n, "input " + std::to_string(i) + " of " + n.opName() +
                              " reads '" + g.node(in.node).name() + ":" +
                              std::to_string(in.index) + "' of dtype " +
                              typeName(got) + ", but " +
                              typeName((*expected)[i]) + " is expected");
  }
  return Status::ok();
}

// Re-runs the op's dtype binding and shape function on the node's current
// inputs: output dtypes must equal what it gives (shape functions may
// change them, as divide does for ints) and each static shape must be
// compatible with the inferred one (passes may refine shapes, not
// contradict them). Runs only after attrs and input dtypes checked out.
Status checkOutputs(const Graph &g, const Node &n) {
  if (n.outputShapes().size() != n.outputTypes().size())
    return nodeError(
        n, n.opName() + " node has " + std::to_string(n.outputTypes().size()) +
               " output dtypes but " + std::to_string(n.outputShapes().size()) +
               " output shapes");
  auto expected = expectedTypes(n, n.op().outputs);
  if (!expected)
    return Status::ok();
  if (expected->size() != n.outputTypes().size())
    return nodeError(
        n, n.opName() + " gives " + std::to_string(expected->size()) +
               " outputs, node has " + std::to_string(n.numOutputs()));
  std::vector<Shape> shapes(expected->size());
  if (n.op().shapeFn) {
    NodeSpec spec;
    spec.name = n.name();
    spec.op = n.opName();
    spec.attrs = n.attrs();
    spec.inputs = n.inputs();
    spec.loc = n.loc();
    std::vector<DType> inTypes;
    std::vector<Shape> inShapes;
    for (const Output &in : n.inputs()) {
      inTypes.push_back(g.node(in.node).outputType(in.index));
      inShapes.push_back(g.node(in.node).outputShape(in.index));
    }
    InferenceContext ctx(g, spec, n.op(), inTypes, inShapes, *expected, shapes);
    Status s = n.op().shapeFn(ctx);
    if (!s.isOk())
      return nodeError(n, s.message());
  }
  for (int i = 0; i < n.numOutputs(); ++i) {
    if (n.outputType(i) != (*expected)[i])
      return nodeError(n, "output " + std::to_string(i) + " of " + n.opName() +
                              " has dtype " + typeName(n.outputType(i)) +
                              ", but " + n.opName() + " gives " +
                              typeName((*expected)[i]));
    if (!n.outputShape(i).isCompatibleWith(shapes[i]))
      return nodeError(n, "output " + std::to_string(i) + " of " + n.opName() +
                              " has shape " + n.outputShape(i).str() +
                              ", but " + n.opName() + " infers " +
                              shapes[i].str());
  }
  return Status::ok();
}

// Kahn's algorithm over the nodes' own input lists; on a cycle, walks back
// through unfinished producers until a node repeats, which is on the cycle.
Status checkAcyclic(const Graph &g) {
  int n = g.numNodes();
  std::vector<std::vector<NodeId>> users(n);
  std::vector<int> pending(n, 0);
  auto producers = [&](const Node &node) {
    std::vector<NodeId> p;
    for (const Output &in : node.inputs())
      p.push_back(in.node);
    for (NodeId c : node.controlInputs())
      p.push_back(c);
    return p;
  };
  for (NodeId id = 0; id < n; ++id)
    for (NodeId p : producers(g.node(id))) {
      users[p].push_back(id);
      ++pending[id];
    }
  std::vector<NodeId> ready;
  for (NodeId id = 0; id < n; ++id)
    if (pending[id] == 0)
      ready.push_back(id);
  int done = 0;
  while (!ready.empty()) {
    NodeId id = ready.back();
    ready.pop_back();
    ++done;
    for (NodeId u : users[id])
      if (--pending[u] == 0)
        ready.push_back(u);
  }
  if (done == n)
    return Status::ok();
  NodeId cur = 0;
  while (pending[cur] == 0)
    ++cur;
  std::vector<bool> seen(n, false);
  while (!seen[cur]) {
    seen[cur] = true;
    for (NodeId p : producers(g.node(cur)))
      if (pending[p] > 0) {
        cur = p;
        break;
      }
  }
  return nodeError(g.node(cur),
                   "the graph has a cycle through this " +
                       g.node(cur).opName() + " node",
                   Code::kFailedPrecondition);
}

Status verifyBody(const Graph &g, const FunctionLibrary &lib);

// A fused node's kernel runs its body on its inputs: the parameters'
// dtypes are its inputs', the results' its outputs', shapes compatible.
Status checkFusedSignature(const Graph &g, const Node &n, const FunctionDef &f) {
  if (f.args.size() != n.inputs().size() || f.rets.size() != n.outputTypes().size())
    return nodeError(n, "fused node has " + std::to_string(n.inputs().size()) + " inputs and " +
                            std::to_string(n.numOutputs()) + " outputs, its body '" + f.name +
                            "' takes " + std::to_string(f.args.size()) + " and gives " +
                            std::to_string(f.rets.size()));
  std::vector<DType> in = f.argTypes(), out = f.retTypes();
  for (size_t i = 0; i < in.size(); ++i) {
    DType t = g.node(n.inputs()[i].node).outputType(n.inputs()[i].index);
    if (in[i] != t)
      return nodeError(n, "fused input " + std::to_string(i) + " is " + typeName(t) + ", body '" +
                              f.name + "' takes " + typeName(in[i]));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    const Output &r = f.rets[i];
    if (out[i] != n.outputType(i) ||
        !f.body->node(r.node).outputShape(r.index).isCompatibleWith(n.outputShape(i)))
      return nodeError(n, "fused output " + std::to_string(i) + " is " +
                              typeName(n.outputType(i)) + n.outputShape(i).str() + ", body '" +
                              f.name + "' gives " + typeName(out[i]) +
                              f.body->node(r.node).outputShape(r.index).str());
  }
  return Status::ok();
}

// map_dataset's `f` and filter_dataset's `predicate` name library functions
// whose parameters are the element's components plus the captured tensors.
Status checkFunctionRefs(const Graph &g, const Node &n, const FunctionLibrary &lib) {
  for (const char *attr : {"f", "predicate"}) {
    if (!n.op().findAttr(attr) || !n.hasAttr(attr))
      continue;
    const std::string &fname = n.attr<std::string>(attr);
    auto f = lib.find(fname);
    if (!f)
      return nodeError(n, std::string(attr) + " names function '" + fname +
                              "', which the graph does not define");
    if (n.opName() == "fused")
      SLUICE_TRY(checkFusedSignature(g, n, *f));
  }
  return Status::ok();
}

Status verifyBody(const Graph &g, const FunctionLibrary &lib) {
  std::unordered_set<std::string> names;
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const Node &n = g.node(id);
    if (n.name().empty())
      return Status(Code::kInvalidArgument,
                    "node " + std::to_string(id) + " has an empty name",
                    n.loc());
    if (!names.insert(n.name()).second)
      return nodeError(n, "duplicate node name '" + n.name() + "'");
  }
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const Node &n = g.node(id);
    SLUICE_TRY(checkAttrs(n));
    SLUICE_TRY(checkEdges(g, n));
    SLUICE_TRY(checkOutputs(g, n));
    SLUICE_TRY(checkFunctionRefs(g, n, lib));
  }
  return checkAcyclic(g);
}

} // namespace

Status verifyGraph(const Graph &g) {
  SLUICE_TRY(verifyBody(g, g.functions()));
  for (const auto &[name, f] : g.functions().all()) {
    SLUICE_TRY(f->verify());
    SLUICE_TRY(verifyBody(*f->body, g.functions()));
  }
  return Status::ok();
}


} // namespace sluice::ir
