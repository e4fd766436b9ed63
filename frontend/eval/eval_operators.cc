// frontend/eval/eval_operators.cc: operators and subscripts on host and
// symbolic values. Operators on symbolic tensors build TF's ops; on host
// tensors they run the same kernels eagerly.
#include <cmath>
#include <limits>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

bool isSymbolicOperand(const Value &v) {
  return v.is(Value::kTensor) || v.objectAs<VariableObject>() != nullptr;
}

const char *opNameFor(BinaryOp op) {
  switch (op) {
  case BinaryOp::kAdd: return "add";
  case BinaryOp::kSub: return "subtract";
  case BinaryOp::kMul: return "multiply";
  case BinaryOp::kDiv: return "divide";
  case BinaryOp::kFloorDiv: return "floor_div";
  case BinaryOp::kMod: return "mod";
  case BinaryOp::kPow: return "pow";
  case BinaryOp::kMatMul: return "matmul";
  case BinaryOp::kLt: return "less";
  case BinaryOp::kLe: return "less_equal";
  case BinaryOp::kGt: return "greater";
  case BinaryOp::kGe: return "greater_equal";
  default: return nullptr;
  }
}

const char *symbolFor(BinaryOp op) {
  switch (op) {
  case BinaryOp::kAdd: return "+";
  case BinaryOp::kSub: return "-";
  case BinaryOp::kMul: return "*";
  case BinaryOp::kDiv: return "/";
  case BinaryOp::kFloorDiv: return "//";
  case BinaryOp::kMod: return "%";
  case BinaryOp::kPow: return "**";
  case BinaryOp::kMatMul: return "@";
  case BinaryOp::kEq: return "==";
  case BinaryOp::kNe: return "!=";
  case BinaryOp::kLt: return "<";
  case BinaryOp::kLe: return "<=";
  case BinaryOp::kGt: return ">";
  case BinaryOp::kGe: return ">=";
  case BinaryOp::kIn: return "in";
  case BinaryOp::kNotIn: return "not in";
  case BinaryOp::kAnd: return "and";
  case BinaryOp::kOr: return "or";
  }
  return "?";
}

/// Host integers are exact int64: a result that does not fit is an error,
/// never a wrapped or rounded value (docs/language.md, "Numbers").
[[noreturn]] void overflow(const char *op, int64_t x, int64_t y, const SourceLoc &loc) {
  throwError(Code::kOutOfRange,
             "integer overflow: " + std::to_string(x) + " " + op + " " + std::to_string(y) +
                 " does not fit in int64 (use a float, or a tensor of int64 that wraps)",
             loc);
}

int64_t floorDiv(int64_t a, int64_t b, const SourceLoc &loc) {
  if (a == std::numeric_limits<int64_t>::min() && b == -1)
    overflow("//", a, b, loc);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0)))
    --q;
  return q;
}

int64_t floorMod(int64_t a, int64_t b) {
  if (b == -1)
    return 0; // also for the smallest int64, whose a % -1 traps
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  return r;
}

int64_t intPow(int64_t base, int64_t exp, const SourceLoc &loc) {
  int64_t result = 1, b = base, e = exp;
  while (e > 0) {
    if (e & 1)
      if (__builtin_mul_overflow(result, b, &result))
        overflow("**", base, exp, loc);
    e >>= 1;
    if (e > 0 && __builtin_mul_overflow(b, b, &b))
      overflow("**", base, exp, loc);
  }
  return result;
}

/// Host values live in memory: a repetition past these is refused before
/// anything is allocated.
constexpr int64_t kMaxRepeatedStringBytes = int64_t{1} << 30;
constexpr int64_t kMaxRepeatedListItems = int64_t{1} << 26;

int64_t repeatedSize(int64_t each, int64_t times, int64_t limit, const char *what,
                     const SourceLoc &loc) {
  if (times <= 0 || each == 0)
    return 0;
  int64_t total = 0;
  if (__builtin_mul_overflow(each, times, &total) || total > limit)
    throwError(Code::kResourceExhausted,
               std::string(what) + " * " + std::to_string(times) + " would hold " +
                   (total > 0 ? std::to_string(total) : "more than " + std::to_string(limit)) +
                   (std::string(what) == "string" ? " bytes" : " items") + "; the limit is " +
                   std::to_string(limit),
               loc);
  return total;
}

Value compareOrdered(BinaryOp op, int c) {
  switch (op) {
  case BinaryOp::kLt: return Value::boolean(c < 0);
  case BinaryOp::kLe: return Value::boolean(c <= 0);
  case BinaryOp::kGt: return Value::boolean(c > 0);
  case BinaryOp::kGe: return Value::boolean(c >= 0);
  default: return Value::none();
  }
}

} // namespace

/// Python's lexicographic order on lists and tuples of the same kind.
int EvaluatorImpl::compareSequences(const Value &a, const Value &b, const SourceLoc &loc) {
  const List &x = *a.asList(), &y = *b.asList();
  for (size_t i = 0; i < std::min(x.size(), y.size()); ++i) {
    if (x[i].equals(y[i]))
      continue;
    return truthy(binary(BinaryOp::kLt, x[i], y[i], loc), loc) ? -1 : 1;
  }
  return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
}

Value EvaluatorImpl::binary(BinaryOp op, const Value &a, const Value &b,
                            const SourceLoc &loc) {
  auto unsupported = [&]() -> Value {
    throwError(Code::kTypeError,
               std::string("unsupported operand kinds for ") + symbolFor(op) + ": " +
                   a.typeName() + " and " + b.typeName(),
               loc);
  };
  if (op == BinaryOp::kEq || op == BinaryOp::kNe) {
    // As in TF1, == on graph values is identity (so they can key dicts);
    // use equal()/not_equal() for an element-wise op.
    bool eq = a.equals(b);
    if (!eq && (a.is(Value::kHostTensor) || b.is(Value::kHostTensor)) &&
        !a.isSymbolic() && !b.isSymbolic()) {
      try {
        ir::Tensor ta = hostToTensor(a, std::nullopt, loc);
        ir::Tensor tb = hostToTensor(b, ta.dtype(), loc);
        eq = ta.equals(tb);
      } catch (LangError &) {
        eq = false;
      }
    }
    return Value::boolean(op == BinaryOp::kEq ? eq : !eq);
  }
  if (op == BinaryOp::kIn || op == BinaryOp::kNotIn) {
    bool found = false;
    if (b.is(Value::kString)) {
      if (!a.is(Value::kString))
        return unsupported();
      found = b.asString().find(a.asString()) != std::string::npos;
    } else if (b.isSequence()) {
      for (const auto &x : *b.asList())
        if (x.equals(a)) {
          found = true;
          break;
        }
    } else if (b.is(Value::kDict)) {
      found = b.asDict()->find(a) != nullptr;
    } else if (b.is(Value::kHostTensor)) {
      // A fetched string scalar works as a Python str (substring); any
      // other host tensor as numpy's `in` (some element equals a).
      const ir::Tensor &t = b.asHostTensor();
      if (t.dtype() == ir::DType::kString) {
        if (!a.is(Value::kString))
          return unsupported();
        if (t.rank() == 0)
          found = t.strings()[0].find(a.asString()) != std::string::npos;
        else
          for (int64_t i = 0; i < t.numElements() && !found; ++i)
            found = t.strings()[i] == a.asString();
      } else if (ir::isPod(t.dtype()) && a.isNumber()) {
        for (int64_t i = 0; i < t.numElements() && !found; ++i)
          found = t.elementAsDouble(i) == a.asNumber();
      } else {
        return unsupported();
      }
    } else {
      return unsupported();
    }
    return Value::boolean(op == BinaryOp::kIn ? found : !found);
  }
  if (isSymbolicOperand(a) || isSymbolicOperand(b)) {
    const char *name = opNameFor(op);
    if (!name)
      return unsupported();
    // A host operand takes the symbolic operand's dtype (context typing).
    std::optional<ir::DType> ta = symbolicDType(a), tb = symbolicDType(b);
    std::optional<ir::DType> ctx = ta ? ta : tb;
    ir::Output x = toTensor(a, isSymbolicOperand(a) ? std::nullopt : ctx, loc);
    ir::Output y = toTensor(b, isSymbolicOperand(b) ? std::nullopt : ctx, loc);
    return makeOp(name, {x, y}, {}, loc);
  }
  if (a.is(Value::kHostTensor) || b.is(Value::kHostTensor)) {
    const char *name = opNameFor(op);
    if (!name)
      return unsupported();
    std::optional<ir::DType> ctx = a.is(Value::kHostTensor) ? a.asHostTensor().dtype()
                                                            : b.asHostTensor().dtype();
    ir::Tensor x = hostToTensor(a, ctx, loc);
    ir::Tensor y = hostToTensor(b, ctx, loc);
    return Value::hostTensor(eager(name, {x, y}, {}, loc));
  }
  if (a.is(Value::kString) || b.is(Value::kString)) {
    if (a.is(Value::kString) && b.is(Value::kString)) {
      if (op == BinaryOp::kAdd)
        return Value::string(a.asString() + b.asString());
      return compareOrdered(op, a.asString().compare(b.asString())).isNone()
                 ? unsupported()
                 : compareOrdered(op, a.asString().compare(b.asString()));
    }
    if (op == BinaryOp::kMul && (a.is(Value::kInt) || b.is(Value::kInt))) {
      const std::string &s = a.is(Value::kString) ? a.asString() : b.asString();
      int64_t n = a.is(Value::kInt) ? a.asInt() : b.asInt();
      std::string out;
      out.reserve(static_cast<size_t>(repeatedSize(static_cast<int64_t>(s.size()), n,
                                                   kMaxRepeatedStringBytes, "string", loc)));
      for (int64_t i = 0; i < n; ++i)
        out += s;
      return Value::string(std::move(out));
    }
    return unsupported();
  }
  if (a.isSequence() || b.isSequence()) {
    if (a.kind() == b.kind() && (op == BinaryOp::kLt || op == BinaryOp::kLe ||
                                 op == BinaryOp::kGt || op == BinaryOp::kGe))
      return compareOrdered(op, compareSequences(a, b, loc));
    if (op == BinaryOp::kAdd && a.kind() == b.kind()) {
      List out = *a.asList();
      out.insert(out.end(), b.asList()->begin(), b.asList()->end());
      return a.is(Value::kList) ? Value::list(std::move(out)) : Value::tuple(std::move(out));
    }
    if (op == BinaryOp::kMul && (a.is(Value::kInt) || b.is(Value::kInt))) {
      const Value &seq = a.isSequence() ? a : b;
      int64_t n = a.is(Value::kInt) ? a.asInt() : b.asInt();
      List out;
      out.reserve(static_cast<size_t>(repeatedSize(static_cast<int64_t>(seq.asList()->size()), n,
                                                   kMaxRepeatedListItems, seq.typeName().c_str(),
                                                   loc)));
      for (int64_t i = 0; i < n; ++i)
        out.insert(out.end(), seq.asList()->begin(), seq.asList()->end());
      return seq.is(Value::kList) ? Value::list(std::move(out)) : Value::tuple(std::move(out));
    }
    return unsupported();
  }
  if (!a.isNumber() || !b.isNumber())
    return unsupported();
  bool ints = !a.is(Value::kFloat) && !b.is(Value::kFloat);
  if (ints) {
    // Exact: bools are 0 and 1, ints never pass through double.
    auto exact = [](const Value &v) { return v.is(Value::kInt) ? v.asInt() : int64_t{v.asBool()}; };
    int64_t x = exact(a), y = exact(b), r = 0;
    switch (op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(x, y, &r))
        overflow("+", x, y, loc);
      return Value::integer(r);
    case BinaryOp::kSub:
      if (__builtin_sub_overflow(x, y, &r))
        overflow("-", x, y, loc);
      return Value::integer(r);
    case BinaryOp::kMul:
      if (__builtin_mul_overflow(x, y, &r))
        overflow("*", x, y, loc);
      return Value::integer(r);
    case BinaryOp::kDiv:
      if (y == 0)
        throwError(Code::kInvalidArgument, "division by zero", loc);
      return Value::real(static_cast<double>(x) / static_cast<double>(y));
    case BinaryOp::kFloorDiv:
      if (y == 0)
        throwError(Code::kInvalidArgument, "integer division by zero", loc);
      return Value::integer(floorDiv(x, y, loc));
    case BinaryOp::kMod:
      if (y == 0)
        throwError(Code::kInvalidArgument, "integer modulo by zero", loc);
      return Value::integer(floorMod(x, y));
    case BinaryOp::kPow:
      if (y < 0)
        return Value::real(std::pow(static_cast<double>(x), static_cast<double>(y)));
      return Value::integer(intPow(x, y, loc));
    case BinaryOp::kLt:
    case BinaryOp::kLe:
    case BinaryOp::kGt:
    case BinaryOp::kGe: return compareOrdered(op, x < y ? -1 : x > y ? 1 : 0);
    default: return unsupported();
    }
  }
  double x = a.asNumber(), y = b.asNumber();
  switch (op) {
  case BinaryOp::kAdd: return Value::real(x + y);
  case BinaryOp::kSub: return Value::real(x - y);
  case BinaryOp::kMul: return Value::real(x * y);
  case BinaryOp::kDiv:
    if (y == 0)
      throwError(Code::kInvalidArgument, "float division by zero", loc);
    return Value::real(x / y);
  case BinaryOp::kFloorDiv:
    if (y == 0)
      throwError(Code::kInvalidArgument, "float division by zero", loc);
    return Value::real(std::floor(x / y));
  case BinaryOp::kMod:
    if (y == 0)
      throwError(Code::kInvalidArgument, "float modulo by zero", loc);
    return Value::real(x - std::floor(x / y) * y);
  case BinaryOp::kPow: return Value::real(std::pow(x, y));
  case BinaryOp::kLt:
  case BinaryOp::kLe:
  case BinaryOp::kGt:
  case BinaryOp::kGe: return compareOrdered(op, x < y ? -1 : x > y ? 1 : 0);
  default: return unsupported();
  }
}

Value EvaluatorImpl::unary(UnaryOp op, const Value &a, const SourceLoc &loc) {
  if (op == UnaryOp::kNot) {
    if (isSymbolicOperand(a))
      return makeOp("logical_not", {toTensor(a, std::nullopt, loc)}, {}, loc);
    return Value::boolean(!truthy(a, loc));
  }
  if (isSymbolicOperand(a)) {
    if (op == UnaryOp::kPos)
      return a;
    return makeOp("negative", {toTensor(a, std::nullopt, loc)}, {}, loc);
  }
  if (a.is(Value::kHostTensor))
    return op == UnaryOp::kPos ? a
                               : Value::hostTensor(eager("negative", {a.asHostTensor()}, {}, loc));
  if (a.is(Value::kInt)) {
    if (op == UnaryOp::kNeg && a.asInt() == std::numeric_limits<int64_t>::min())
      throwError(Code::kOutOfRange,
                 "integer overflow: -(" + std::to_string(a.asInt()) + ") does not fit in int64",
                 loc);
    return Value::integer(op == UnaryOp::kNeg ? -a.asInt() : a.asInt());
  }
  if (a.is(Value::kFloat))
    return Value::real(op == UnaryOp::kNeg ? -a.asFloat() : a.asFloat());
  if (a.is(Value::kBool))
    return Value::integer(op == UnaryOp::kNeg ? -int(a.asBool()) : int(a.asBool()));
  throwError(Code::kTypeError, "bad operand kind for unary minus: " + a.typeName(), loc);
}

namespace {

/// Python's slice clamping for host sequences.
std::vector<int64_t> sliceIndices(int64_t n, std::optional<int64_t> start,
                                  std::optional<int64_t> stop, int64_t step) {
  std::vector<int64_t> out;
  auto clamp = [&](std::optional<int64_t> v, int64_t dflt, bool isStart) {
    if (!v)
      return dflt;
    int64_t x = *v < 0 ? *v + n : *v;
    if (step > 0)
      return std::clamp<int64_t>(x, 0, n);
    return std::clamp<int64_t>(x, -1, n - 1);
    (void)isStart;
  };
  int64_t b = clamp(start, step > 0 ? 0 : n - 1, true);
  int64_t e = clamp(stop, step > 0 ? n : -1, false);
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step)
    out.push_back(i);
  return out;
}

} // namespace

Value EvaluatorImpl::index(const Value &obj, const IndexExpr &e,
                           const std::shared_ptr<Env> &env) {
  auto evalOpt = [&](const ExprPtr &x) -> std::optional<Value> {
    if (!x)
      return std::nullopt;
    Value v = eval(*x, env);
    if (v.isNone())
      return std::nullopt;
    return v;
  };
  if (obj.is(Value::kDict)) {
    if (e.items.size() != 1 || e.items[0].isSlice)
      throwError(Code::kTypeError, "a dict takes one key", e.loc);
    Value key = eval(*e.items[0].index, env);
    const Value *v = obj.asDict()->find(key);
    if (!v)
      throwError(Code::kNotFound, "key " + repr(key, true) + " is not in the dict", e.loc);
    return *v;
  }
  if (obj.isSequence() || obj.is(Value::kString)) {
    if (e.items.size() != 1)
      throwError(Code::kTypeError, "a " + obj.typeName() + " takes one index", e.loc);
    const IndexItem &it = e.items[0];
    int64_t n = obj.is(Value::kString) ? static_cast<int64_t>(obj.asString().size())
                                       : static_cast<int64_t>(obj.asList()->size());
    if (!it.isSlice) {
      int64_t i = toInt(eval(*it.index, env), "index", it.loc);
      if (i < 0)
        i += n;
      if (i < 0 || i >= n)
        throwError(Code::kOutOfRange,
                   obj.typeName() + " index out of range (size " + std::to_string(n) + ")",
                   it.loc);
      if (obj.is(Value::kString))
        return Value::string(std::string(1, obj.asString()[i]));
      return (*obj.asList())[i];
    }
    auto s = evalOpt(it.start), t = evalOpt(it.stop), st = evalOpt(it.step);
    int64_t step = st ? toInt(*st, "slice step", it.loc) : 1;
    if (step == 0)
      throwError(Code::kValueError, "slice step cannot be zero", it.loc);
    auto idx = sliceIndices(n, s ? std::optional(toInt(*s, "slice start", it.loc)) : std::nullopt,
                            t ? std::optional(toInt(*t, "slice stop", it.loc)) : std::nullopt,
                            step);
    if (obj.is(Value::kString)) {
      std::string out;
      for (int64_t i : idx)
        out += obj.asString()[i];
      return Value::string(out);
    }
    List out;
    for (int64_t i : idx)
      out.push_back((*obj.asList())[i]);
    return obj.is(Value::kList) ? Value::list(std::move(out)) : Value::tuple(std::move(out));
  }
  bool symbolic = isSymbolicOperand(obj);
  if (!symbolic && !obj.is(Value::kHostTensor))
    throwError(Code::kTypeError, "a " + obj.typeName() + " cannot be indexed", e.loc);
  // Lower to strided_slice as TF's Tensor.__getitem__ does.
  std::vector<int32_t> begin, end, strides;
  int64_t beginMask = 0, endMask = 0, shrinkMask = 0;
  for (size_t k = 0; k < e.items.size(); ++k) {
    const IndexItem &it = e.items[k];
    if (!it.isSlice) {
      int64_t i = toInt(eval(*it.index, env), "tensor index", it.loc);
      begin.push_back(static_cast<int32_t>(i));
      end.push_back(static_cast<int32_t>(i + 1));
      strides.push_back(1);
      shrinkMask |= int64_t{1} << k;
      continue;
    }
    auto s = evalOpt(it.start), t = evalOpt(it.stop), st = evalOpt(it.step);
    begin.push_back(s ? static_cast<int32_t>(toInt(*s, "slice start", it.loc)) : 0);
    end.push_back(t ? static_cast<int32_t>(toInt(*t, "slice stop", it.loc)) : 0);
    int64_t step = st ? toInt(*st, "slice step", it.loc) : 1;
    if (step == 0)
      throwError(Code::kValueError, "slice step cannot be zero", it.loc);
    strides.push_back(static_cast<int32_t>(step));
    if (!s)
      beginMask |= int64_t{1} << k;
    if (!t)
      endMask |= int64_t{1} << k;
  }
  ir::AttrMap attrs{{"begin_mask", beginMask},
                    {"end_mask", endMask},
                    {"shrink_axis_mask", shrinkMask}};
  ir::Tensor tb = ir::Tensor::fromVector(begin), te = ir::Tensor::fromVector(end),
             ts_ = ir::Tensor::fromVector(strides);
  if (!symbolic)
    return Value::hostTensor(
        eager("strided_slice", {obj.asHostTensor(), tb, te, ts_}, attrs, e.loc));
  ir::Output in = toTensor(obj, std::nullopt, e.loc);
  return makeOp("strided_slice",
                {in, toTensor(Value::hostTensor(tb), std::nullopt, e.loc),
                 toTensor(Value::hostTensor(te), std::nullopt, e.loc),
                 toTensor(Value::hostTensor(ts_), std::nullopt, e.loc)},
                attrs, e.loc);
}

} // namespace sluice::frontend
