// ir/tensor_format.cc: numpy-like printing of tensors.
#include <cmath>
#include <cstdio>

#include "ir/tensor.h"

namespace sluice::ir {

namespace {

std::string formatFloat(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  std::string s = buf;
  // Keep a visible decimal point so floats never read as integers.
  if (s.find_first_of(".eni") == std::string::npos)
    s += ".";
  return s;
}

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20 || c >= 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

void formatRec(const Tensor &t, int axis, int64_t offset, int64_t stride,
               std::string &out) {
  if (axis == t.rank()) {
    out += t.dtype() == DType::kString || t.dtype() == DType::kResource
               ? quote(t.strings()[offset])
               : formatElement(t, offset);
    return;
  }
  int64_t n = t.dim(axis);
  int64_t inner = stride / (n == 0 ? 1 : n);
  out += "[";
  for (int64_t i = 0; i < n; ++i) {
    if (i)
      out += " ";
    formatRec(t, axis + 1, offset + i * inner, inner, out);
  }
  out += "]";
}

} // namespace

std::string formatElement(const Tensor &t, int64_t i) {
  if (t.isOnDevice()) {
    auto host = t.toHost();
    return host.hasValue() ? formatElement(*host, i) : "<on " + t.deviceMemory()->deviceName() + ">";
  }
  switch (t.dtype()) {
  case DType::kString:
  case DType::kResource:
    return t.strings()[i];
  case DType::kVariant:
    return t.variants()[i] ? t.variants()[i]->debugString() : "<empty variant>";
  case DType::kBool:
    return t.data<bool>()[i] ? "true" : "false";
  case DType::kF16:
  case DType::kF32:
  case DType::kF64:
    return formatFloat(t.elementAsDouble(i));
  case DType::kInvalid:
    return "<invalid>";
  default:
    return std::to_string(t.elementAsInt(i));
  }
}

std::string formatTensor(const Tensor &t) {
  if (!t.valid())
    return "<invalid tensor>";
  if (t.isOnDevice()) {
    auto host = t.toHost();
    return host.hasValue() ? formatTensor(*host)
                           : "<tensor on " + t.deviceMemory()->deviceName() + ": " +
                                 host.status().message() + ">";
  }
  std::string out;
  formatRec(t, 0, 0, t.numElements(), out);
  return out;
}

} // namespace sluice::ir
