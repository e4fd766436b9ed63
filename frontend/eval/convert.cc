// frontend/eval/convert.cc: host values to tensors, following TF's
// convert_to_tensor: nested lists become dense tensors, a literal's dtype
// comes from its context, and values that do not fit are errors.
#include <cmath>
#include <limits>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

enum class Natural { kBool, kInt, kFloat, kString };

struct Flat {
  ir::Dims dims;
  std::vector<const Value *> leaves;
};

void flatten(const Value &v, int depth, Flat &out, std::vector<int64_t> &dimsSeen,
             const SourceLoc &loc) {
  if (depth > 64)
    throwError(Code::kValueError, "tensor literal is nested too deeply", loc);
  if (v.isSequence()) {
    int64_t n = static_cast<int64_t>(v.asList()->size());
    if (static_cast<int>(dimsSeen.size()) <= depth)
      dimsSeen.push_back(n);
    else if (dimsSeen[depth] != n)
      throwError(Code::kValueError,
                 "Can't convert non-rectangular Python sequence to Tensor.", loc);
    for (const Value &x : *v.asList())
      flatten(x, depth + 1, out, dimsSeen, loc);
    return;
  }
  if (static_cast<int>(dimsSeen.size()) > depth)
    throwError(Code::kValueError,
               "Can't convert non-rectangular Python sequence to Tensor.", loc);
  out.leaves.push_back(&v);
}

template <typename T> bool fits(double x) {
  if (std::isnan(x) || std::isinf(x))
    return std::numeric_limits<T>::has_infinity;
  return x >= static_cast<double>(std::numeric_limits<T>::lowest()) &&
         x <= static_cast<double>(std::numeric_limits<T>::max());
}

} // namespace

std::optional<ir::DType> EvaluatorImpl::symbolicDType(const Value &v) {
  if (v.is(Value::kTensor))
    return v.asTensor().graph->graph->node(v.asTensor().out.node).outputType(v.asTensor().out.index);
  if (auto var = v.objectAs<VariableObject>())
    return var->graph->graph->node(var->info.readValue.node).outputType(0);
  if (v.is(Value::kHostTensor))
    return v.asHostTensor().dtype();
  if (v.isSequence())
    for (const Value &x : *v.asList())
      if (auto t = symbolicDType(x); t && (x.isSymbolic() || x.objectAs<VariableObject>()))
        return t;
  return std::nullopt;
}

ir::Tensor EvaluatorImpl::hostToTensor(const Value &v, std::optional<ir::DType> want,
                                       const SourceLoc &loc) {
  if (v.is(Value::kHostTensor)) {
    const ir::Tensor &t = v.asHostTensor();
    if (!want || *want == t.dtype())
      return t;
    if (ir::isPod(*want) && ir::isPod(t.dtype()))
      return eager("cast", {t}, {{"dtype", *want}}, loc);
    throwError(Code::kTypeError,
               "cannot convert a " + std::string(ir::dtypeName(t.dtype())) +
                   " tensor to " + std::string(ir::dtypeName(*want)),
               loc);
  }
  if (v.isSymbolic() || v.objectAs<VariableObject>())
    throwError(Code::kTypeError,
               "a symbolic tensor is not a host value; run it in a session first", loc);
  Flat flat;
  std::vector<int64_t> dims;
  flatten(v, 0, flat, dims, loc);
  flat.dims = dims;
  Natural nat = Natural::kBool;
  bool any = false;
  for (const Value *leaf : flat.leaves) {
    Natural n;
    switch (leaf->kind()) {
    case Value::kBool: n = Natural::kBool; break;
    case Value::kInt: n = Natural::kInt; break;
    case Value::kFloat: n = Natural::kFloat; break;
    case Value::kString: n = Natural::kString; break;
    case Value::kHostTensor:
      if (leaf->asHostTensor().numElements() == 1 && leaf->asHostTensor().rank() == 0) {
        n = ir::isFloating(leaf->asHostTensor().dtype()) ? Natural::kFloat
            : leaf->asHostTensor().dtype() == ir::DType::kBool ? Natural::kBool
            : leaf->asHostTensor().dtype() == ir::DType::kString ? Natural::kString
                                                                 : Natural::kInt;
        break;
      }
      [[fallthrough]];
    default:
      throwError(Code::kTypeError,
                 "cannot convert a " + leaf->typeName() + " to a tensor element", loc);
    }
    if (!any) {
      nat = n;
      any = true;
    } else if (n != nat) {
      bool numeric = (n == Natural::kInt || n == Natural::kFloat) &&
                     (nat == Natural::kInt || nat == Natural::kFloat);
      if (!numeric)
        throwError(Code::kTypeError, "tensor literal mixes element kinds", loc);
      nat = Natural::kFloat;
    }
  }
  ir::DType dtype;
  if (want) {
    dtype = *want;
  } else {
    switch (nat) {
    case Natural::kBool: dtype = any ? ir::DType::kBool : ir::DType::kF32; break;
    case Natural::kFloat: dtype = ir::DType::kF32; break;
    case Natural::kString: dtype = ir::DType::kString; break;
    case Natural::kInt: {
      dtype = ir::DType::kI32;
      for (const Value *leaf : flat.leaves)
        if (leaf->is(Value::kInt) && !fits<int32_t>(static_cast<double>(leaf->asInt())))
          dtype = ir::DType::kI64;
      break;
    }
    }
  }
  ir::Tensor t = ir::Tensor::uninitialized(dtype, flat.dims);
  auto typeMismatch = [&](const Value &leaf) {
    throwError(Code::kTypeError,
               "expected " + std::string(ir::dtypeName(dtype)) + ", got " +
                   repr(leaf, true) + " of kind " + leaf.typeName(),
               loc);
  };
  for (size_t i = 0; i < flat.leaves.size(); ++i) {
    const Value &leaf = *flat.leaves[i];
    Value scalar = leaf;
    if (leaf.is(Value::kHostTensor)) {
      const ir::Tensor &ht = leaf.asHostTensor();
      if (ht.dtype() == ir::DType::kString)
        scalar = Value::string(ht.strings()[0]);
      else if (ir::isFloating(ht.dtype()))
        scalar = Value::real(ht.elementAsDouble(0));
      else if (ht.dtype() == ir::DType::kBool)
        scalar = Value::boolean(ht.elementAsInt(0) != 0);
      else
        scalar = Value::integer(ht.elementAsInt(0));
    }
    if (dtype == ir::DType::kString || dtype == ir::DType::kResource) {
      if (!scalar.is(Value::kString))
        typeMismatch(leaf);
      t.strings()[i] = scalar.asString();
      continue;
    }
    if (scalar.is(Value::kString))
      typeMismatch(leaf);
    if (dtype == ir::DType::kBool) {
      if (!scalar.is(Value::kBool))
        typeMismatch(leaf);
      t.data<bool>()[i] = scalar.asBool();
      continue;
    }
    if (ir::isInteger(dtype) && scalar.is(Value::kFloat))
      typeMismatch(leaf);
    double x = scalar.asNumber();
    bool ok = true;
    ir::dispatchPod(dtype, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, ir::Half>) {
        ok = std::isinf(x) || std::isnan(x) || std::fabs(x) <= 65504.0;
        static_cast<T *>(t.rawData())[i] = ir::Half(static_cast<float>(x));
      } else if constexpr (std::is_same_v<T, bool>) {
      } else if constexpr (std::is_integral_v<T>) {
        int64_t iv = scalar.is(Value::kInt) ? scalar.asInt() : static_cast<int64_t>(x);
        ok = iv >= static_cast<int64_t>(std::numeric_limits<T>::lowest()) &&
             iv <= static_cast<int64_t>(std::numeric_limits<T>::max());
        static_cast<T *>(t.rawData())[i] = static_cast<T>(iv);
      } else {
        ok = fits<T>(x);
        static_cast<T *>(t.rawData())[i] = static_cast<T>(x);
      }
    });
    if (!ok)
      throwError(Code::kValueError,
                 "value " + repr(leaf, true) + " does not fit in dtype " +
                     std::string(ir::dtypeName(dtype)),
                 loc);
  }
  return t;
}

ir::Output EvaluatorImpl::captureInto(GraphContext &g, GraphContext *owner, ir::Output o,
                                      const char *what, const SourceLoc &loc) {
  if (owner == &g)
    return o;
  if (!g.captureFrom)
    throwError(Code::kValueError,
               std::string(what) + " belongs to another graph (was it built outside this test?)",
               loc);
  ir::Output outer = captureInto(*g.captureFrom, owner, o, what, loc);
  for (const auto &[from, to] : g.captures)
    if (from == outer)
      return to;
  const ir::Node &src = g.captureFrom->graph->node(outer.node);
  ir::NodeSpec arg;
  arg.op = "function_arg";
  arg.name = g.graph->uniqueName("captured/" + src.name());
  arg.attrs = {{"T", src.outputType(outer.index)},
               {"index", int64_t{g.nextArgIndex++}},
               {"shape", src.outputShape(outer.index)}};
  arg.loc = loc;
  ir::Node *n;
  {
    std::unique_lock lock(g.mutex);
    auto added = g.graph->addNode(std::move(arg));
    if (!added.hasValue())
      throw LangError{added.takeStatus()};
    n = *added;
  }
  ir::Output inner{n->id(), 0};
  g.captures.emplace_back(outer, inner);
  return inner;
}

ir::Output EvaluatorImpl::toTensor(const Value &v, std::optional<ir::DType> want,
                                   const SourceLoc &loc) {
  if (v.is(Value::kTensor))
    return captureInto(graph(), v.asTensor().graph, v.asTensor().out, "tensor", loc);
  if (auto var = v.objectAs<VariableObject>()) {
    if (var->graph != ts().graph) {
      // A function body reads the variable when it runs, not when the
      // dataset was made: capture the handle, read inside.
      ir::Output h = captureInto(graph(), var->graph, {var->info.handle, 0}, "variable", loc);
      ir::DType dt = var->graph->graph->node(var->info.handle).attr<ir::DType>("dtype");
      return makeOp("read_variable", {h}, {{"dtype", dt}}, loc, "read").asTensor().out;
    }
    // Inside control_dependencies the read itself must wait for the
    // dependencies (TF1 reads a ref variable when its consumer runs), so
    // the variable gets a fresh read there instead of the shared name/read.
    std::vector<ir::NodeId> deps;
    for (const auto &group : ts().controlDeps)
      deps.insert(deps.end(), group.begin(), group.end());
    if (deps.empty())
      return var->info.readValue;
    const ir::Node &handle = graph().graph->node(var->info.handle);
    ir::NodeSpec read;
    read.op = "read_variable";
    read.name = graph().graph->uniqueName(handle.name() + "/read");
    read.inputs = {{var->info.handle, 0}};
    read.attrs = {{"dtype", handle.attr<ir::DType>("dtype")}};
    read.controlInputs = std::move(deps);
    read.colocateWith = {handle.name()};
    read.loc = loc;
    ir::Node &n = addNode(std::move(read), false);
    n.setRequestedDevice(handle.requestedDevice());
    return {n.id(), 0};
  }
  if (v.is(Value::kOp))
    throwError(Code::kTypeError,
               "operation '" + v.asOp().graph->graph->node(v.asOp().node).name() +
                   "' has no output to use as a tensor",
               loc);
  if (v.isSequence()) {
    bool anySymbolic = false;
    for (const Value &x : *v.asList())
      anySymbolic = anySymbolic || x.isSymbolic() || x.objectAs<VariableObject>() ||
                    (x.isSequence() && symbolicDType(x) && !x.is(Value::kHostTensor));
    if (anySymbolic) {
      // TF auto-packs a list holding tensors.
      std::optional<ir::DType> elem = want ? want : symbolicDType(v);
      std::vector<ir::Output> parts;
      for (const Value &x : *v.asList())
        parts.push_back(toTensor(x, elem, loc));
      Value packed = makeOp("stack", std::move(parts), {{"axis", int64_t{0}}}, loc);
      return packed.asTensor().out;
    }
  }
  ir::Tensor t = hostToTensor(v, want, loc);
  Value c = makeOp("constant", {}, {{"value", t}, {"dtype", t.dtype()}}, loc, "Const");
  return c.asTensor().out;
}

} // namespace sluice::frontend
