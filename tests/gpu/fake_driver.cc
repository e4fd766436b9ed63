// tests/gpu/fake_driver.cc: the fake CUDA driver's entry points.
#include "tests/gpu/fake_driver.h"

#include <cstdlib>
#include <cstring>

namespace sluice::gputest {

namespace {

using namespace backend::gpu;

constexpr CUresult kInvalidValue = 1, kOutOfMemory = 2, kInvalidDevice = 101,
                   kNotFound = 500, kInvalidHandle = 400;

FakeGpu state;
std::mutex mu;

#define LOCK std::lock_guard<std::mutex> lock(mu)

CUresult init(unsigned) { LOCK; return state.initResult; }
CUresult count(int *n) { LOCK; *n = state.devices; return 0; }
CUresult get(CUdevice *d, int i) {
  LOCK;
  if (i < 0 || i >= state.devices)
    return kInvalidDevice;
  *d = i;
  return 0;
}
CUresult name(char *out, int len, CUdevice d) {
  LOCK;
  std::string n = state.name + " " + std::to_string(d);
  std::strncpy(out, n.c_str(), static_cast<size_t>(len));
  return 0;
}
CUresult attribute(int *v, int attr, CUdevice) {
  LOCK;
  switch (attr) {
  case kAttrComputeCapabilityMajor: *v = state.ccMajor; return 0;
  case kAttrComputeCapabilityMinor: *v = state.ccMinor; return 0;
  case kAttrMultiprocessorCount: *v = state.sms; return 0;
  case kAttrMemoryClockRate: *v = 1000000; return 0; // 1 GHz
  case kAttrGlobalMemoryBusWidth: *v = 256; return 0;
  default: return kInvalidValue;
  }
}
CUresult totalMem(size_t *b, CUdevice) { *b = size_t(16) << 30; return 0; }
CUresult retain(CUcontext *c, CUdevice d) {
  LOCK;
  ++state.retainedContexts;
  *c = reinterpret_cast<CUcontext>(uintptr_t(0x1000 + d));
  return 0;
}
CUresult ctxRelease(CUdevice) { LOCK; --state.retainedContexts; return 0; }
CUresult setCurrent(CUcontext) { LOCK; ++state.currentCalls; return 0; }
CUresult alloc(CUdeviceptr *p, size_t bytes) {
  LOCK;
  if (bytes == 0)
    return kInvalidValue; // as the real driver
  if (state.allocLimit >= 0 && state.liveBytes + int64_t(bytes) > state.allocLimit)
    return kOutOfMemory;
  void *m = std::malloc(bytes);
  *p = reinterpret_cast<CUdeviceptr>(m);
  state.live[*p] = bytes;
  state.liveBytes += int64_t(bytes);
  ++state.allocs;
  return 0;
}
CUresult memFree(CUdeviceptr p) {
  LOCK;
  auto it = state.live.find(p);
  if (it == state.live.end())
    return kInvalidValue;
  state.liveBytes -= int64_t(it->second);
  state.live.erase(it);
  std::free(reinterpret_cast<void *>(p));
  ++state.frees;
  return 0;
}
bool validStream(CUstream s) { return state.streams.count(reinterpret_cast<uintptr_t>(s)) > 0; }
CUresult htod(CUdeviceptr d, const void *h, size_t n, CUstream s) {
  LOCK;
  if (!validStream(s))
    return kInvalidHandle;
  state.copyStreams.insert(reinterpret_cast<uintptr_t>(s));
  ++state.htod;
  std::memcpy(reinterpret_cast<void *>(d), h, n);
  return 0;
}
CUresult dtoh(void *h, CUdeviceptr d, size_t n, CUstream s) {
  LOCK;
  if (!validStream(s))
    return kInvalidHandle;
  state.copyStreams.insert(reinterpret_cast<uintptr_t>(s));
  ++state.dtoh;
  std::memcpy(h, reinterpret_cast<void *>(d), n);
  return 0;
}
CUresult dtod(CUdeviceptr d, CUdeviceptr src, size_t n, CUstream s) {
  LOCK;
  if (!validStream(s))
    return kInvalidHandle;
  ++state.dtod;
  std::memcpy(reinterpret_cast<void *>(d), reinterpret_cast<void *>(src), n);
  return 0;
}
uintptr_t nextHandle = 0x5000;
CUresult streamCreate(CUstream *s, unsigned) {
  LOCK;
  uintptr_t h = nextHandle++;
  state.streams.insert(h);
  *s = reinterpret_cast<CUstream>(h);
  return 0;
}
CUresult streamSync(CUstream s) {
  LOCK;
  ++state.syncs;
  return validStream(s) ? 0 : kInvalidHandle;
}
CUresult streamDestroy(CUstream s) {
  LOCK;
  return state.streams.erase(reinterpret_cast<uintptr_t>(s)) ? 0 : kInvalidHandle;
}
// Modules are indices into state.modules (+1); functions index a table
// of entry names.
std::vector<std::string> functionNames;
CUresult moduleLoad(CUmodule *m, const void *image, unsigned, CUjit_option *, void **values) {
  LOCK;
  if (state.moduleLoadResult != 0) {
    std::strcpy(static_cast<char *>(values[0]), "fake ptx error log");
    return state.moduleLoadResult;
  }
  state.modules.emplace_back(static_cast<const char *>(image));
  *m = reinterpret_cast<CUmodule>(uintptr_t(state.modules.size()));
  return 0;
}
CUresult getFunction(CUfunction *f, CUmodule m, const char *entry) {
  LOCK;
  size_t k = reinterpret_cast<uintptr_t>(m);
  if (k == 0 || k > state.modules.size())
    return kInvalidHandle;
  if (state.modules[k - 1].find(".entry " + std::string(entry)) == std::string::npos)
    return kNotFound;
  functionNames.emplace_back(entry);
  *f = reinterpret_cast<CUfunction>(uintptr_t(functionNames.size()));
  return 0;
}
CUresult unload(CUmodule) { return 0; }
CUresult launch(CUfunction f, unsigned gx, unsigned, unsigned, unsigned bx, unsigned, unsigned,
                unsigned, CUstream s, void **params, void **) {
  std::function<void(void **)> kernel;
  {
    LOCK;
    if (!validStream(s))
      return kInvalidHandle;
    std::string entry = functionNames.at(reinterpret_cast<uintptr_t>(f) - 1);
    state.launches.push_back({entry, gx, bx, reinterpret_cast<uintptr_t>(s)});
    for (auto &[prefix, k] : state.kernels)
      if (entry.rfind(prefix, 0) == 0)
        kernel = k;
    if (!kernel)
      return kNotFound;
  }
  kernel(params);
  return 0;
}
CUresult errorName(CUresult r, const char **out) {
  static const std::map<CUresult, const char *> names = {
      {0, "CUDA_SUCCESS"}, {1, "CUDA_ERROR_INVALID_VALUE"}, {2, "CUDA_ERROR_OUT_OF_MEMORY"},
      {100, "CUDA_ERROR_NO_DEVICE"}, {101, "CUDA_ERROR_INVALID_DEVICE"},
      {218, "CUDA_ERROR_INVALID_PTX"}, {400, "CUDA_ERROR_INVALID_HANDLE"},
      {500, "CUDA_ERROR_NOT_FOUND"}};
  auto it = names.find(r);
  if (it == names.end())
    return kInvalidValue;
  *out = it->second;
  return 0;
}
CUresult errorString(CUresult r, const char **out) {
  if (r == 2) {
    *out = "out of memory";
    return 0;
  }
  return kInvalidValue; // the message then has the name alone
}

// Column-major C = op(A) op(B), as cuBLAS; "device" pointers are host ones.
template <typename T>
int gemm(CublasHandle, int ta, int tb, int m, int n, int k, const T *alpha, const T *a, int lda,
         const T *b, int ldb, const T *beta, T *c, int ldc) {
  {
    LOCK;
    ++state.gemms;
  }
  auto at = [](const T *x, int ld, bool t, int r, int col) {
    return t ? x[col + static_cast<int64_t>(r) * ld] : x[r + static_cast<int64_t>(col) * ld];
  };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T sum = 0;
      for (int p = 0; p < k; ++p)
        sum += at(a, lda, ta == kCublasOpT, i, p) * at(b, ldb, tb == kCublasOpT, p, j);
      T &out = c[i + static_cast<int64_t>(j) * ldc];
      out = *alpha * sum + (*beta == 0 ? T(0) : *beta * out);
    }
  return 0;
}
int blasCreate(CublasHandle *h) {
  {
    LOCK;
    if (state.blasCreateResult != 0)
      return state.blasCreateResult;
  }
  *h = reinterpret_cast<CublasHandle>(uintptr_t(0x9000));
  return 0;
}
int blasDestroy(CublasHandle) { return 0; }
int blasSetStream(CublasHandle, CUstream s) {
  LOCK;
  state.blasStreams.insert(reinterpret_cast<uintptr_t>(s));
  return 0;
}

} // namespace

BlasApi fakeBlas() {
  BlasApi b;
  b.cublasCreate = blasCreate;
  b.cublasDestroy = blasDestroy;
  b.cublasSetStream = blasSetStream;
  b.cublasSgemm = gemm<float>;
  b.cublasDgemm = gemm<double>;
  b.source = "fake cuBLAS";
  return b;
}

FakeGpu &fake() { return state; }
std::mutex &fakeMutex() { return mu; }

void resetFake(int devices) {
  LOCK;
  for (auto &[p, n] : state.live)
    std::free(reinterpret_cast<void *>(p));
  state = FakeGpu();
  state.devices = devices;
  functionNames.clear();
}

DriverApi fakeDriver() {
  DriverApi a;
  a.cuInit = init;
  a.cuDeviceGetCount = count;
  a.cuDeviceGet = get;
  a.cuDeviceGetName = name;
  a.cuDeviceGetAttribute = attribute;
  a.cuDeviceTotalMem = totalMem;
  a.cuDevicePrimaryCtxRetain = retain;
  a.cuDevicePrimaryCtxRelease = ctxRelease;
  a.cuCtxSetCurrent = setCurrent;
  a.cuMemAlloc = alloc;
  a.cuMemFree = memFree;
  a.cuMemcpyHtoDAsync = htod;
  a.cuMemcpyDtoHAsync = dtoh;
  a.cuMemcpyDtoDAsync = dtod;
  a.cuStreamCreate = streamCreate;
  a.cuStreamSynchronize = streamSync;
  a.cuStreamDestroy = streamDestroy;
  a.cuModuleLoadDataEx = moduleLoad;
  a.cuModuleGetFunction = getFunction;
  a.cuModuleUnload = unload;
  a.cuLaunchKernel = launch;
  a.cuGetErrorName = errorName;
  a.cuGetErrorString = errorString;
  a.source = "fake driver";
  return a;
}

} // namespace sluice::gputest
