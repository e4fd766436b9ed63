// ir/tensor.cc: tensor storage and element access.
#include "ir/tensor.h"

#include "ir/buffer_pool.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

namespace sluice::ir {

struct Tensor::Buffer {
  void *data = nullptr;
  size_t capacity = 0; // what allocateBuffer gave (ir/buffer_pool.h)
  std::vector<std::string> strings;
  std::vector<std::shared_ptr<const VariantValue>> variants;
  ~Buffer() { releaseBuffer(data, capacity); }
};

namespace {
constexpr size_t kInlineBytes = 16;
} // namespace

Tensor Tensor::uninitialized(DType dtype, Dims dims) {
  Tensor t;
  t.dtype_ = dtype;
  t.numElements_ = ir::numElements(dims);
  t.dims_ = std::move(dims);
  if (!isPod(dtype)) {
    t.buf_ = std::make_shared<Buffer>();
    if (dtype == DType::kVariant)
      t.buf_->variants.resize(t.numElements_);
    else
      t.buf_->strings.resize(t.numElements_);
    return t;
  }
  size_t bytes = t.byteSize();
  if (bytes > kInlineBytes) {
    t.buf_ = std::make_shared<Buffer>();
    t.buf_->data = allocateBuffer(bytes, &t.buf_->capacity);
    if (!t.buf_->data)
      throw std::bad_alloc();
  }
  return t;
}

Tensor::Tensor(DType dtype, Dims dims) {
  *this = uninitialized(dtype, std::move(dims));
  if (isPod(dtype))
    std::memset(rawData(), 0, byteSize());
}

Tensor Tensor::scalarString(std::string s) {
  Tensor t = uninitialized(DType::kString, {});
  t.strings()[0] = std::move(s);
  return t;
}

void *Tensor::rawData() {
  assert(!device_ && "host code read a tensor in device memory");
  if (buf_)
    return buf_->data;
  return inline_;
}
const void *Tensor::rawData() const {
  assert(!device_ && "host code read a tensor in device memory");
  if (buf_)
    return buf_->data;
  return inline_;
}
std::string *Tensor::strings() { return buf_->strings.data(); }
const std::string *Tensor::strings() const { return buf_->strings.data(); }
std::shared_ptr<const VariantValue> *Tensor::variants() { return buf_->variants.data(); }
const std::shared_ptr<const VariantValue> *Tensor::variants() const {
  return buf_->variants.data();
}

Tensor Tensor::scalarVariant(std::shared_ptr<const VariantValue> v) {
  Tensor t = uninitialized(DType::kVariant, {});
  t.variants()[0] = std::move(v);
  return t;
}

Tensor Tensor::onDevice(DType dtype, Dims dims, std::shared_ptr<DeviceMemory> mem) {
  assert(isPod(dtype) && mem && "device tensors hold numbers");
  Tensor t;
  t.dtype_ = dtype;
  t.numElements_ = ir::numElements(dims);
  t.dims_ = std::move(dims);
  assert(mem->bytes() >= t.byteSize());
  t.device_ = std::move(mem);
  return t;
}

Expected<Tensor> Tensor::toHost() const {
  if (!device_)
    return *this;
  Tensor t = uninitialized(dtype_, dims_);
  if (t.byteSize() > 0)
    SLUICE_TRY(device_->copyToHost(t.rawData()));
  return t;
}

Tensor Tensor::reshaped(Dims dims) const {
  assert(ir::numElements(dims) == numElements_);
  Tensor t = *this;
  t.dims_ = std::move(dims);
  return t;
}

Tensor Tensor::deepCopy() const {
  if (device_) { // a host copy is already a copy of its own
    auto host = toHost();
    return host.hasValue() ? *host : Tensor();
  }
  Tensor t = uninitialized(dtype_, dims_);
  if (isPod(dtype_))
    std::memcpy(t.rawData(), rawData(), byteSize());
  else if (valid()) {
    t.buf_->strings = buf_->strings;
    t.buf_->variants = buf_->variants;
  }
  return t;
}

double Tensor::elementAsDouble(int64_t i) const {
  double out = 0;
  dispatchPod(dtype_, [&](auto tag) {
    using T = decltype(tag);
    out = static_cast<double>(static_cast<const T *>(rawData())[i]);
  });
  return out;
}

int64_t Tensor::elementAsInt(int64_t i) const {
  int64_t out = 0;
  dispatchPod(dtype_, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, Half>)
      out = static_cast<int64_t>(static_cast<float>(static_cast<const T *>(rawData())[i]));
    else
      out = static_cast<int64_t>(static_cast<const T *>(rawData())[i]);
  });
  return out;
}

bool Tensor::equals(const Tensor &o) const {
  if (device_ || o.device_) {
    auto a = toHost(), b = o.toHost();
    return a.hasValue() && b.hasValue() && a->equals(*b);
  }
  if (dtype_ != o.dtype_ || dims_ != o.dims_)
    return false;
  if (dtype_ == DType::kVariant) {
    for (int64_t i = 0; i < numElements_; ++i)
      if (variants()[i] != o.variants()[i])
        return false;
    return true;
  }
  if (!isPod(dtype_)) {
    for (int64_t i = 0; i < numElements_; ++i)
      if (strings()[i] != o.strings()[i])
        return false;
    return true;
  }
  bool same = true;
  dispatchPod(dtype_, [&](auto tag) {
    using T = decltype(tag);
    const T *a = static_cast<const T *>(rawData());
    const T *b = static_cast<const T *>(o.rawData());
    for (int64_t i = 0; i < numElements_ && same; ++i) {
      if constexpr (std::is_same_v<T, Half>)
        same = static_cast<float>(a[i]) == static_cast<float>(b[i]);
      else
        same = a[i] == b[i];
    }
  });
  return same;
}

} // namespace sluice::ir
