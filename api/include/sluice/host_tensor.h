// sluice/host_tensor.h: a tensor in host memory, what the public API feeds
// and fetches: a dtype, a shape and the elements in row-major order.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace sluice {

/// Element types, with the language's names (f32, i64, string...).
enum class DType {
  kInvalid = 0,
  kFloat16, // f16: stored as IEEE half bits; read it with elementAsDouble
  kFloat32, // f32
  kFloat64, // f64
  kInt8,    // i8
  kInt16,   // i16
  kInt32,   // i32
  kInt64,   // i64
  kUInt8,   // u8
  kBool,    // bool
  kString,  // string
};

/// "f32", "i64", "string"...; "invalid" for kInvalid.
std::string_view dtypeName(DType t);
/// Bytes per element of a numeric or bool dtype; 0 for string and invalid.
size_t dtypeSize(DType t);

namespace detail {
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kInt16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <> struct DTypeOf<std::string> { static constexpr DType value = DType::kString; };
/// Prints "tensor dtype mismatch" and aborts (a programmer error).
[[noreturn]] void dtypeMismatch(DType wanted, DType actual);
[[noreturn]] void badElementCount(size_t values, int64_t shapeElements);
} // namespace detail

/// The DType of a C++ element type: dtypeOf<float>() is kFloat32.
template <typename T> constexpr DType dtypeOf() { return detail::DTypeOf<T>::value; }

/// A dense tensor owned by the host. Copies are deep. Typed access checks
/// the dtype: asking for another element type aborts.
class HostTensor {
public:
  /// An invalid tensor (kInvalid, no elements).
  HostTensor() = default;
  /// Zeros (empty strings) of `dtype` and `shape`.
  HostTensor(DType dtype, std::vector<int64_t> shape);
  /// `values` in row-major order, reshaped to `shape` (their count must
  /// be the shape's element count).
  template <typename T>
  HostTensor(const std::vector<T> &values, std::vector<int64_t> shape)
      : HostTensor(dtypeOf<T>(), std::move(shape)) {
    if (values.size() != static_cast<size_t>(numElements_))
      detail::badElementCount(values.size(), numElements_);
    for (size_t i = 0; i < values.size(); ++i)
      set<T>(static_cast<int64_t>(i), values[i]);
  }
  /// A vector (rank 1).
  template <typename T>
  explicit HostTensor(const std::vector<T> &values)
      : HostTensor(values, {static_cast<int64_t>(values.size())}) {}
  /// HostTensor::of<float>({1, 2, 3, 4}, {2, 2}).
  template <typename T>
  static HostTensor of(std::initializer_list<T> values, std::vector<int64_t> shape) {
    return HostTensor(std::vector<T>(values), std::move(shape));
  }
  template <typename T> static HostTensor of(std::initializer_list<T> values) {
    return HostTensor(std::vector<T>(values));
  }
  /// A scalar (rank 0); a const char* makes a string scalar.
  template <typename T> static HostTensor scalar(T v) {
    return HostTensor(std::vector<T>{std::move(v)}, {});
  }
  static HostTensor scalar(const char *s) { return scalar(std::string(s)); }

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t numElements() const { return numElements_; }

  /// The elements of a numeric or bool tensor (bool is one byte each).
  template <typename T> const T *data() const {
    static_assert(!std::is_same_v<T, std::string>, "use strings() for string tensors");
    checkDType<T>();
    return reinterpret_cast<const T *>(bytes_.data());
  }
  template <typename T> T *data() {
    static_assert(!std::is_same_v<T, std::string>, "use strings() for string tensors");
    checkDType<T>();
    return reinterpret_cast<T *>(bytes_.data());
  }
  /// The elements of a string tensor.
  const std::vector<std::string> &strings() const {
    checkDType<std::string>();
    return strings_;
  }
  std::vector<std::string> &strings() {
    checkDType<std::string>();
    return strings_;
  }
  /// Element i (row-major) as T, which must be the tensor's element type.
  template <typename T> T at(int64_t i) const {
    if constexpr (std::is_same_v<T, std::string>)
      return strings()[i];
    else
      return data<T>()[i];
  }
  /// The only element of a one-element tensor.
  template <typename T> T scalarValue() const { return at<T>(0); }
  /// Every element, row-major.
  template <typename T> std::vector<T> values() const {
    std::vector<T> out;
    out.reserve(numElements_);
    for (int64_t i = 0; i < numElements_; ++i)
      out.push_back(at<T>(i));
    return out;
  }
  template <typename T> void set(int64_t i, T v) {
    if constexpr (std::is_same_v<T, std::string>)
      strings()[i] = std::move(v);
    else
      data<T>()[i] = v;
  }

  /// Element i of a numeric or bool tensor as a double (f16 included).
  double elementAsDouble(int64_t i) const;
  /// Element i as text, strings unquoted.
  std::string elementString(int64_t i) const;
  /// The raw bytes of a numeric or bool tensor (empty for strings).
  const std::vector<unsigned char> &bytes() const { return bytes_; }
  std::vector<unsigned char> &bytes() { return bytes_; }

  /// numpy-style text, as the language prints it: `[[1 2] [3 4]]`.
  std::string toString() const;
  /// "f32[2,3]".
  std::string typeString() const;

  /// Same dtype, shape and elements (NaN differs from NaN).
  bool operator==(const HostTensor &o) const;
  bool operator!=(const HostTensor &o) const { return !(*this == o); }

private:
  template <typename T> void checkDType() const {
    if (dtype_ != dtypeOf<T>())
      detail::dtypeMismatch(dtypeOf<T>(), dtype_);
  }
  DType dtype_ = DType::kInvalid;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  std::vector<unsigned char> bytes_;  // numeric and bool
  std::vector<std::string> strings_; // string
};

/// gtest prints tensors with this.
void PrintTo(const HostTensor &t, std::ostream *os);

} // namespace sluice
