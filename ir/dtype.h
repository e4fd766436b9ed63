// ir/dtype.h: element types of tensors, with TF1's names and sizes.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace sluice::ir {

enum class DType : uint8_t {
  kInvalid = 0,
  kF16,
  kF32,
  kF64,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kBool,
  kString,
  kResource, // a handle to a runtime resource (variable, queue, reader)
  kVariant,  // an opaque runtime value (a dataset), see VariantValue
};

/// The language's name: "f32", "i64", "string", ...
std::string_view dtypeName(DType t);
/// TF's Python name: "float32", "int64", "string", ...
std::string_view dtypeTfName(DType t);
std::optional<DType> dtypeFromName(std::string_view name);
/// Bytes per element; 0 for string, resource and variant (not raw bytes).
size_t dtypeSize(DType t);
bool isFloating(DType t);
bool isInteger(DType t); // signed or unsigned, not bool
bool isSigned(DType t);
bool isNumeric(DType t); // floating or integer
/// Whether raw-byte storage is used (everything but string, resource and
/// variant).
inline bool isPod(DType t) {
  return t != DType::kString && t != DType::kResource && t != DType::kVariant &&
         t != DType::kInvalid;
}

/// IEEE half precision stored as bits; arithmetic goes through float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  explicit Half(float f);
  operator float() const;
};

/// Maps a C++ element type to its DType.
template <typename T> struct DTypeOf;
template <> struct DTypeOf<Half> { static constexpr DType value = DType::kF16; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::kF32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kF64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kI8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kI16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kI32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kI64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kU8; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<std::string> { static constexpr DType value = DType::kString; };

/// Calls `f(T{})` with the C++ type of a numeric or bool dtype (not string).
/// Returns false when `t` is not such a dtype.
template <typename F> bool dispatchPod(DType t, F &&f) {
  switch (t) {
  case DType::kF16: f(Half{}); return true;
  case DType::kF32: f(float{}); return true;
  case DType::kF64: f(double{}); return true;
  case DType::kI8: f(int8_t{}); return true;
  case DType::kI16: f(int16_t{}); return true;
  case DType::kI32: f(int32_t{}); return true;
  case DType::kI64: f(int64_t{}); return true;
  case DType::kU8: f(uint8_t{}); return true;
  case DType::kBool: f(bool{}); return true;
  default: return false;
  }
}

} // namespace sluice::ir
