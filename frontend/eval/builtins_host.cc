// frontend/eval/builtins_host.cc: host builtins (print, len, range, ...),
// methods of lists, dicts and strings, and the names of dtypes and errors.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <random>
#include <thread>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "ir/op_registry.h"

namespace sluice::frontend {

namespace {

using BuiltinFn = std::function<Value(EvaluatorImpl &, CallArgs &)>;

void def(Env &env, const std::string &name, BuiltinFn fn) {
  env.set(name, Value::builtin(name, std::move(fn)));
}

bool anyTensorArg(const CallArgs &a) {
  for (const auto &v : a.positional)
    if (v.isSymbolic() || v.is(Value::kHostTensor) || v.objectAs<VariableObject>())
      return true;
  for (const auto &[k, v] : a.keywords)
    if (k != "name" && (v.isSymbolic() || v.is(Value::kHostTensor) || v.objectAs<VariableObject>()))
      return true;
  return false;
}

/// Python builtins that share a name with a TF op (range, abs, round):
/// host arguments take the host meaning, tensors build the op.
void defShared(Env &env, const std::string &name, const std::string &op, BuiltinFn host) {
  def(env, name, [name, op, host](EvaluatorImpl &ev, CallArgs &a) -> Value {
    bool opCall = anyTensorArg(a);
    for (const auto &[k, v] : a.keywords)
      opCall = opCall || k == "dtype" || k == "name";
    if (opCall) {
      // TF's range(limit) with one number: start is 0.
      if (op == "range" && a.positional.size() == 1 && !argAt(a, 99, "limit")) {
        a.positional.insert(a.positional.begin(), Value::integer(0));
        a.positionalLocs.insert(a.positionalLocs.begin(), a.loc);
      }
      if (op == "range" && !argAt(a, 2, "delta")) {
        a.keywords.emplace_back("delta", Value::integer(1));
        a.keywordLocs.push_back(a.loc);
      }
      return ev.callOp(*ir::opRegistry().find(op), a);
    }
    return host(ev, a);
  });
}

// Element i of a host tensor as a host scalar.
Value hostElement(const ir::Tensor &t, int64_t i) {
  if (t.dtype() == ir::DType::kString)
    return Value::string(t.strings()[i]);
  if (t.dtype() == ir::DType::kBool)
    return Value::boolean(t.data<bool>()[i]);
  if (ir::isFloating(t.dtype()))
    return Value::real(t.elementAsDouble(i));
  return Value::integer(t.elementAsInt(i));
}

// A 0-d host tensor orders as its value, a 1-d one as a list (what run()
// returns compares like the numbers it holds).
Value orderable(const Value &v) {
  if (!v.is(Value::kHostTensor))
    return v;
  const ir::Tensor &t = v.asHostTensor();
  if (t.dtype() == ir::DType::kResource || t.dtype() == ir::DType::kVariant || t.rank() > 1)
    return v;
  if (t.rank() == 0)
    return hostElement(t, 0);
  List items;
  for (int64_t i = 0; i < t.numElements(); ++i)
    items.push_back(hostElement(t, i));
  return Value::list(std::move(items));
}

int compareValues(EvaluatorImpl &ev, const Value &a0, const Value &b0, const SourceLoc &loc) {
  Value a = orderable(a0), b = orderable(b0);
  if (a.isNumber() && b.isNumber())
    return a.asNumber() < b.asNumber() ? -1 : a.asNumber() > b.asNumber() ? 1 : 0;
  if (a.is(Value::kString) && b.is(Value::kString))
    return a.asString().compare(b.asString());
  if (a.isSequence() && b.isSequence()) {
    const List &x = *a.asList(), &y = *b.asList();
    for (size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      if (int c = compareValues(ev, x[i], y[i], loc))
        return c;
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  throwError(Code::kTypeError, "cannot order a " + a.typeName() + " and a " + b.typeName(), loc);
}

/// Host scalars of a 1-d host tensor (for sorted(), list(), sum()).
std::vector<Value> elementsOf(EvaluatorImpl &ev, const Value &v, const SourceLoc &loc) {
  if (v.is(Value::kHostTensor)) {
    const ir::Tensor &t = v.asHostTensor();
    std::vector<Value> out;
    if (t.rank() == 1) {
      for (int64_t i = 0; i < t.numElements(); ++i)
        out.push_back(hostElement(t, i));
      return out;
    }
  }
  return ev.iterate(v, loc);
}

Value method(EvaluatorImpl &ev, const Value &obj, const std::string &name, const SourceLoc &loc);

} // namespace

void installHostBuiltins(EvaluatorImpl &evaluator, Env &env) {
  for (int i = 1; i <= static_cast<int>(ir::DType::kString); ++i) {
    auto t = static_cast<ir::DType>(i);
    env.set(std::string(ir::dtypeName(t)), Value::dtype(t));
  }
  for (int c = 1; c <= static_cast<int>(Code::kRuntimeError); ++c)
    env.set(std::string(codeName(static_cast<Code>(c))), Value::errorKind(static_cast<Code>(c)));

  def(env, "print", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "print", {"sep"});
    if (ev.opts.json) {
      for (const Value &v : a.positional)
        ev.print(ev.toJson(v));
      return Value::none();
    }
    Value sepV = argOr(a, 999, "sep", Value::string(" "));
    std::string sep = toStr(sepV, "sep", a.loc), line;
    for (size_t i = 0; i < a.positional.size(); ++i)
      line += (i ? sep : "") + ev.repr(a.positional[i], false);
    ev.print(line);
    return Value::none();
  });
  def(env, "len", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "x", "len");
    if (v.isSequence())
      return Value::integer(static_cast<int64_t>(v.asList()->size()));
    if (v.is(Value::kString))
      return Value::integer(static_cast<int64_t>(v.asString().size()));
    if (v.is(Value::kDict))
      return Value::integer(static_cast<int64_t>(v.asDict()->items.size()));
    if (v.is(Value::kHostTensor) && v.asHostTensor().rank() > 0)
      return Value::integer(v.asHostTensor().dim(0));
    throwError(Code::kTypeError, "a " + v.typeName() + " has no len()", a.loc);
  });
  defShared(env, "range", "range", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "range", {"start", "limit", "delta"});
    std::vector<int64_t> xs;
    for (const Value &v : a.positional)
      xs.push_back(toInt(v, "range argument", a.loc));
    if (xs.empty() || xs.size() > 3)
      throwError(Code::kTypeError, "range() takes 1 to 3 arguments", a.loc);
    int64_t start = xs.size() > 1 ? xs[0] : 0, stop = xs.size() > 1 ? xs[1] : xs[0];
    int64_t step = xs.size() > 2 ? xs[2] : 1;
    if (step == 0)
      throwError(Code::kValueError, "range() step must not be zero", a.loc);
    List out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) {
      if (out.size() >= 100'000'000)
        throwError(Code::kResourceExhausted, "range() is too long", a.loc);
      out.push_back(Value::integer(i));
    }
    return Value::list(std::move(out));
  });
  defShared(env, "abs", "abs", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "x", "abs");
    if (v.is(Value::kInt))
      return Value::integer(v.asInt() < 0 ? -v.asInt() : v.asInt());
    return Value::real(std::fabs(toNumber(v, "abs argument", a.loc)));
  });
  defShared(env, "round", "round", [](EvaluatorImpl &ev, CallArgs &a) {
    double x = toNumber(requireArg(a, 0, "x", "round"), "round argument", a.loc);
    return Value::integer(static_cast<int64_t>(std::nearbyint(x)));
  });
  def(env, "str", [](EvaluatorImpl &ev, CallArgs &a) {
    return Value::string(ev.repr(requireArg(a, 0, "x", "str"), false));
  });
  def(env, "repr", [](EvaluatorImpl &ev, CallArgs &a) {
    return Value::string(ev.repr(requireArg(a, 0, "x", "repr"), true));
  });
  def(env, "int", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "x", "int");
    if (v.is(Value::kString)) {
      try {
        size_t used = 0;
        int64_t x = std::stoll(v.asString(), &used);
        if (used == v.asString().size())
          return Value::integer(x);
      } catch (...) {
      }
      throwError(Code::kValueError, "invalid literal for int(): " + ev.repr(v, true), a.loc);
    }
    return Value::integer(static_cast<int64_t>(toNumber(v, "int argument", a.loc)));
  });
  def(env, "float", [](EvaluatorImpl &ev, CallArgs &a) {
    const Value &v = requireArg(a, 0, "x", "float");
    if (v.is(Value::kString)) {
      try {
        size_t used = 0;
        double x = std::stod(v.asString(), &used);
        if (used == v.asString().size())
          return Value::real(x);
      } catch (...) {
      }
      throwError(Code::kValueError, "could not convert string to float: " + ev.repr(v, true), a.loc);
    }
    return Value::real(toNumber(v, "float argument", a.loc));
  });
  def(env, "bool", [](EvaluatorImpl &ev, CallArgs &a) {
    return Value::boolean(ev.truthy(requireArg(a, 0, "x", "bool"), a.loc));
  });
  def(env, "list", [](EvaluatorImpl &ev, CallArgs &a) {
    if (a.positional.empty())
      return Value::list();
    return Value::list(elementsOf(ev, a.positional[0], a.loc));
  });
  def(env, "tuple", [](EvaluatorImpl &ev, CallArgs &a) {
    if (a.positional.empty())
      return Value::tuple();
    return Value::tuple(elementsOf(ev, a.positional[0], a.loc));
  });
  def(env, "dict", [](EvaluatorImpl &ev, CallArgs &a) {
    auto d = std::make_shared<Dict>();
    if (!a.positional.empty())
      for (const auto &[k, v] : a.positional[0].asDict()->items)
        d->set(k, v);
    for (const auto &[k, v] : a.keywords)
      d->set(Value::string(k), v);
    return Value::dict(d);
  });
  def(env, "sorted", [](EvaluatorImpl &ev, CallArgs &a) {
    checkKeywords(a, "sorted", {"reverse"});
    List items = elementsOf(ev, requireArg(a, 0, "xs", "sorted"), a.loc);
    std::stable_sort(items.begin(), items.end(), [&](const Value &x, const Value &y) {
      return compareValues(ev, x, y, a.loc) < 0;
    });
    if (ev.truthy(argOr(a, 99, "reverse", Value::boolean(false)), a.loc))
      std::reverse(items.begin(), items.end());
    return Value::list(std::move(items));
  });
  auto minmax = [](bool isMax) {
    return [isMax](EvaluatorImpl &ev, CallArgs &a) {
      List items = a.positional.size() == 1 ? elementsOf(ev, a.positional[0], a.loc)
                                            : a.positional;
      if (items.empty())
        throwError(Code::kValueError, std::string(isMax ? "max" : "min") + "() of an empty sequence", a.loc);
      Value best = items[0];
      for (const Value &x : items)
        if ((compareValues(ev, x, best, a.loc) > 0) == isMax && !x.equals(best))
          best = x;
      return best;
    };
  };
  def(env, "max", minmax(true));
  def(env, "min", minmax(false));
  def(env, "sum", [](EvaluatorImpl &ev, CallArgs &a) {
    Value total = Value::integer(0);
    for (const Value &x : elementsOf(ev, requireArg(a, 0, "xs", "sum"), a.loc))
      total = ev.binary(BinaryOp::kAdd, total, x, a.loc);
    return total;
  });
  def(env, "enumerate", [](EvaluatorImpl &ev, CallArgs &a) {
    List out;
    int64_t i = 0;
    for (Value &x : ev.iterate(requireArg(a, 0, "xs", "enumerate"), a.loc))
      out.push_back(Value::tuple({Value::integer(i++), x}));
    return Value::list(std::move(out));
  });
  def(env, "zip", [](EvaluatorImpl &ev, CallArgs &a) {
    std::vector<std::vector<Value>> seqs;
    size_t n = SIZE_MAX;
    for (const Value &v : a.positional) {
      seqs.push_back(ev.iterate(v, a.loc));
      n = std::min(n, seqs.back().size());
    }
    List out;
    for (size_t i = 0; i < (seqs.empty() ? 0 : n); ++i) {
      List t;
      for (auto &s : seqs)
        t.push_back(s[i]);
      out.push_back(Value::tuple(std::move(t)));
    }
    return Value::list(std::move(out));
  });
  def(env, "type", [](EvaluatorImpl &ev, CallArgs &a) {
    return Value::string(requireArg(a, 0, "x", "type").typeName());
  });
  def(env, "sleep", [](EvaluatorImpl &ev, CallArgs &a) {
    int64_t ms = static_cast<int64_t>(toNumber(requireArg(a, 0, "ms", "sleep"), "sleep time", a.loc));
    GilRelease release(ev.gil);
    std::this_thread::sleep_for(std::chrono::milliseconds(std::max<int64_t>(0, ms)));
    return Value::none();
  });
  def(env, "raise", [](EvaluatorImpl &ev, CallArgs &a) -> Value {
    const Value &kind = requireArg(a, 0, "kind", "raise");
    Value msg = argOr(a, 1, "message", Value::string(""));
    if (!kind.is(Value::kErrorKind))
      throwError(Code::kTypeError, "raise() needs an error kind such as out_of_range", a.loc);
    throwError(kind.asErrorKind(), ev.repr(msg, false), a.loc);
  });
  def(env, "temp_dir", [](EvaluatorImpl &ev, CallArgs &a) {
    namespace fs = std::filesystem;
    std::random_device rd;
    for (int attempt = 0; attempt < 100; ++attempt) {
      fs::path p = fs::temp_directory_path() /
                   ("sluice-" + std::to_string(rd()) + std::to_string(attempt));
      std::error_code ec;
      if (fs::create_directory(p, ec)) {
        ev.tempDirs.push_back(p.string());
        return Value::string(p.string());
      }
    }
    throwError(Code::kInternal, "could not create a temporary directory", a.loc);
  });
  def(env, "__method__", [](EvaluatorImpl &ev, CallArgs &a) {
    return method(ev, a.positional[0], a.positional[1].asString(), a.loc);
  });
  (void)evaluator;
}

namespace {

Value bound(const std::string &name, BuiltinFn fn) { return Value::builtin(name, std::move(fn)); }

Value method(EvaluatorImpl &ev, const Value &obj, const std::string &name, const SourceLoc &loc) {
  if (obj.is(Value::kList)) {
    ListPtr l = obj.asList();
    if (name == "append")
      return bound(name, [l](EvaluatorImpl &, CallArgs &a) {
        l->push_back(requireArg(a, 0, "x", "append"));
        return Value::none();
      });
    if (name == "extend")
      return bound(name, [l](EvaluatorImpl &e, CallArgs &a) {
        for (Value &x : e.iterate(requireArg(a, 0, "xs", "extend"), a.loc))
          l->push_back(x);
        return Value::none();
      });
    if (name == "pop")
      return bound(name, [l](EvaluatorImpl &, CallArgs &a) {
        if (l->empty())
          throwError(Code::kOutOfRange, "pop from an empty list", a.loc);
        int64_t i = a.positional.empty() ? static_cast<int64_t>(l->size()) - 1
                                         : toInt(a.positional[0], "index", a.loc);
        if (i < 0)
          i += static_cast<int64_t>(l->size());
        if (i < 0 || i >= static_cast<int64_t>(l->size()))
          throwError(Code::kOutOfRange, "pop index out of range", a.loc);
        Value v = (*l)[i];
        l->erase(l->begin() + i);
        return v;
      });
    if (name == "insert")
      return bound(name, [l](EvaluatorImpl &, CallArgs &a) {
        int64_t i = toInt(requireArg(a, 0, "index", "insert"), "index", a.loc);
        i = std::clamp<int64_t>(i < 0 ? i + static_cast<int64_t>(l->size()) : i, 0,
                                static_cast<int64_t>(l->size()));
        l->insert(l->begin() + i, requireArg(a, 1, "x", "insert"));
        return Value::none();
      });
    if (name == "index")
      return bound(name, [l](EvaluatorImpl &e, CallArgs &a) {
        const Value &x = requireArg(a, 0, "x", "index");
        for (size_t i = 0; i < l->size(); ++i)
          if ((*l)[i].equals(x))
            return Value::integer(static_cast<int64_t>(i));
        throwError(Code::kValueError, e.repr(x, true) + " is not in the list", a.loc);
      });
  }
  if (obj.is(Value::kDict)) {
    DictPtr d = obj.asDict();
    if (name == "keys" || name == "values" || name == "items")
      return bound(name, [d, name](EvaluatorImpl &, CallArgs &) {
        List out;
        for (const auto &[k, v] : d->items)
          out.push_back(name == "keys" ? k : name == "values" ? v : Value::tuple({k, v}));
        return Value::list(std::move(out));
      });
    if (name == "get")
      return bound(name, [d](EvaluatorImpl &, CallArgs &a) {
        const Value *v = d->find(requireArg(a, 0, "key", "get"));
        return v ? *v : argOr(a, 1, "default", Value::none());
      });
    if (name == "update")
      return bound(name, [d](EvaluatorImpl &, CallArgs &a) {
        const Value &o = requireArg(a, 0, "other", "update");
        if (!o.is(Value::kDict))
          throwError(Code::kTypeError, "update() needs a dict", a.loc);
        for (const auto &[k, v] : o.asDict()->items)
          d->set(k, v);
        return Value::none();
      });
  }
  if (obj.is(Value::kString)) {
    std::string s = obj.asString();
    if (name == "join")
      return bound(name, [s](EvaluatorImpl &e, CallArgs &a) {
        std::string out;
        bool first = true;
        for (Value &x : e.iterate(requireArg(a, 0, "xs", "join"), a.loc)) {
          out += (first ? "" : s) + toStr(x, "join element", a.loc);
          first = false;
        }
        return Value::string(out);
      });
    if (name == "split")
      return bound(name, [s](EvaluatorImpl &, CallArgs &a) {
        Value sepV = argOr(a, 0, "sep", Value::none());
        List out;
        if (sepV.isNone()) {
          std::string cur;
          for (char c : s + " ") {
            if (std::isspace(static_cast<unsigned char>(c))) {
              if (!cur.empty())
                out.push_back(Value::string(cur));
              cur.clear();
            } else {
              cur += c;
            }
          }
          return Value::list(std::move(out));
        }
        std::string sep = toStr(sepV, "sep", a.loc);
        if (sep.empty())
          throwError(Code::kValueError, "empty separator", a.loc);
        size_t start = 0, pos;
        while ((pos = s.find(sep, start)) != std::string::npos) {
          out.push_back(Value::string(s.substr(start, pos - start)));
          start = pos + sep.size();
        }
        out.push_back(Value::string(s.substr(start)));
        return Value::list(std::move(out));
      });
    if (name == "strip")
      return bound(name, [s](EvaluatorImpl &, CallArgs &) {
        size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
        return Value::string(b == std::string::npos ? "" : s.substr(b, e - b + 1));
      });
    if (name == "startswith" || name == "endswith")
      return bound(name, [s, name](EvaluatorImpl &, CallArgs &a) {
        std::string x = toStr(requireArg(a, 0, "prefix", name), "prefix", a.loc);
        bool r = name == "startswith" ? s.rfind(x, 0) == 0
                                      : s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0;
        return Value::boolean(r);
      });
    if (name == "upper" || name == "lower")
      return bound(name, [s, name](EvaluatorImpl &, CallArgs &) {
        std::string out = s;
        for (char &c : out)
          c = static_cast<char>(name == "upper" ? std::toupper(static_cast<unsigned char>(c))
                                                : std::tolower(static_cast<unsigned char>(c)));
        return Value::string(out);
      });
    if (name == "replace")
      return bound(name, [s](EvaluatorImpl &, CallArgs &a) {
        std::string from = toStr(requireArg(a, 0, "old", "replace"), "old", a.loc);
        std::string to = toStr(requireArg(a, 1, "new", "replace"), "new", a.loc);
        if (from.empty())
          return Value::string(s);
        std::string out;
        size_t start = 0, pos;
        while ((pos = s.find(from, start)) != std::string::npos) {
          out += s.substr(start, pos - start) + to;
          start = pos + from.size();
        }
        return Value::string(out + s.substr(start));
      });
  }
  throwError(Code::kValueError, "a " + obj.typeName() + " has no attribute '" + name + "'", loc);
}

} // namespace

} // namespace sluice::frontend
