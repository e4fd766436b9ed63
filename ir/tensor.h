// ir/tensor.h: a dense n-dimensional value. Constants in the IR hold one;
// kernels read and write them; the runtime passes them between ops.
//
// Tensors share their buffer on copy (like TF's Tensor). Small numeric
// tensors (16 bytes or less) live inline, so scalar values cost no
// allocation: that keeps the executor's per-op overhead low.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape.h"
#include "support/status.h"

namespace sluice::ir {

/// The element of a variant tensor: an immutable runtime value that the IR
/// only passes around (a dataset). Shared, never copied.
class VariantValue {
public:
  virtual ~VariantValue() = default;
  /// What it is, for messages and printing: "dataset".
  virtual std::string typeName() const = 0;
  virtual std::string debugString() const { return "<" + typeName() + ">"; }
};

/// A tensor's contents in an accelerator's memory (backend/gpu owns the
/// implementation): host code cannot read it, only ask for a host copy.
/// Freed when the last tensor sharing it goes.
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  /// The device holding it, for messages ("GPU:0").
  virtual std::string deviceName() const = 0;
  /// The device address (a CUdeviceptr) and the size in bytes.
  virtual uint64_t address() const = 0;
  virtual size_t bytes() const = 0;
  /// Copies all bytes() into host memory at `dst`, waiting until done.
  virtual Status copyToHost(void *dst) const = 0;
};

class Tensor {
public:
  /// An empty, invalid tensor (dtype kInvalid).
  Tensor() = default;
  /// Allocates a tensor; numeric contents are zeroed, strings empty.
  Tensor(DType dtype, Dims dims);
  /// A tensor whose numeric contents are left uninitialized, for kernels
  /// that write every element.
  static Tensor uninitialized(DType dtype, Dims dims);

  template <typename T> static Tensor scalar(T v) {
    Tensor t = uninitialized(DTypeOf<T>::value, {});
    *t.data<T>() = v;
    return t;
  }
  static Tensor scalarString(std::string s);
  template <typename T>
  static Tensor fromVector(const std::vector<T> &v, Dims dims) {
    Tensor t = uninitialized(DTypeOf<T>::value, std::move(dims));
    assert(static_cast<size_t>(t.numElements()) == v.size());
    for (size_t i = 0; i < v.size(); ++i)
      t.data<T>()[i] = v[i];
    return t;
  }
  template <typename T> static Tensor fromVector(const std::vector<T> &v) {
    return fromVector(v, Dims{static_cast<int64_t>(v.size())});
  }

  bool valid() const { return dtype_ != DType::kInvalid; }
  DType dtype() const { return dtype_; }
  const Dims &dims() const { return dims_; }
  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  int64_t numElements() const { return numElements_; }
  size_t byteSize() const { return numElements_ * dtypeSize(dtype_); }

  template <typename T> T *data() {
    assert(DTypeOf<T>::value == dtype_ && "tensor dtype mismatch");
    return static_cast<T *>(rawData());
  }
  template <typename T> const T *data() const {
    assert(DTypeOf<T>::value == dtype_ && "tensor dtype mismatch");
    return static_cast<const T *>(rawData());
  }
  void *rawData();
  const void *rawData() const;
  /// String (and resource-key) elements.
  std::string *strings();
  const std::string *strings() const;
  /// Variant elements (dtype variant).
  std::shared_ptr<const VariantValue> *variants();
  const std::shared_ptr<const VariantValue> *variants() const;
  static Tensor scalarVariant(std::shared_ptr<const VariantValue> v);

  template <typename T> T scalarValue() const { return data<T>()[0]; }

  /// A numeric tensor whose contents live in `mem` (at least byteSize()
  /// bytes). Its rawData() is null: only device kernels use it.
  static Tensor onDevice(DType dtype, Dims dims, std::shared_ptr<DeviceMemory> mem);
  /// Whether the contents are in device memory (not readable by host code).
  bool isOnDevice() const { return device_ != nullptr; }
  const std::shared_ptr<DeviceMemory> &deviceMemory() const { return device_; }
  /// This tensor if it is in host memory, else a host copy of it.
  Expected<Tensor> toHost() const;

  /// Same buffer, new dims with the same element count.
  Tensor reshaped(Dims dims) const;
  /// A copy with its own buffer (for kernels that write in place).
  Tensor deepCopy() const;
  /// Whether no other Tensor shares the buffer (safe to write in place).
  bool isSoleOwner() const { return !buf_ || buf_.use_count() == 1; }

  /// Element i converted to double (numeric and bool dtypes).
  double elementAsDouble(int64_t i) const;
  /// Element i converted to int64 (integer and bool dtypes).
  int64_t elementAsInt(int64_t i) const;

  /// Exact equality of dtype, dims and every element (NaN != NaN).
  bool equals(const Tensor &o) const;

private:
  struct Buffer;
  DType dtype_ = DType::kInvalid;
  Dims dims_;
  int64_t numElements_ = 0;
  std::shared_ptr<Buffer> buf_;
  std::shared_ptr<DeviceMemory> device_; // set: the contents are there, not in buf_
  alignas(16) unsigned char inline_[16] = {};
};

/// numpy-style text: `1.5`, `[1 2 3]`, `[[1 2] [3 4]]`, strings quoted.
std::string formatTensor(const Tensor &t);
/// One element as text (no quotes around strings).
std::string formatElement(const Tensor &t, int64_t i);

} // namespace sluice::ir
