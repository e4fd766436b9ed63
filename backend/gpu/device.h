// backend/gpu/device.h: one GPU as Sluice uses it: its primary context,
// one stream that every copy and kernel of the device is queued on (so
// work runs in the order it was issued, with no further synchronization),
// device memory from the driver's allocator behind a small cache, and the
// kernels it loaded.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/gpu/driver_api.h"
#include "ir/tensor.h"

namespace sluice::backend::gpu {

class Device;

/// A cuMemAlloc'd block, freed (cuMemFree) when the last tensor sharing
/// it goes; the host sees it only through copyToHost.
class DeviceBuffer final : public ir::DeviceMemory {
public:
  DeviceBuffer(std::shared_ptr<Device> dev, CUdeviceptr ptr, size_t bytes, size_t capacity)
      : dev_(std::move(dev)), ptr_(ptr), bytes_(bytes), capacity_(capacity) {}
  ~DeviceBuffer() override;
  std::string deviceName() const override;
  uint64_t address() const override { return ptr_; }
  size_t bytes() const override { return bytes_; }
  Status copyToHost(void *dst) const override;
  Device &device() const { return *dev_; }

private:
  std::shared_ptr<Device> dev_;
  CUdeviceptr ptr_;
  size_t bytes_;
  size_t capacity_; // the size class it was allocated as
};

/// What a device's allocator has handed out (tests check for leaks).
struct MemoryStats {
  int64_t liveBuffers = 0; // held by tensors
  int64_t liveBytes = 0;
  int64_t allocations = 0;  // cuMemAlloc calls, ever
  int64_t cachedBytes = 0;  // freed by tensors, kept for reuse
};

class Device : public std::enable_shared_from_this<Device> {
public:
  /// Retains device `ordinal`'s primary context and creates its stream.
  static Expected<std::shared_ptr<Device>> open(std::shared_ptr<const DriverApi> api,
                                                int ordinal);
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  int ordinal() const { return ordinal_; }
  /// "GPU:0", for messages.
  std::string label() const { return "GPU:" + std::to_string(ordinal_); }
  const std::string &name() const { return name_; }   // "NVIDIA H200"
  int computeCapability() const { return cc_; }        // major * 10 + minor
  int multiprocessors() const { return sms_; }
  size_t totalMemory() const { return totalMem_; }
  /// The memory bandwidth the clock and bus width promise, in GB/s (0
  /// when the driver does not say).
  double theoreticalBandwidth() const { return peakGBs_; }
  const DriverApi &api() const { return *api_; }
  CUstream stream() const { return stream_; }

  /// Makes the device's context current on the calling thread; every
  /// method below does it first (executor threads come and go).
  Status makeCurrent() const;

  /// `bytes` of device memory (none for 0 bytes: address 0): a cached
  /// block of its size class when there is one, else cuMemAlloc (which,
  /// out of memory, is retried once the cache is freed). Reuse needs no
  /// synchronization: the block's last users were queued on the stream
  /// the new ones will be.
  Expected<std::shared_ptr<DeviceBuffer>> allocate(size_t bytes);
  /// Gives the cached blocks back to the driver (cuMemFree).
  void releaseCached();
  /// A tensor of this device's memory, contents undefined.
  Expected<ir::Tensor> allocateTensor(ir::DType dtype, ir::Dims dims);
  /// A device copy of host tensor `t`, queued on the stream. The host
  /// contents may change once it returns: the driver stages pageable
  /// memory before a copy from it returns.
  Expected<ir::Tensor> upload(const ir::Tensor &t);
  /// `t` on this device: itself when it is already here, else a copy.
  Expected<ir::Tensor> place(const ir::Tensor &t);

  /// Queue copies on the stream; copyToHost then waits for the stream.
  Status copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
  Status copyToHost(void *dst, CUdeviceptr src, size_t bytes);
  Status copyOnDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
  Status synchronize();

  /// Kernel `entry` of the PTX module `ptx`, loaded (cuModuleLoadDataEx)
  /// once per device and module text.
  Expected<CUfunction> function(const std::string &ptx, const std::string &entry);
  /// Queues `f` over `count` elements: 256-thread blocks, enough blocks
  /// to fill the device (the kernels' grid-stride loops cover the rest).
  /// `params` point at each parameter's value, as cuLaunchKernel takes.
  Status launch(CUfunction f, int64_t count, void **params);

  MemoryStats memoryStats() const;

private:
  Device(std::shared_ptr<const DriverApi> api, int ordinal) : api_(std::move(api)), ordinal_(ordinal) {}
  friend class DeviceBuffer;
  void release(CUdeviceptr ptr, size_t bytes, size_t capacity);

  std::shared_ptr<const DriverApi> api_;
  int ordinal_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUstream stream_ = nullptr;
  std::string name_;
  int cc_ = 0, sms_ = 1;
  size_t totalMem_ = 0;
  double peakGBs_ = 0;
  std::atomic<int64_t> liveBuffers_{0}, liveBytes_{0}, allocations_{0};
  mutable std::mutex cacheMu_;
  std::multimap<size_t, CUdeviceptr> cache_; // free blocks by size class
  size_t cachedBytes_ = 0;                   // guarded by cacheMu_
  size_t cacheLimit_ = 0;                    // set by open()
  std::mutex modulesMu_;
  std::map<std::string, CUmodule> modules_; // by PTX text
};

} // namespace sluice::backend::gpu
