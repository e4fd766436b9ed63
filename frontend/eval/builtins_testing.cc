// frontend/eval/builtins_testing.cc: expect, expect_eq, expect_near,
// expect_error, expect_shape, expect_dtype and expect_golden for `test`
// blocks.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <optional>

#include "frontend/eval/golden_file.h"
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "frontend/eval/tensor_diff.h"

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

/// Numbers (and bools) as f64, so expect_near compares values, not dtypes.
ir::Tensor asF64(const ir::Tensor &t) {
  if (t.dtype() == ir::DType::kF64 ||
      !(ir::isFloating(t.dtype()) || ir::isInteger(t.dtype()) || t.dtype() == ir::DType::kBool))
    return t;
  ir::Tensor out = ir::Tensor::uninitialized(ir::DType::kF64, t.dims());
  for (int64_t i = 0; i < t.numElements(); ++i)
    out.data<double>()[i] = t.elementAsDouble(i);
  return out;
}

std::string indented(const std::string &lines) {
  std::string out = "  ";
  for (char c : lines) {
    out += c;
    if (c == '\n')
      out += "  ";
  }
  return out;
}

/// Why `a` (actual) and `b` (expected) differ, nullopt when they are
/// equal. Tensors compare element-wise, a literal taking the tensor's dtype
/// (or, with `tol`, both as f64, where one expected number is compared
/// with every element); lists and dicts compare item by item and say where.
std::optional<std::string> difference(EvaluatorImpl &ev, const Value &a, const Value &b,
                                      std::optional<double> tol, const SourceLoc &loc) {
  const bool ta = a.is(Value::kHostTensor), tb = b.is(Value::kHostTensor);
  if (ta || tb || (tol && !a.isSequence() && !b.isSequence() && !a.is(Value::kDict))) {
    ir::Tensor x, y;
    try {
      if (tol) {
        x = ev.hostToTensor(a, ta ? std::nullopt : std::optional(ir::DType::kF64), loc);
        y = ev.hostToTensor(b, tb ? std::nullopt : std::optional(ir::DType::kF64), loc);
        x = asF64(x);
        y = asF64(y);
        if (y.numElements() == 1 && y.rank() == 0 && x.dtype() == y.dtype()) {
          ir::Tensor wide(x.dtype(), x.dims());
          for (int64_t i = 0; i < wide.numElements(); ++i)
            wide.data<double>()[i] = y.data<double>()[0];
          y = wide;
        }
      } else {
        x = ta ? a.asHostTensor() : ev.hostToTensor(a, b.asHostTensor().dtype(), loc);
        y = tb ? b.asHostTensor() : ev.hostToTensor(b, x.dtype(), loc);
      }
    } catch (LangError &) {
      return "  got " + ev.repr(a, true) + ", expected " + ev.repr(b, true);
    }
    return describeTensorDifference(x, y, tol);
  }
  if (a.isSequence() && b.isSequence()) {
    const List &x = *a.asList(), &y = *b.asList();
    if (x.size() != y.size())
      return "  length: got " + std::to_string(x.size()) + ", expected " +
             std::to_string(y.size());
    for (size_t i = 0; i < x.size(); ++i)
      if (auto d = difference(ev, x[i], y[i], tol, loc))
        return "  at item " + std::to_string(i) + ":\n" + indented(*d);
    return std::nullopt;
  }
  if (a.is(Value::kDict) && b.is(Value::kDict)) {
    for (const auto &[k, v] : b.asDict()->items)
      if (!a.asDict()->find(k))
        return "  key " + ev.repr(k, true) + " is missing";
    for (const auto &[k, v] : a.asDict()->items) {
      const Value *w = b.asDict()->find(k);
      if (!w)
        return "  key " + ev.repr(k, true) + " is not expected";
      if (auto d = difference(ev, v, *w, tol, loc))
        return "  at key " + ev.repr(k, true) + ":\n" + indented(*d);
    }
    return std::nullopt;
  }
  if (a.equals(b))
    return std::nullopt;
  return "  got " + ev.repr(a, true) + ", expected " + ev.repr(b, true);
}

/// The first line of a failed comparison shows both values when they are
/// short enough to read; the lines after it say where they differ.
[[noreturn]] void failComparison(EvaluatorImpl &ev, const std::string &what, const Value &a,
                                 const Value &b, const std::string &why, const SourceLoc &loc) {
  constexpr size_t kShortRepr = 100;
  std::string ra = ev.repr(a, true), rb = ev.repr(b, true);
  std::string head = what + " failed";
  if (ra.size() <= kShortRepr && rb.size() <= kShortRepr) {
    head += ": got " + ra + ", expected " + rb;
    if (why == "  got " + ra + ", expected " + rb)
      failTest(head, loc); // the details would only repeat it
  }
  failTest(head + "\n" + why, loc);
}

/// The tensors a golden file holds for `v`: a host tensor, or a list of
/// them; nullopt for any other value (kept as its printed text).
std::optional<std::vector<ir::Tensor>> goldenTensors(const Value &v) {
  if (v.is(Value::kHostTensor))
    return std::vector<ir::Tensor>{v.asHostTensor()};
  if (!v.isSequence() || v.asList()->empty())
    return std::nullopt;
  std::vector<ir::Tensor> out;
  for (const Value &x : *v.asList()) {
    if (!x.is(Value::kHostTensor))
      return std::nullopt;
    out.push_back(x.asHostTensor());
  }
  return out;
}

/// A relative golden path is relative to the file that names it, as an
/// import is, so a test file's goldens travel with it.
std::string resolveGoldenPath(const std::string &path, const SourceLoc &loc) {
  std::filesystem::path p(path);
  if (p.is_absolute() || !loc.file)
    return path;
  std::filesystem::path dir = std::filesystem::path(*loc.file).parent_path();
  return (dir / p).lexically_normal().string();
}

/// expect_golden(value, path, tol:): compares with the file, or with
/// --update-golden writes it.
Value expectGolden(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "expect_golden", {"tol"});
  const Value &x = requireArg(a, 0, "actual", "expect_golden");
  const std::string shown = toStr(requireArg(a, 1, "path", "expect_golden"), "path", a.loc);
  requireHost(ev, x, "expect_golden", a.loc);
  Value tolArg = argOr(a, 2, "tol", Value::none());
  std::optional<double> tol;
  if (!tolArg.isNone()) {
    tol = toNumber(tolArg, "tol", a.loc);
    if (!(*tol >= 0))
      throwError(Code::kValueError, "expect_golden(): tol must be a number >= 0", a.loc);
  }
  const std::string path = resolveGoldenPath(shown, a.loc);
  std::optional<std::vector<ir::Tensor>> tensors = goldenTensors(x);
  const std::string text = tensors ? goldenTensorText(*tensors) : ev.repr(x, true) + "\n";

  std::ifstream in(path, std::ios::binary);
  std::optional<std::string> stored;
  if (in) {
    std::ostringstream buf;
    buf << in.rdbuf();
    stored = buf.str();
  }
  if (ev.opts.updateGolden) {
    if (stored == text)
      return Value::none();
    Status w = writeGoldenFile(path, text);
    if (!w.isOk())
      throwError(w.code(), "expect_golden(): " + w.message(), a.loc);
    std::ostream &os = ev.opts.err ? *ev.opts.err : std::cerr;
    os << a.loc.str() << ": note: " << (stored ? "updated " : "wrote ") << shown << "\n";
    return Value::none();
  }
  if (!stored)
    failTest("expect_golden failed: the golden file " + shown +
                 " does not exist (sluice test --update-golden writes it)",
             a.loc);
  std::optional<std::string> why;
  if (tensors && isTensorGolden(*stored)) {
    Expected<std::vector<ir::Tensor>> want = parseGoldenTensors(*stored, shown);
    if (!want)
      failTest("expect_golden failed: " + want.status().message(), a.loc);
    if (want->size() != tensors->size())
      why = "  got " + std::to_string(tensors->size()) + " tensors, the golden file holds " +
            std::to_string(want->size());
    for (size_t i = 0; !why && i < tensors->size(); ++i)
      if (auto d = describeTensorDifference((*tensors)[i], (*want)[i], tol))
        why = tensors->size() == 1 ? *d : "  tensor " + std::to_string(i) + ":\n" + indented(*d);
  } else if (tensors) {
    why = "  got a tensor, but the golden file holds the text of another value";
  } else {
    why = describeTextDifference(text, *stored);
  }
  if (why)
    failTest("expect_golden failed: differs from " + shown +
                 " (sluice test --update-golden rewrites it)\n" + *why,
             a.loc);
  return Value::none();
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
            if (auto why = difference(ev, x, y, std::nullopt, a.loc))
              failComparison(ev, "expect_eq", x, y, *why, a.loc);
            return Value::none();
          }));
  env.set("expect_near", Value::builtin("expect_near", [](EvaluatorImpl &ev, CallArgs &a) {
            checkKeywords(a, "expect_near", {"tol"});
            const Value &x = requireArg(a, 0, "actual", "expect_near");
            const Value &y = requireArg(a, 1, "expected", "expect_near");
            requireHost(ev, x, "expect_near", a.loc);
            requireHost(ev, y, "expect_near", a.loc);
            double tol = toNumber(argOr(a, 2, "tol", Value::real(1e-6)), "tol", a.loc);
            if (!(tol >= 0))
              throwError(Code::kValueError, "expect_near(): tol must be a number >= 0", a.loc);
            if (auto why = difference(ev, x, y, tol, a.loc))
              failComparison(ev, "expect_near", x, y, *why, a.loc);
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
  env.set("expect_golden", Value::builtin("expect_golden", expectGolden));
  (void)evaluator;
}

} // namespace sluice::frontend
