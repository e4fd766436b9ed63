// frontend/eval/structure.cc
#include "frontend/eval/structure.h"

namespace sluice::frontend {

size_t Structure::numComponents() const {
  if (kind == kTensor)
    return 1;
  size_t n = 0;
  for (const Structure &c : children)
    n += c.numComponents();
  return n;
}

std::string Structure::str() const {
  switch (kind) {
  case kTensor:
    return "tensor";
  case kTuple: {
    std::string s = "(";
    for (size_t i = 0; i < children.size(); ++i)
      s += (i ? ", " : "") + children[i].str();
    return s + (children.size() == 1 ? ",)" : ")");
  }
  case kDict: {
    std::string s = "{";
    for (size_t i = 0; i < children.size(); ++i)
      s += (i ? ", " : "") +
           (keys[i].is(Value::kString) ? "\"" + keys[i].asString() + "\"" : keys[i].typeName()) +
           ": " + children[i].str();
    return s + "}";
  }
  }
  return "?";
}

bool Structure::operator==(const Structure &o) const {
  if (kind != o.kind || children.size() != o.children.size())
    return false;
  for (size_t i = 0; i < children.size(); ++i)
    if (!(children[i] == o.children[i]) || (kind == kDict && !keys[i].equals(o.keys[i])))
      return false;
  return true;
}

Structure flattenValue(const Value &v, std::vector<Value> &leaves) {
  Structure s;
  if (v.is(Value::kTuple)) {
    s.kind = Structure::kTuple;
    for (const Value &x : *v.asList())
      s.children.push_back(flattenValue(x, leaves));
  } else if (v.is(Value::kDict)) {
    s.kind = Structure::kDict;
    for (const auto &[k, x] : v.asDict()->items) {
      s.keys.push_back(k);
      s.children.push_back(flattenValue(x, leaves));
    }
  } else {
    leaves.push_back(v);
  }
  return s;
}

Value packValue(const Structure &s, const std::vector<Value> &leaves, size_t &next) {
  switch (s.kind) {
  case Structure::kTensor:
    return leaves[next++];
  case Structure::kTuple: {
    List items;
    for (const Structure &c : s.children)
      items.push_back(packValue(c, leaves, next));
    return Value::tuple(std::move(items));
  }
  case Structure::kDict: {
    auto d = std::make_shared<Dict>();
    for (size_t i = 0; i < s.children.size(); ++i)
      d->set(s.keys[i], packValue(s.children[i], leaves, next));
    return Value::dict(std::move(d));
  }
  }
  return Value::none();
}

} // namespace sluice::frontend
