// frontend/value.cc: equality, hashing and kind names of language values.
#include "frontend/value.h"

#include <algorithm>
#include <functional>

namespace sluice::frontend {

Value Value::builtin(std::string name,
                     std::function<Value(EvaluatorImpl &, CallArgs &)> fn) {
  auto b = std::make_shared<Builtin>();
  b->name = std::move(name);
  b->fn = std::move(fn);
  return Value(Storage(std::in_place_index<kBuiltin>, std::move(b)));
}

double Value::asNumber() const {
  switch (kind()) {
  case kBool: return asBool() ? 1 : 0;
  case kInt: return static_cast<double>(asInt());
  default: return asFloat();
  }
}

std::string Value::typeName() const {
  switch (kind()) {
  case kNone: return "none";
  case kBool: return "bool";
  case kInt: return "int";
  case kFloat: return "float";
  case kString: return "string";
  case kList: return "list";
  case kTuple: return "tuple";
  case kDict: return "dict";
  case kFunction: return "function";
  case kBuiltin: return "builtin function";
  case kHostTensor: return "host tensor";
  case kTensor: return "symbolic tensor";
  case kOp: return "operation";
  case kDType: return "dtype";
  case kErrorKind: return "error kind";
  case kObject: return asObject()->typeName();
  }
  return "?";
}

namespace {

/// Pairs of containers being compared: meeting one again means both sides
/// repeat the same way from here (a list that contains itself), so the
/// comparison holds there instead of recursing without end.
thread_local std::vector<std::pair<const void *, const void *>> comparing;

} // namespace

bool Value::equals(const Value &o) const {
  if (kind() == o.kind() && (is(kList) || is(kTuple) || is(kDict))) {
    const void *a = is(kDict) ? static_cast<const void *>(asDict().get()) : asList().get();
    const void *b = is(kDict) ? static_cast<const void *>(o.asDict().get()) : o.asList().get();
    if (a == b)
      return true;
    std::pair<const void *, const void *> pair{a, b};
    if (std::find(comparing.begin(), comparing.end(), pair) != comparing.end())
      return true;
    comparing.push_back(pair);
    struct Pop {
      ~Pop() { comparing.pop_back(); }
    } pop;
    return equalsOnce(o);
  }
  return equalsOnce(o);
}

bool Value::equalsOnce(const Value &o) const {
  if (isNumber() && o.isNumber()) {
    if (is(kInt) && o.is(kInt))
      return asInt() == o.asInt();
    return asNumber() == o.asNumber();
  }
  if (kind() != o.kind()) {
    // `bool` names both the builtin bool() and the dtype (as Python's bool
    // is accepted for tf.bool), so x.dtype == bool holds.
    auto boolName = [](const Value &v) {
      return (v.is(kBuiltin) && v.asBuiltin()->name == "bool") ||
             (v.is(kDType) && v.asDType() == ir::DType::kBool);
    };
    return boolName(*this) && boolName(o);
  }
  switch (kind()) {
  case kNone: return true;
  case kString: return asString() == o.asString();
  case kList:
  case kTuple: {
    const List &a = *asList(), &b = *o.asList();
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!a[i].equals(b[i]))
        return false;
    return true;
  }
  case kDict: {
    const Dict &a = *asDict(), &b = *o.asDict();
    if (a.items.size() != b.items.size())
      return false;
    for (const auto &[k, v] : a.items) {
      const Value *w = b.find(k);
      if (!w || !v.equals(*w))
        return false;
    }
    return true;
  }
  case kFunction: return asFunction() == o.asFunction();
  case kBuiltin: return asBuiltin() == o.asBuiltin();
  case kHostTensor: return asHostTensor().equals(o.asHostTensor());
  case kTensor:
    return asTensor().graph == o.asTensor().graph && asTensor().out == o.asTensor().out;
  case kOp: return asOp().graph == o.asOp().graph && asOp().node == o.asOp().node;
  case kDType: return asDType() == o.asDType();
  case kErrorKind: return asErrorKind() == o.asErrorKind();
  case kObject: return asObject()->equalsObject(*o.asObject());
  default: return false;
  }
}

size_t Value::hash() const {
  switch (kind()) {
  case kInt: return std::hash<double>()(static_cast<double>(asInt()));
  case kFloat: return std::hash<double>()(asFloat());
  case kBool: return std::hash<double>()(asBool() ? 1.0 : 0.0);
  case kString: return std::hash<std::string>()(asString());
  case kTensor: return std::hash<int64_t>()(asTensor().out.node * 131 + asTensor().out.index);
  case kOp: return std::hash<int64_t>()(asOp().node);
  case kTuple: {
    size_t h = 7;
    for (const auto &v : *asList())
      h = h * 31 + v.hash();
    return h;
  }
  default: return static_cast<size_t>(kind());
  }
}

const Value *Dict::find(const Value &key) const {
  for (const auto &[k, v] : items)
    if (k.equals(key))
      return &v;
  return nullptr;
}

void Dict::set(Value key, Value value) {
  for (auto &[k, v] : items)
    if (k.equals(key)) {
      v = std::move(value);
      return;
    }
  items.emplace_back(std::move(key), std::move(value));
}

std::optional<Value> Object::getAttr(EvaluatorImpl &, const std::string &) {
  return std::nullopt;
}

std::string Object::repr() const { return "<" + typeName() + ">"; }

} // namespace sluice::frontend
