// api/host_tensor.cc: HostTensor, and its conversions to and from the
// runtime's ir::Tensor.
#include "sluice/host_tensor.h"

#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "api/detail/program_impl.h"
#include "ir/tensor.h"

namespace sluice {

namespace {
struct DTypeRow {
  DType pub;
  ir::DType internal;
};
constexpr DTypeRow kDTypes[] = {
    {DType::kFloat16, ir::DType::kF16}, {DType::kFloat32, ir::DType::kF32},
    {DType::kFloat64, ir::DType::kF64}, {DType::kInt8, ir::DType::kI8},
    {DType::kInt16, ir::DType::kI16},   {DType::kInt32, ir::DType::kI32},
    {DType::kInt64, ir::DType::kI64},   {DType::kUInt8, ir::DType::kU8},
    {DType::kBool, ir::DType::kBool},   {DType::kString, ir::DType::kString},
};
} // namespace

ir::DType api::toInternal(DType t) {
  for (const auto &r : kDTypes)
    if (r.pub == t)
      return r.internal;
  return ir::DType::kInvalid;
}

DType api::toPublic(ir::DType t) {
  for (const auto &r : kDTypes)
    if (r.internal == t)
      return r.pub;
  return DType::kInvalid;
}

std::string_view dtypeName(DType t) {
  return t == DType::kInvalid ? "invalid" : ir::dtypeName(api::toInternal(t));
}

size_t dtypeSize(DType t) {
  return t == DType::kInvalid ? 0 : ir::dtypeSize(api::toInternal(t));
}

[[noreturn]] void detail::dtypeMismatch(DType wanted, DType actual) {
  std::fprintf(stderr, "sluice: HostTensor dtype mismatch: %s elements asked of a %s tensor\n",
               std::string(dtypeName(wanted)).c_str(), std::string(dtypeName(actual)).c_str());
  std::abort();
}

[[noreturn]] void detail::badElementCount(size_t values, int64_t shapeElements) {
  std::fprintf(stderr, "sluice: HostTensor: %zu values for a shape of %lld elements\n", values,
               static_cast<long long>(shapeElements));
  std::abort();
}

HostTensor::HostTensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  numElements_ = 1;
  for (int64_t d : shape_)
    numElements_ *= d;
  if (dtype_ == DType::kString)
    strings_.resize(numElements_);
  else
    bytes_.assign(numElements_ * dtypeSize(dtype_), 0);
}

double HostTensor::elementAsDouble(int64_t i) const {
  return api::toInternal(*this).elementAsDouble(i);
}

std::string HostTensor::elementString(int64_t i) const {
  return ir::formatElement(api::toInternal(*this), i);
}

std::string HostTensor::toString() const {
  if (!valid())
    return "<invalid tensor>";
  return ir::formatTensor(api::toInternal(*this));
}

std::string HostTensor::typeString() const {
  std::string s(dtypeName(dtype_));
  s += '[';
  for (size_t i = 0; i < shape_.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape_[i]);
  return s + ']';
}

bool HostTensor::operator==(const HostTensor &o) const {
  if (dtype_ != o.dtype_ || shape_ != o.shape_)
    return false;
  if (dtype_ == DType::kString)
    return strings_ == o.strings_;
  if (dtype_ == DType::kFloat32 || dtype_ == DType::kFloat64 || dtype_ == DType::kFloat16) {
    for (int64_t i = 0; i < numElements_; ++i)
      if (!(elementAsDouble(i) == o.elementAsDouble(i)))
        return false;
    return true;
  }
  return bytes_ == o.bytes_;
}

void PrintTo(const HostTensor &t, std::ostream *os) {
  *os << t.typeString() << ' ' << t.toString();
}

Expected<HostTensor> api::toHost(const ir::Tensor &t) {
  DType d = toPublic(t.dtype());
  if (d == DType::kInvalid)
    return invalidArgument("cannot fetch a tensor of dtype " +
                           std::string(ir::dtypeName(t.dtype())) + " to the host");
  HostTensor h(d, t.dims());
  if (d == DType::kString) {
    for (int64_t i = 0; i < t.numElements(); ++i)
      h.strings()[i] = t.strings()[i];
  } else if (t.byteSize() > 0) {
    std::memcpy(h.bytes().data(), t.rawData(), t.byteSize());
  }
  return h;
}

ir::Tensor api::toInternal(const HostTensor &h) {
  ir::Tensor t = ir::Tensor::uninitialized(toInternal(h.dtype()), h.shape());
  if (h.dtype() == DType::kString) {
    for (int64_t i = 0; i < h.numElements(); ++i)
      t.strings()[i] = h.strings()[i];
  } else if (!h.bytes().empty()) {
    std::memcpy(t.rawData(), h.bytes().data(), h.bytes().size());
  }
  return t;
}

} // namespace sluice
