// frontend/eval/builtins_test.cc: expect, expect_eq, expect_near,
// expect_error, expect_shape and expect_dtype for `test` blocks.
#include <cmath>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

[[noreturn]] void failTest(std::string message, const SourceLoc &loc) {
  throw LangError{Status(Code::kUnknown, std::move(message), loc), true};
}

void requireHost(EvaluatorImpl &ev, const Value &v, const std::string &fn, const SourceLoc &loc) {
  if (v.isSymbolic() || v.objectAs<VariableObject>())
    throwError(Code::kTypeError,
               fn + "() compares host values; run " + ev.repr(v, false) + " in a session first",
               loc);
}

/// Compares with tensors element-wise (a literal takes the tensor's dtype).
bool hostEqual(EvaluatorImpl &ev, const Value &a, const Value &b, const SourceLoc &loc) {
  if (a.is(Value::kHostTensor) || b.is(Value::kHostTensor)) {
    const Value &t = a.is(Value::kHostTensor) ? a : b;
    const Value &o = a.is(Value::kHostTensor) ? b : a;
    try {
      ir::Tensor x = t.asHostTensor();
      ir::Tensor y = ev.hostToTensor(o, x.dtype(), loc);
      return x.equals(y);
    } catch (LangError &) {
      return false;
    }
  }
  if (a.isSequence() && b.isSequence()) {
    const List &x = *a.asList(), &y = *b.asList();
    if (x.size() != y.size())
      return false;
    for (size_t i = 0; i < x.size(); ++i)
      if (!hostEqual(ev, x[i], y[i], loc))
        return false;
    return true;
  }
  if (a.is(Value::kDict) && b.is(Value::kDict)) {
    if (a.asDict()->items.size() != b.asDict()->items.size())
      return false;
    for (const auto &[k, v] : a.asDict()->items) {
      const Value *w = b.asDict()->find(k);
      if (!w || !hostEqual(ev, v, *w, loc))
        return false;
    }
    return true;
  }
  return a.equals(b);
}

std::vector<double> numbersOf(EvaluatorImpl &ev, const Value &v, std::optional<ir::DType> dt,
                              ir::Dims &dims, const SourceLoc &loc) {
  ir::Tensor t = ev.hostToTensor(v, v.is(Value::kHostTensor) ? std::nullopt
                                                             : std::optional(ir::DType::kF64),
                                 loc);
  (void)dt;
  dims = t.dims();
  std::vector<double> out(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    out[i] = t.elementAsDouble(i);
  return out;
}

} // namespace

void installTestBuiltins(EvaluatorImpl &evaluator, Env &env) {
  env.set("expect", Value::builtin("expect", [](EvaluatorImpl &ev, CallArgs &a) {
            const Value &c = requireArg(a, 0, "cond", "expect");
            requireHost(ev, c, "expect", a.loc);
            if (!ev.truthy(c, a.loc)) {
              Value msg = argOr(a, 1, "message", Value::none());
              failTest("expectation failed" + (msg.isNone() ? "" : ": " + ev.repr(msg, false)), a.loc);
            }
            return Value::none();
          }));
  env.set("expect_eq", Value::builtin("expect_eq", [](EvaluatorImpl &ev, CallArgs &a) {
            const Value &x = requireArg(a, 0, "actual", "expect_eq");
            const Value &y = requireArg(a, 1, "expected", "expect_eq");
            requireHost(ev, x, "expect_eq", a.loc);
            requireHost(ev, y, "expect_eq", a.loc);
            if (!hostEqual(ev, x, y, a.loc))
              failTest("expect_eq failed: got " + ev.repr(x, true) + ", expected " + ev.repr(y, true),
                       a.loc);
            return Value::none();
          }));
  env.set("expect_near", Value::builtin("expect_near", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "expect_near", {"tol"});
            const Value &x = requireArg(a, 0, "actual", "expect_near");
            const Value &y = requireArg(a, 1, "expected", "expect_near");
            requireHost(ev, x, "expect_near", a.loc);
            requireHost(ev, y, "expect_near", a.loc);
            double tol = toNumber(argOr(a, 2, "tol", Value::real(1e-6)), "tol", a.loc);
            ir::Dims dx, dy;
            auto vx = numbersOf(ev, x, std::nullopt, dx, a.loc);
            auto vy = numbersOf(ev, y, std::nullopt, dy, a.loc);
            // A single expected number is compared with every element.
            bool scalar = vy.size() == 1 && dy.empty();
            bool ok = scalar || (vx.size() == vy.size() && dx == dy);
            for (size_t i = 0; ok && i < vx.size(); ++i) {
              double want = scalar ? vy[0] : vy[i];
              ok = std::fabs(vx[i] - want) <= tol || (std::isnan(vx[i]) && std::isnan(want));
            }
            if (!ok)
              failTest("expect_near failed: got " + ev.repr(x, true) + ", expected " +
                           ev.repr(y, true) + " within " + std::to_string(tol),
                       a.loc);
            return Value::none();
          }));
  env.set("expect_error", Value::builtin("expect_error", [](EvaluatorImpl &ev, CallArgs &a) {
            const Value &kind = requireArg(a, 0, "kind", "expect_error");
            if (!kind.is(Value::kErrorKind))
              throwError(Code::kTypeError, "expect_error() needs an error kind such as out_of_range", a.loc);
            std::vector<std::string> needles;
            Value text = argOr(a, 1, "message", Value::none());
            if (text.is(Value::kString))
              needles.push_back(text.asString());
            else if (text.isSequence())
              for (const Value &x : *text.asList())
                needles.push_back(toStr(x, "expected message", a.loc));
            const Value *block = argAt(a, 999, "__block__");
            if (!block)
              throwError(Code::kTypeError, "expect_error(...) needs a block: expect_error(kind, \"text\") { ... }", a.loc);
            try {
              CallArgs none;
              none.loc = a.loc;
              ev.call(*block, none);
            } catch (LangError &e) {
              if (e.testFailure)
                throw;
              if (e.status.code() != kind.asErrorKind())
                failTest("expected a " + std::string(codeName(kind.asErrorKind())) +
                             " error, got " + std::string(codeName(e.status.code())) + ": " +
                             e.status.message(),
                         a.loc);
              for (const auto &n : needles)
                if (e.status.message().find(n) == std::string::npos)
                  failTest("expected the " + std::string(codeName(kind.asErrorKind())) +
                               " error to contain \"" + n + "\", got: " + e.status.message(),
                           a.loc);
              return Value::none();
            }
            failTest("expected a " + std::string(codeName(kind.asErrorKind())) +
                         " error, but the block succeeded",
                     a.loc);
          }));
  env.set("expect_shape", Value::builtin("expect_shape", [](EvaluatorImpl &ev, CallArgs &a) {
            const Value &x = requireArg(a, 0, "x", "expect_shape");
            const Value &s = requireArg(a, 1, "shape", "expect_shape");
            ir::Shape want = toShape(s, "shape", a.loc);
            ir::Shape got;
            if (x.is(Value::kHostTensor)) {
              got = ir::Shape(x.asHostTensor().dims());
            } else if (x.is(Value::kTensor) || x.objectAs<VariableObject>()) {
              ir::Output o = x.is(Value::kTensor) ? x.asTensor().out
                                                  : x.objectAs<VariableObject>()->info.readValue;
              GraphContext *g = x.is(Value::kTensor) ? x.asTensor().graph
                                                     : x.objectAs<VariableObject>()->graph;
              got = g->graph->node(o.node).outputShape(o.index);
            } else {
              got = ir::Shape(ev.hostToTensor(x, std::nullopt, a.loc).dims());
            }
            if (got != want)
              failTest("expect_shape failed: got " + got.str() + ", expected " + want.str(), a.loc);
            return Value::none();
          }));
  env.set("expect_dtype", Value::builtin("expect_dtype", [](EvaluatorImpl &ev, CallArgs &a) {
            const Value &x = requireArg(a, 0, "x", "expect_dtype");
            ir::DType want = toDType(requireArg(a, 1, "dtype", "expect_dtype"), "dtype", a.loc);
            auto got = ev.symbolicDType(x);
            if (!got)
              got = ev.hostToTensor(x, std::nullopt, a.loc).dtype();
            if (*got != want)
              failTest("expect_dtype failed: got " + std::string(ir::dtypeName(*got)) +
                           ", expected " + std::string(ir::dtypeName(want)),
                       a.loc);
            return Value::none();
          }));
  (void)evaluator;
}

} // namespace sluice::frontend
