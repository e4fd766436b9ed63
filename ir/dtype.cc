// ir/dtype.cc: dtype names, sizes and half-precision conversion.
#include "ir/dtype.h"

#include <array>

namespace sluice::ir {

namespace {
struct DTypeInfo {
  DType type;
  std::string_view name;
  std::string_view tfName;
  size_t size;
};
constexpr std::array<DTypeInfo, 13> kInfo = {{
    {DType::kInvalid, "invalid", "invalid", 0},
    {DType::kF16, "f16", "float16", 2},
    {DType::kF32, "f32", "float32", 4},
    {DType::kF64, "f64", "float64", 8},
    {DType::kI8, "i8", "int8", 1},
    {DType::kI16, "i16", "int16", 2},
    {DType::kI32, "i32", "int32", 4},
    {DType::kI64, "i64", "int64", 8},
    {DType::kU8, "u8", "uint8", 1},
    {DType::kBool, "bool", "bool", 1},
    {DType::kString, "string", "string", 0},
    {DType::kResource, "resource", "resource", 0},
    {DType::kVariant, "variant", "variant", 0},
}};
} // namespace

std::string_view dtypeName(DType t) { return kInfo[static_cast<size_t>(t)].name; }
std::string_view dtypeTfName(DType t) { return kInfo[static_cast<size_t>(t)].tfName; }
size_t dtypeSize(DType t) { return kInfo[static_cast<size_t>(t)].size; }

std::optional<DType> dtypeFromName(std::string_view name) {
  for (const auto &i : kInfo)
    if (i.type != DType::kInvalid && (i.name == name || i.tfName == name))
      return i.type;
  if (name == "float")
    return DType::kF32;
  if (name == "double")
    return DType::kF64;
  return std::nullopt;
}

bool isFloating(DType t) {
  return t == DType::kF16 || t == DType::kF32 || t == DType::kF64;
}
bool isInteger(DType t) {
  return t == DType::kI8 || t == DType::kI16 || t == DType::kI32 ||
         t == DType::kI64 || t == DType::kU8;
}
bool isSigned(DType t) { return isInteger(t) && t != DType::kU8; }
bool isNumeric(DType t) { return isFloating(t) || isInteger(t); }

// Round-to-nearest-even conversions between binary32 and binary16.
Half::Half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t exp = (x >> 23) & 0xffu;
  uint32_t mant = x & 0x7fffffu;
  if (exp == 0xff) { // inf or nan
    bits = static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0));
    return;
  }
  int e = static_cast<int>(exp) - 127 + 15;
  if (e >= 0x1f) {
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (e <= 0) {
    if (e < -10) {
      bits = static_cast<uint16_t>(sign);
      return;
    }
    mant |= 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1)))
      ++half;
    bits = static_cast<uint16_t>(sign | half);
    return;
  }
  uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1)))
    ++half; // may carry into the exponent, which is the right result
  bits = static_cast<uint16_t>(half);
}

Half::operator float() const {
  uint32_t sign = (bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else { // subnormal: normalize
      int e = -1;
      do {
        ++e;
        mant <<= 1;
      } while ((mant & 0x400u) == 0);
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) |
          ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

} // namespace sluice::ir
