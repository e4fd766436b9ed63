// frontend/eval/eval_expr.cc: expressions, calls and assignment targets.
#include <cmath>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

CallArgs evalArgs(EvaluatorImpl &ev, const std::vector<Arg> &args,
                  const std::shared_ptr<Env> &env, const SourceLoc &loc) {
  CallArgs out;
  out.loc = loc;
  for (const auto &a : args) {
    if (a.name.empty()) {
      if (!out.keywords.empty())
        throwError(Code::kValueError,
                   "positional argument follows keyword argument", a.loc);
      out.positional.push_back(ev.eval(*a.value, env));
      out.positionalLocs.push_back(a.loc);
    } else {
      for (const auto &[k, v] : out.keywords)
        if (k == a.name)
          throwError(Code::kValueError,
                     "keyword argument repeated: '" + a.name + "'", a.loc);
      out.keywords.emplace_back(a.name, ev.eval(*a.value, env));
      out.keywordLocs.push_back(a.loc);
    }
  }
  return out;
}

} // namespace

Value EvaluatorImpl::eval(const Expr &e, const std::shared_ptr<Env> &env) {
  switch (e.kind) {
  case ExprKind::kName: {
    const auto &n = static_cast<const NameExpr &>(e);
    if (Value *v = env->lookup(n.name))
      return *v;
    throwError(Code::kValueError, "name '" + n.name + "' is not defined", e.loc);
  }
  case ExprKind::kInt: {
    const auto &i = static_cast<const IntExpr &>(e);
    if (i.value > static_cast<uint64_t>(INT64_MAX))
      throwError(Code::kValueError,
                 "integer literal " + i.text + " does not fit in i64", e.loc);
    return Value::integer(static_cast<int64_t>(i.value));
  }
  case ExprKind::kFloat: return Value::real(static_cast<const FloatExpr &>(e).value);
  case ExprKind::kString: return Value::string(static_cast<const StringExpr &>(e).value);
  case ExprKind::kBool: return Value::boolean(static_cast<const BoolExpr &>(e).value);
  case ExprKind::kNone: return Value::none();
  case ExprKind::kList:
  case ExprKind::kTuple: {
    const auto &s = static_cast<const SequenceExpr &>(e);
    List items;
    items.reserve(s.elems.size());
    for (const auto &x : s.elems)
      items.push_back(eval(*x, env));
    return e.kind == ExprKind::kList ? Value::list(std::move(items))
                                     : Value::tuple(std::move(items));
  }
  case ExprKind::kDict: {
    const auto &d = static_cast<const DictExpr &>(e);
    auto dict = std::make_shared<Dict>();
    for (size_t i = 0; i < d.keys.size(); ++i) {
      Value k = eval(*d.keys[i], env);
      if (k.is(Value::kList) || k.is(Value::kDict))
        throwError(Code::kTypeError, "unhashable dict key of kind " + k.typeName(),
                   d.keys[i]->loc);
      dict->set(std::move(k), eval(*d.values[i], env));
    }
    return Value::dict(dict);
  }
  case ExprKind::kUnary: {
    const auto &u = static_cast<const UnaryExpr &>(e);
    return unary(u.op, eval(*u.operand, env), e.loc);
  }
  case ExprKind::kBinary: {
    const auto &b = static_cast<const BinaryExpr &>(e);
    if (b.op == BinaryOp::kAnd || b.op == BinaryOp::kOr) {
      Value l = eval(*b.lhs, env);
      bool t = truthy(l, b.lhs->loc);
      if ((b.op == BinaryOp::kAnd) != t)
        return l;
      return eval(*b.rhs, env);
    }
    Value l = eval(*b.lhs, env);
    Value r = eval(*b.rhs, env);
    return binary(b.op, l, r, e.loc);
  }
  case ExprKind::kCall: {
    const auto &c = static_cast<const CallExpr &>(e);
    Value callee = eval(*c.callee, env);
    CallArgs args = evalArgs(*this, c.args, env, e.loc);
    args.block = c.block.get();
    if (c.block) {
      // A trailing block runs in the caller's scope (expect_error).
      Value blockFn = Value::builtin("<block>", [this, &c, env](EvaluatorImpl &, CallArgs &) {
        Value ret;
        execBlock(*c.block, env, ret);
        return Value::none();
      });
      args.keywords.emplace_back("__block__", blockFn);
      args.keywordLocs.push_back(e.loc);
    }
    return call(callee, args);
  }
  case ExprKind::kAttr: {
    const auto &a = static_cast<const AttrExpr &>(e);
    return getAttr(eval(*a.object, env), a.name, e.loc);
  }
  case ExprKind::kIndex: {
    const auto &i = static_cast<const IndexExpr &>(e);
    return index(eval(*i.object, env), i, env);
  }
  case ExprKind::kListComp: {
    const auto &lc = static_cast<const ListCompExpr &>(e);
    List out;
    // Python 3 gives comprehensions their own scope.
    auto inner = std::make_shared<Env>(env);
    std::function<void(size_t)> loop = [&](size_t k) {
      if (k == lc.clauses.size()) {
        out.push_back(eval(*lc.elem, inner));
        return;
      }
      const CompClause &c = lc.clauses[k];
      for (Value &item : iterate(eval(*c.iter, inner), c.iter->loc)) {
        assign(*c.target, std::move(item), inner);
        bool keep = true;
        for (const auto &cond : c.conds)
          if (!truthy(eval(*cond, inner), cond->loc)) {
            keep = false;
            break;
          }
        if (keep)
          loop(k + 1);
      }
    };
    loop(0);
    return Value::list(std::move(out));
  }
  case ExprKind::kSpawn:
    return spawn(static_cast<const SpawnExpr &>(e), env);
  }
  throwError(Code::kInternal, "unknown expression", e.loc);
}

void EvaluatorImpl::assign(const Expr &target, Value v, const std::shared_ptr<Env> &env) {
  switch (target.kind) {
  case ExprKind::kName:
    env->set(static_cast<const NameExpr &>(target).name, std::move(v));
    return;
  case ExprKind::kList:
  case ExprKind::kTuple: {
    const auto &s = static_cast<const SequenceExpr &>(target);
    std::vector<Value> items = iterate(v, target.loc);
    if (items.size() != s.elems.size())
      throwError(Code::kValueError,
                 "cannot unpack " + std::to_string(items.size()) + " values into " +
                     std::to_string(s.elems.size()) + " names",
                 target.loc);
    for (size_t i = 0; i < items.size(); ++i)
      assign(*s.elems[i], std::move(items[i]), env);
    return;
  }
  case ExprKind::kIndex: {
    const auto &ix = static_cast<const IndexExpr &>(target);
    Value obj = eval(*ix.object, env);
    if (ix.items.size() != 1 || ix.items[0].isSlice)
      throwError(Code::kTypeError, "only single-key assignment is supported", target.loc);
    Value key = eval(*ix.items[0].index, env);
    if (obj.is(Value::kDict)) {
      obj.asDict()->set(std::move(key), std::move(v));
      return;
    }
    if (obj.is(Value::kList)) {
      int64_t i = toInt(key, "list index", ix.items[0].loc);
      auto &l = *obj.asList();
      if (i < 0)
        i += static_cast<int64_t>(l.size());
      if (i < 0 || i >= static_cast<int64_t>(l.size()))
        throwError(Code::kOutOfRange, "list assignment index out of range", target.loc);
      l[i] = std::move(v);
      return;
    }
    throwError(Code::kTypeError,
               "cannot assign into a " + obj.typeName() +
                   (obj.isSymbolic() ? " (tensors are immutable; use a variable)" : ""),
               target.loc);
  }
  default:
    throwError(Code::kValueError, "cannot assign to this expression", target.loc);
  }
}

Value EvaluatorImpl::callWith(const Value &fn, std::vector<Value> positional,
                              std::vector<std::pair<std::string, Value>> keywords,
                              const SourceLoc &loc) {
  CallArgs a;
  a.loc = loc;
  for (auto &v : positional) {
    a.positional.push_back(std::move(v));
    a.positionalLocs.push_back(loc);
  }
  for (auto &[k, v] : keywords) {
    a.keywords.emplace_back(k, std::move(v));
    a.keywordLocs.push_back(loc);
  }
  return call(fn, a);
}

const Value &EvaluatorImpl::builtin(const std::string &name) {
  const Value *v = builtins->lookup(name);
  if (!v)
    throw LangError{Status(Code::kInternal, "no builtin named '" + name + "'")};
  return *v;
}

Value EvaluatorImpl::call(const Value &callee, CallArgs &args) {
  if (callee.is(Value::kBuiltin))
    return callee.asBuiltin()->fn(*this, args);
  if (callee.is(Value::kFunction)) {
    if (args.block)
      throwError(Code::kTypeError, "a block can only follow expect_error(...)", args.loc);
    return callFunction(*callee.asFunction(), args);
  }
  throwError(Code::kTypeError, "a " + callee.typeName() + " is not callable", args.loc);
}

bool EvaluatorImpl::truthy(const Value &v, const SourceLoc &loc) {
  switch (v.kind()) {
  case Value::kNone: return false;
  case Value::kBool: return v.asBool();
  case Value::kInt: return v.asInt() != 0;
  case Value::kFloat: return v.asFloat() != 0;
  case Value::kString: return !v.asString().empty();
  case Value::kList:
  case Value::kTuple: return !v.asList()->empty();
  case Value::kDict: return !v.asDict()->items.empty();
  case Value::kHostTensor: {
    const auto &t = v.asHostTensor();
    if (t.numElements() != 1 || !ir::isPod(t.dtype()))
      throwError(Code::kValueError,
                 "the truth value of a tensor with " + std::to_string(t.numElements()) +
                     " elements is ambiguous",
                 loc);
    return t.elementAsDouble(0) != 0;
  }
  case Value::kTensor:
  case Value::kOp:
    throwError(Code::kTypeError,
               "a symbolic tensor has no truth value while the graph is built; "
               "run it in a session first",
               loc);
  case Value::kObject: return v.asObject()->truthy();
  default: return true;
  }
}

std::vector<Value> EvaluatorImpl::iterate(const Value &v, const SourceLoc &loc) {
  switch (v.kind()) {
  case Value::kList:
  case Value::kTuple: return *v.asList();
  case Value::kDict: {
    std::vector<Value> keys;
    for (const auto &[k, x] : v.asDict()->items)
      keys.push_back(k);
    return keys;
  }
  case Value::kString: {
    std::vector<Value> out;
    for (char c : v.asString())
      out.push_back(Value::string(std::string(1, c)));
    return out;
  }
  case Value::kHostTensor: {
    const ir::Tensor &t = v.asHostTensor();
    if (t.rank() == 0)
      throwError(Code::kTypeError, "iteration over a 0-d tensor", loc);
    std::vector<Value> out;
    for (int64_t i = 0; i < t.dim(0); ++i) {
      ir::AttrMap attrs;
      out.push_back(Value::hostTensor(eager(
          "gather", {t, ir::Tensor::scalar<int64_t>(i)}, {{"axis", int64_t{0}}}, loc)));
    }
    return out;
  }
  case Value::kTensor:
    throwError(Code::kTypeError,
               "a symbolic tensor is not iterable while the graph is built; use "
               "unstack() or run it first",
               loc);
  default:
    throwError(Code::kTypeError, "a " + v.typeName() + " is not iterable", loc);
  }
}

Value EvaluatorImpl::getAttr(const Value &obj, const std::string &name,
                             const SourceLoc &loc) {
  auto missing = [&]() -> Value {
    throwError(Code::kValueError,
               "a " + obj.typeName() + " has no attribute '" + name + "'", loc);
  };
  switch (obj.kind()) {
  case Value::kObject: {
    auto v = obj.asObject()->getAttr(*this, name);
    if (!v)
      missing();
    return *v;
  }
  case Value::kTensor: {
    const SymTensor &t = obj.asTensor();
    const ir::Node &n = t.graph->graph->node(t.out.node);
    if (name == "name")
      return Value::string(n.name() + ":" + std::to_string(t.out.index));
    if (name == "dtype")
      return Value::dtype(n.outputType(t.out.index));
    if (name == "shape") {
      const ir::Shape &s = n.outputShape(t.out.index);
      if (!s.hasRank())
        return Value::none();
      List dims;
      for (int64_t d : s.dims())
        dims.push_back(d < 0 ? Value::none() : Value::integer(d));
      return Value::list(std::move(dims));
    }
    if (name == "device")
      return Value::string(n.requestedDevice());
    if (name == "op")
      return Value::op(t.graph, t.out.node);
    if (name == "value_index")
      return Value::integer(t.out.index);
    return missing();
  }
  case Value::kOp: {
    const SymOp &o = obj.asOp();
    const ir::Node &n = o.graph->graph->node(o.node);
    if (name == "name")
      return Value::string(n.name());
    if (name == "type")
      return Value::string(n.opName());
    if (name == "device")
      return Value::string(n.requestedDevice());
    if (name == "outputs") {
      List outs;
      for (int i = 0; i < n.numOutputs(); ++i)
        outs.push_back(Value::tensor(o.graph, {o.node, i}));
      return Value::list(std::move(outs));
    }
    if (name == "inputs") {
      List ins;
      for (const auto &in : n.inputs())
        ins.push_back(Value::tensor(o.graph, in));
      return Value::list(std::move(ins));
    }
    if (name == "op")
      return obj;
    return missing();
  }
  case Value::kHostTensor: {
    const ir::Tensor &t = obj.asHostTensor();
    if (name == "dtype")
      return Value::dtype(t.dtype());
    if (name == "shape") {
      List dims;
      for (int64_t d : t.dims())
        dims.push_back(Value::integer(d));
      return Value::list(std::move(dims));
    }
    if (name == "size")
      return Value::integer(t.numElements());
    if (name == "ndim")
      return Value::integer(t.rank());
    return missing();
  }
  case Value::kList:
  case Value::kDict:
  case Value::kString: {
    Value m = *builtins->lookup("__method__");
    CallArgs a;
    a.positional = {obj, Value::string(name)};
    a.loc = loc;
    return call(m, a);
  }
  default: return missing();
  }
}

} // namespace sluice::frontend
