// ir/attr.cc: attribute type names and the text form of attribute values.
#include "ir/attr.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sluice::ir {

std::string_view attrTypeName(AttrType t) {
  static constexpr std::string_view names[] = {
      "int",  "float",     "bool",       "string",      "type",      "shape",
      "tensor", "list(int)", "list(float)", "list(string)", "list(type)",
      "list(shape)"};
  return names[static_cast<int>(t)];
}

namespace {

std::string quoted(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// Round-trippable float text: shortest %g that reads back identically.
std::string exactFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int prec = 6; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

// For f32 and f16 elements: the shortest %g that reads back (as a float,
// then rounded to half for f16) to the same value, so 0.1f prints as 0.1
// rather than as the double nearest to it.
std::string exactSingle(float v, DType dtype) {
  if (std::isnan(v) || std::isinf(v))
    return exactFloat(v);
  char buf[40];
  for (int prec = 6; prec <= 9; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, static_cast<double>(v));
    float back = std::strtof(buf, nullptr);
    if (dtype == DType::kF16 ? Half(back).bits == Half(v).bits : back == v)
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

template <typename T, typename F>
std::string list(const std::vector<T> &v, F &&f) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i)
      out += ", ";
    out += f(v[i]);
  }
  return out + "]";
}

std::string shapeText(const Shape &s) {
  return s.hasRank() ? s.str() : std::string("?");
}

std::string tensorText(const Tensor &t) {
  // dtype, dims, then the flat elements: exact and easy to parse back.
  std::string out = "tensor<" + std::string(dtypeName(t.dtype())) + " " +
                    dimsString(t.dims()) + " ";
  out += "{";
  for (int64_t i = 0; i < t.numElements(); ++i) {
    if (i)
      out += ", ";
    out += exactElementText(t, i);
  }
  return out + "}>";
}

} // namespace

std::string exactElementText(const Tensor &t, int64_t i) {
  if (t.dtype() == DType::kString || t.dtype() == DType::kResource)
    return quoted(t.strings()[i]);
  if (t.dtype() == DType::kVariant)
    return quoted(formatElement(t, i));
  if (t.dtype() == DType::kF64)
    return exactFloat(t.data<double>()[i]);
  if (isFloating(t.dtype()))
    return exactSingle(static_cast<float>(t.elementAsDouble(i)), t.dtype());
  if (t.dtype() == DType::kBool)
    return t.data<bool>()[i] ? "true" : "false";
  return std::to_string(t.elementAsInt(i));
}

std::string formatAttr(const AttrValue &v) {
  switch (attrTypeOf(v)) {
  case AttrType::kInt: return std::to_string(std::get<int64_t>(v));
  case AttrType::kFloat: return exactFloat(std::get<double>(v));
  case AttrType::kBool: return std::get<bool>(v) ? "true" : "false";
  case AttrType::kString: return quoted(std::get<std::string>(v));
  case AttrType::kType: return std::string(dtypeName(std::get<DType>(v)));
  case AttrType::kShape: return "shape" + shapeText(std::get<Shape>(v));
  case AttrType::kTensor: return tensorText(std::get<Tensor>(v));
  case AttrType::kIntList:
    return list(std::get<std::vector<int64_t>>(v),
                [](int64_t x) { return std::to_string(x); });
  case AttrType::kFloatList:
    return list(std::get<std::vector<double>>(v), exactFloat);
  case AttrType::kStringList:
    return list(std::get<std::vector<std::string>>(v), quoted);
  case AttrType::kTypeList:
    return "types" + list(std::get<std::vector<DType>>(v), [](DType t) {
             return std::string(dtypeName(t));
           });
  case AttrType::kShapeList:
    return "shapes" + list(std::get<std::vector<Shape>>(v), shapeText);
  }
  return "?";
}

} // namespace sluice::ir
