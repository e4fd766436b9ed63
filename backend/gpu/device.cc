// backend/gpu/device.cc: a GPU's context, stream, memory and modules
// through the driver table (backend/gpu/driver_api.h).
#include "backend/gpu/device.h"

#include <algorithm>
#include <cstring>

namespace sluice::backend::gpu {

namespace {

constexpr unsigned kBlock = 256;
constexpr size_t kMiB = size_t(1) << 20;

// Size classes: 512 bytes below a MiB, 2 MiB above, so a step's buffers
// find the ones the last step freed.
size_t sizeClass(size_t bytes) {
  size_t unit = bytes < kMiB ? 512 : 2 * kMiB;
  return (bytes + unit - 1) / unit * unit;
}
constexpr unsigned kStreamNonBlocking = 1; // CU_STREAM_NON_BLOCKING: not ordered after stream 0

} // namespace

DeviceBuffer::~DeviceBuffer() { dev_->release(ptr_, bytes_, capacity_); }

std::string DeviceBuffer::deviceName() const { return dev_->label(); }

Status DeviceBuffer::copyToHost(void *dst) const { return dev_->copyToHost(dst, ptr_, bytes_); }

Expected<std::shared_ptr<Device>> Device::open(std::shared_ptr<const DriverApi> api,
                                               int ordinal) {
  std::shared_ptr<Device> d(new Device(std::move(api), ordinal));
  const DriverApi &a = *d->api_;
  SLUICE_TRY(check(a, a.cuDeviceGet(&d->dev_, ordinal), "cuDeviceGet"));
  char name[256] = {};
  SLUICE_TRY(check(a, a.cuDeviceGetName(name, sizeof name - 1, d->dev_), "cuDeviceGetName"));
  d->name_ = name;
  int major = 0, minor = 0, clockKHz = 0, busBits = 0;
  SLUICE_TRY(check(a, a.cuDeviceGetAttribute(&major, kAttrComputeCapabilityMajor, d->dev_),
                   "cuDeviceGetAttribute"));
  SLUICE_TRY(check(a, a.cuDeviceGetAttribute(&minor, kAttrComputeCapabilityMinor, d->dev_),
                   "cuDeviceGetAttribute"));
  SLUICE_TRY(check(a, a.cuDeviceGetAttribute(&d->sms_, kAttrMultiprocessorCount, d->dev_),
                   "cuDeviceGetAttribute"));
  d->sms_ = std::max(1, d->sms_);
  d->cc_ = major * 10 + minor;
  // Optional facts: a driver that does not report them leaves 0.
  if (a.cuDeviceGetAttribute(&clockKHz, kAttrMemoryClockRate, d->dev_) == kCudaSuccess &&
      a.cuDeviceGetAttribute(&busBits, kAttrGlobalMemoryBusWidth, d->dev_) == kCudaSuccess)
    d->peakGBs_ = 2.0 * clockKHz * 1e3 * (busBits / 8.0) / 1e9; // double data rate
  SLUICE_TRY(check(a, a.cuDeviceTotalMem(&d->totalMem_, d->dev_), "cuDeviceTotalMem"));
  d->cacheLimit_ = std::min<size_t>(size_t(4) << 30, d->totalMem_ / 4);
  SLUICE_TRY(check(a, a.cuDevicePrimaryCtxRetain(&d->ctx_, d->dev_), "cuDevicePrimaryCtxRetain"));
  Status s = d->makeCurrent();
  if (s.isOk())
    s = check(a, a.cuStreamCreate(&d->stream_, kStreamNonBlocking), "cuStreamCreate");
  if (!s.isOk())
    return s; // the destructor releases the context
  return d;
}

Device::~Device() {
  const DriverApi &a = *api_;
  if (ctx_) {
    if (a.cuCtxSetCurrent(ctx_) == kCudaSuccess) {
      for (auto &[size, p] : cache_)
        a.cuMemFree(p);
      for (auto &[ptx, m] : modules_)
        a.cuModuleUnload(m);
      if (stream_)
        a.cuStreamDestroy(stream_);
    }
    a.cuDevicePrimaryCtxRelease(dev_);
  }
}

Status Device::makeCurrent() const {
  return check(*api_, api_->cuCtxSetCurrent(ctx_), "cuCtxSetCurrent");
}

Expected<std::shared_ptr<DeviceBuffer>> Device::allocate(size_t bytes) {
  CUdeviceptr p = 0;
  size_t capacity = bytes > 0 ? sizeClass(bytes) : 0;
  if (capacity > 0) {
    {
      std::lock_guard<std::mutex> lock(cacheMu_);
      if (auto it = cache_.find(capacity); it != cache_.end()) {
        p = it->second;
        cache_.erase(it);
        cachedBytes_ -= capacity;
      }
    }
    if (!p) {
      SLUICE_TRY(makeCurrent());
      CUresult r = api_->cuMemAlloc(&p, capacity);
      if (r == kCudaErrorOutOfMemory) {
        releaseCached();
        r = api_->cuMemAlloc(&p, capacity);
      }
      Status s = check(*api_, r, "cuMemAlloc");
      if (!s.isOk())
        return Status(s.code(), s.message() + " allocating " + std::to_string(bytes) +
                                    " bytes on " + label());
      ++allocations_;
    }
  }
  ++liveBuffers_;
  liveBytes_ += static_cast<int64_t>(bytes);
  return std::make_shared<DeviceBuffer>(shared_from_this(), p, bytes, capacity);
}

void Device::release(CUdeviceptr ptr, size_t bytes, size_t capacity) {
  --liveBuffers_;
  liveBytes_ -= static_cast<int64_t>(bytes);
  if (!ptr)
    return;
  {
    std::lock_guard<std::mutex> lock(cacheMu_);
    if (cachedBytes_ + capacity <= cacheLimit_) {
      cache_.emplace(capacity, ptr);
      cachedBytes_ += capacity;
      return;
    }
  }
  // cuMemFree waits for work queued on the memory, so a buffer may go
  // while a kernel still reads it.
  if (makeCurrent().isOk())
    api_->cuMemFree(ptr);
}

void Device::releaseCached() {
  std::multimap<size_t, CUdeviceptr> blocks;
  {
    std::lock_guard<std::mutex> lock(cacheMu_);
    blocks.swap(cache_);
    cachedBytes_ = 0;
  }
  if (!blocks.empty() && makeCurrent().isOk())
    for (auto &[size, p] : blocks)
      api_->cuMemFree(p);
}

MemoryStats Device::memoryStats() const {
  std::lock_guard<std::mutex> lock(cacheMu_);
  return MemoryStats{liveBuffers_.load(), liveBytes_.load(), allocations_.load(),
                     static_cast<int64_t>(cachedBytes_)};
}

Expected<ir::Tensor> Device::allocateTensor(ir::DType dtype, ir::Dims dims) {
  if (!ir::isPod(dtype))
    return Status(Code::kUnimplemented, std::string(ir::dtypeName(dtype)) +
                                            " tensors cannot live in GPU memory");
  size_t bytes = static_cast<size_t>(ir::numElements(dims)) * ir::dtypeSize(dtype);
  SLUICE_ASSIGN_OR_RETURN(auto buf, allocate(bytes));
  return ir::Tensor::onDevice(dtype, std::move(dims), std::move(buf));
}

Expected<ir::Tensor> Device::upload(const ir::Tensor &t) {
  SLUICE_ASSIGN_OR_RETURN(ir::Tensor d, allocateTensor(t.dtype(), t.dims()));
  if (t.byteSize() > 0)
    SLUICE_TRY(copyToDevice(d.deviceMemory()->address(), t.rawData(), t.byteSize()));
  return d;
}

Expected<ir::Tensor> Device::place(const ir::Tensor &t) {
  if (!t.isOnDevice())
    return upload(t);
  auto *buf = dynamic_cast<const DeviceBuffer *>(t.deviceMemory().get());
  if (buf && &buf->device() == this)
    return t;
  SLUICE_ASSIGN_OR_RETURN(ir::Tensor host, t.toHost()); // another device's
  return upload(host);
}

Status Device::copyToDevice(CUdeviceptr dst, const void *src, size_t bytes) {
  SLUICE_TRY(makeCurrent());
  return check(*api_, api_->cuMemcpyHtoDAsync(dst, src, bytes, stream_), "cuMemcpyHtoDAsync");
}

Status Device::copyToHost(void *dst, CUdeviceptr src, size_t bytes) {
  SLUICE_TRY(makeCurrent());
  SLUICE_TRY(check(*api_, api_->cuMemcpyDtoHAsync(dst, src, bytes, stream_), "cuMemcpyDtoHAsync"));
  return synchronize();
}

Status Device::copyOnDevice(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  SLUICE_TRY(makeCurrent());
  return check(*api_, api_->cuMemcpyDtoDAsync(dst, src, bytes, stream_), "cuMemcpyDtoDAsync");
}

Status Device::synchronize() {
  SLUICE_TRY(makeCurrent());
  return check(*api_, api_->cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Expected<CUfunction> Device::function(const std::string &ptx, const std::string &entry) {
  SLUICE_TRY(makeCurrent());
  std::lock_guard<std::mutex> lock(modulesMu_);
  auto it = modules_.find(ptx);
  if (it == modules_.end()) {
    char log[4096] = {};
    CUjit_option opts[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
    void *values[] = {log, reinterpret_cast<void *>(sizeof log - 1)};
    CUmodule m = nullptr;
    Status s = check(*api_, api_->cuModuleLoadDataEx(&m, ptx.c_str(), 2, opts, values),
                     "cuModuleLoadDataEx");
    if (!s.isOk())
      return Status(s.code(), s.message() + (log[0] ? std::string(": ") + log : std::string()));
    it = modules_.emplace(ptx, m).first;
  }
  CUfunction f = nullptr;
  Status s = check(*api_, api_->cuModuleGetFunction(&f, it->second, entry.c_str()),
                   "cuModuleGetFunction");
  if (!s.isOk())
    return Status(s.code(), s.message() + " for kernel " + entry);
  return f;
}

Status Device::launch(CUfunction f, int64_t count, void **params) {
  if (count <= 0)
    return Status::ok();
  SLUICE_TRY(makeCurrent());
  // 32 blocks per multiprocessor keep every one busy; past that the
  // grid-stride loop gives each thread several elements.
  int64_t blocks = std::min<int64_t>((count + kBlock - 1) / kBlock, int64_t(sms_) * 32);
  return check(*api_,
               api_->cuLaunchKernel(f, static_cast<unsigned>(blocks), 1, 1, kBlock, 1, 1, 0,
                                    stream_, params, nullptr),
               "cuLaunchKernel");
}

} // namespace sluice::backend::gpu
