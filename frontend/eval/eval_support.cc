// frontend/eval/eval_support.cc: argument helpers and value printing.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

const Value *argAt(CallArgs &a, size_t pos, const std::string &name) {
  for (auto &[k, v] : a.keywords)
    if (k == name)
      return &v;
  if (pos < a.positional.size())
    return &a.positional[pos];
  return nullptr;
}

Value argOr(CallArgs &a, size_t pos, const std::string &name, Value def) {
  const Value *v = argAt(a, pos, name);
  return v ? *v : std::move(def);
}

const Value &requireArg(CallArgs &a, size_t pos, const std::string &name,
                        const std::string &fn) {
  const Value *v = argAt(a, pos, name);
  if (!v)
    throwError(Code::kTypeError, fn + "() missing required argument '" + name + "'", a.loc);
  return *v;
}

void checkKeywords(CallArgs &a, const std::string &fn,
                   std::initializer_list<const char *> allowed) {
  for (size_t k = 0; k < a.keywords.size(); ++k) {
    const std::string &key = a.keywords[k].first;
    if (key == "__block__")
      continue;
    bool ok = false;
    for (const char *x : allowed)
      ok = ok || key == x;
    if (!ok)
      throwError(Code::kTypeError,
                 fn + "() got an unexpected keyword argument '" + key + "'",
                 a.keywordLocs[k]);
  }
}

int64_t toInt(const Value &v, const std::string &what, const SourceLoc &loc) {
  if (v.is(Value::kInt))
    return v.asInt();
  if (v.is(Value::kBool))
    return v.asBool();
  if (v.is(Value::kHostTensor) && v.asHostTensor().numElements() == 1 &&
      ir::isInteger(v.asHostTensor().dtype()))
    return v.asHostTensor().elementAsInt(0);
  throwError(Code::kTypeError, what + " must be an int, got " + v.typeName(), loc);
}

double toNumber(const Value &v, const std::string &what, const SourceLoc &loc) {
  if (v.isNumber())
    return v.asNumber();
  if (v.is(Value::kHostTensor) && v.asHostTensor().numElements() == 1 &&
      ir::isPod(v.asHostTensor().dtype()))
    return v.asHostTensor().elementAsDouble(0);
  throwError(Code::kTypeError, what + " must be a number, got " + v.typeName(), loc);
}

std::string toStr(const Value &v, const std::string &what, const SourceLoc &loc) {
  if (v.is(Value::kString))
    return v.asString();
  throwError(Code::kTypeError, what + " must be a string, got " + v.typeName(), loc);
}

ir::DType toDType(const Value &v, const std::string &what, const SourceLoc &loc) {
  if (v.is(Value::kDType))
    return v.asDType();
  if (v.is(Value::kString))
    if (auto t = ir::dtypeFromName(v.asString()))
      return *t;
  // `bool` is both the dtype and the builtin bool(); TF accepts Python's
  // bool as a dtype too.
  if (v.is(Value::kBuiltin) && v.asBuiltin()->name == "bool")
    return ir::DType::kBool;
  throwError(Code::kTypeError, what + " must be a dtype such as f32, got " + v.typeName(), loc);
}

ir::Shape toShape(const Value &v, const std::string &what, const SourceLoc &loc) {
  if (v.isNone())
    return ir::Shape::unknown();
  if (v.is(Value::kHostTensor)) {
    const ir::Tensor &t = v.asHostTensor();
    if (t.rank() != 1 || !ir::isInteger(t.dtype()))
      throwError(Code::kTypeError, what + " must be a 1-d integer tensor", loc);
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < t.numElements(); ++i)
      dims.push_back(t.elementAsInt(i));
    return ir::Shape(dims);
  }
  if (v.is(Value::kInt))
    return ir::Shape(std::vector<int64_t>{v.asInt()});
  if (!v.isSequence())
    throwError(Code::kTypeError, what + " must be a list of dims, got " + v.typeName(), loc);
  std::vector<int64_t> dims;
  for (const Value &d : *v.asList()) {
    if (d.isNone()) {
      dims.push_back(-1);
      continue;
    }
    int64_t x = toInt(d, what, loc);
    if (x < -1)
      throwError(Code::kValueError, what + ": dimension " + std::to_string(x) + " is negative", loc);
    dims.push_back(x);
  }
  return ir::Shape(dims);
}

namespace {

// Python's repr of a float: the shortest digits that read back exactly,
// positional for exponents -4..15 ("10.0", "0.0001", "1e+16", "1e-05").
std::string floatRepr(double d) {
  if (std::isnan(d))
    return "nan";
  if (std::isinf(d))
    return d > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  (void)ec;
  std::string sci(buf, end); // "-1.2345e+02"
  size_t e = sci.find('e');
  int exp = std::stoi(sci.substr(e + 1));
  bool neg = sci[0] == '-';
  std::string digits;
  for (size_t i = neg ? 1 : 0; i < e; ++i)
    if (sci[i] != '.')
      digits += sci[i];
  std::string out = neg ? "-" : "";
  if (exp < -4 || exp >= 16) {
    out += digits.substr(0, 1);
    if (digits.size() > 1)
      out += "." + digits.substr(1);
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    return out + ebuf;
  }
  if (exp < 0)
    return out + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  size_t intLen = static_cast<size_t>(exp) + 1;
  if (digits.size() <= intLen)
    return out + digits + std::string(intLen - digits.size(), '0') + ".0";
  return out + digits.substr(0, intLen) + "." + digits.substr(intLen);
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string jsonNumber(double d) {
  if (std::isnan(d) || std::isinf(d))
    return "null"; // JSON has no NaN or infinity
  return floatRepr(d);
}

} // namespace

namespace {

/// The containers being printed, outermost first: one met again is the
/// value containing itself, printed as Python prints it ([...]).
struct OpenContainers {
  std::vector<const void *> open;
  bool contains(const void *p) const {
    return std::find(open.begin(), open.end(), p) != open.end();
  }
};

const void *containerOf(const Value &v) {
  if (v.is(Value::kList) || v.is(Value::kTuple))
    return v.asList().get();
  if (v.is(Value::kDict))
    return v.asDict().get();
  return nullptr;
}

std::string reprIn(EvaluatorImpl &ev, const Value &v, bool quoteStrings, OpenContainers &seen);

} // namespace

std::string EvaluatorImpl::repr(const Value &v, bool quoteStrings) {
  OpenContainers seen;
  return reprIn(*this, v, quoteStrings, seen);
}

namespace {

std::string reprIn(EvaluatorImpl &ev, const Value &v, bool quoteStrings, OpenContainers &seen) {
  const void *self = containerOf(v);
  if (self && seen.contains(self))
    return v.is(Value::kList) ? "[...]" : v.is(Value::kTuple) ? "(...)" : "{...}";
  if (self)
    seen.open.push_back(self);
  struct Close {
    OpenContainers &seen;
    const void *self;
    ~Close() {
      if (self)
        seen.open.pop_back();
    }
  } close{seen, self};
  switch (v.kind()) {
  case Value::kNone: return "none";
  case Value::kBool: return v.asBool() ? "true" : "false";
  case Value::kInt: return std::to_string(v.asInt());
  case Value::kFloat: return floatRepr(v.asFloat());
  case Value::kString: return quoteStrings ? quote(v.asString()) : v.asString();
  case Value::kList:
  case Value::kTuple: {
    bool list = v.is(Value::kList);
    std::string out = list ? "[" : "(";
    const List &items = *v.asList();
    for (size_t i = 0; i < items.size(); ++i) {
      if (i)
        out += ", ";
      out += reprIn(ev, items[i], true, seen);
    }
    if (!list && items.size() == 1)
      out += ",";
    return out + (list ? "]" : ")");
  }
  case Value::kDict: {
    std::string out = "{";
    bool first = true;
    for (const auto &[k, x] : v.asDict()->items) {
      if (!first)
        out += ", ";
      first = false;
      out += reprIn(ev, k, true, seen) + ": " + reprIn(ev, x, true, seen);
    }
    return out + "}";
  }
  case Value::kFunction: return "<fn " + v.asFunction()->name + ">";
  case Value::kBuiltin: return "<builtin " + v.asBuiltin()->name + ">";
  case Value::kHostTensor: return ir::formatTensor(v.asHostTensor());
  case Value::kTensor: {
    const SymTensor &t = v.asTensor();
    const ir::Node &n = t.graph->graph->node(t.out.node);
    return "<tensor '" + n.name() + ":" + std::to_string(t.out.index) + "' shape=" +
           n.outputShape(t.out.index).str() + " dtype=" +
           std::string(ir::dtypeName(n.outputType(t.out.index))) + ">";
  }
  case Value::kOp: {
    const ir::Node &n = v.asOp().graph->graph->node(v.asOp().node);
    return "<op '" + n.name() + "' type=" + n.opName() + ">";
  }
  case Value::kDType: return std::string(ir::dtypeName(v.asDType()));
  case Value::kErrorKind: return std::string(codeName(v.asErrorKind()));
  case Value::kObject: return v.asObject()->repr();
  }
  return "?";
}

} // namespace

std::string EvaluatorImpl::toJson(const Value &v) {
  // JSON has no way to say "this list again": refuse instead of recursing
  // without end.
  static thread_local std::vector<const void *> open;
  const void *self = containerOf(v);
  if (self && std::find(open.begin(), open.end(), self) != open.end())
    throw LangError{Status(Code::kValueError,
                           "cannot write " + repr(v, true) + " as JSON: it contains itself")};
  if (self)
    open.push_back(self);
  struct Close {
    const void *self;
    ~Close() {
      if (self)
        open.pop_back();
    }
  } close{self};
  switch (v.kind()) {
  case Value::kNone: return "null";
  case Value::kBool: return v.asBool() ? "true" : "false";
  case Value::kInt: return std::to_string(v.asInt());
  case Value::kFloat: return jsonNumber(v.asFloat());
  case Value::kString: return jsonString(v.asString());
  case Value::kList:
  case Value::kTuple: {
    std::string out = "[";
    const List &items = *v.asList();
    for (size_t i = 0; i < items.size(); ++i)
      out += (i ? "," : "") + toJson(items[i]);
    return out + "]";
  }
  case Value::kDict: {
    std::string out = "{";
    bool first = true;
    for (const auto &[k, x] : v.asDict()->items) {
      out += (first ? "" : ",") + jsonString(k.is(Value::kString) ? k.asString() : repr(k, false)) +
             ":" + toJson(x);
      first = false;
    }
    return out + "}";
  }
  case Value::kHostTensor: {
    const ir::Tensor &t = v.asHostTensor();
    std::string out = "{\"dtype\":\"" + std::string(ir::dtypeName(t.dtype())) + "\",\"shape\":[";
    for (int i = 0; i < t.rank(); ++i)
      out += (i ? "," : "") + std::to_string(t.dim(i));
    out += "],\"values\":[";
    for (int64_t i = 0; i < t.numElements(); ++i) {
      if (i)
        out += ",";
      if (t.dtype() == ir::DType::kString)
        out += jsonString(t.strings()[i]);
      else if (t.dtype() == ir::DType::kBool)
        out += t.data<bool>()[i] ? "true" : "false";
      else if (ir::isFloating(t.dtype()))
        out += jsonNumber(t.elementAsDouble(i));
      else
        out += std::to_string(t.elementAsInt(i));
    }
    return out + "]}";
  }
  default: return jsonString(repr(v, false));
  }
}

void EvaluatorImpl::print(const std::string &line) {
  std::lock_guard<std::mutex> lock(printMu);
  if (progressLineShown.exchange(false))
    std::cerr << "\r\x1b[K" << std::flush;
  std::ostream &os = opts.out ? *opts.out : std::cout;
  os << line << '\n';
  os.flush();
}

} // namespace sluice::frontend
