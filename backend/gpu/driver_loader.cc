// backend/gpu/driver_loader.cc: opens the CUDA driver with dlopen and
// resolves its entry points, so the same binary runs with or without a
// GPU (a link-time -lcuda would fail to start where there is none).
#include <dlfcn.h>

#include <cstdlib>

#include "backend/gpu/driver_api.h"
#include "support/settings.h"

namespace sluice::backend::gpu {

namespace {

// The codes a driver that cannot name them is likely to return (cuda.h).
const char *knownErrorName(CUresult r) {
  switch (r) {
  case 3: return "CUDA_ERROR_NOT_INITIALIZED";
  case 34: return "CUDA_ERROR_STUB_LIBRARY";
  case 35: return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 100: return "CUDA_ERROR_NO_DEVICE";
  default: return nullptr;
  }
}

template <typename F> bool resolve(void *lib, const char *name, F &slot, std::string &missing) {
  slot = reinterpret_cast<F>(::dlsym(lib, name));
  if (!slot && missing.empty())
    missing = name;
  return slot != nullptr;
}

} // namespace

Expected<DriverApi> loadDriver(const std::string &path) {
  ::dlerror();
  void *lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    // glibc's message starts with the path it tried.
    const char *err = ::dlerror();
    std::string why = err ? err : path + ": unknown error";
    if (why.find(path) == std::string::npos)
      why = path + ": " + why;
    return Status(Code::kNotFound, "cannot open the CUDA driver (" + why + ")");
  }
  DriverApi api;
  api.source = path;
  api.library = std::shared_ptr<void>(lib, [](void *h) { ::dlclose(h); });
  std::string missing;
  // The `_v2` names are the ones cuda.h's macros select since CUDA 3.2
  // (64-bit sizes and pointers); the plain names are the old ABI.
  resolve(lib, "cuInit", api.cuInit, missing);
  resolve(lib, "cuDeviceGetCount", api.cuDeviceGetCount, missing);
  resolve(lib, "cuDeviceGet", api.cuDeviceGet, missing);
  resolve(lib, "cuDeviceGetName", api.cuDeviceGetName, missing);
  resolve(lib, "cuDeviceGetAttribute", api.cuDeviceGetAttribute, missing);
  resolve(lib, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem, missing);
  resolve(lib, "cuDevicePrimaryCtxRetain", api.cuDevicePrimaryCtxRetain, missing);
  resolve(lib, "cuDevicePrimaryCtxRelease_v2", api.cuDevicePrimaryCtxRelease, missing);
  resolve(lib, "cuCtxSetCurrent", api.cuCtxSetCurrent, missing);
  resolve(lib, "cuMemAlloc_v2", api.cuMemAlloc, missing);
  resolve(lib, "cuMemFree_v2", api.cuMemFree, missing);
  resolve(lib, "cuMemcpyHtoDAsync_v2", api.cuMemcpyHtoDAsync, missing);
  resolve(lib, "cuMemcpyDtoHAsync_v2", api.cuMemcpyDtoHAsync, missing);
  resolve(lib, "cuMemcpyDtoDAsync_v2", api.cuMemcpyDtoDAsync, missing);
  resolve(lib, "cuStreamCreate", api.cuStreamCreate, missing);
  resolve(lib, "cuStreamSynchronize", api.cuStreamSynchronize, missing);
  resolve(lib, "cuStreamDestroy_v2", api.cuStreamDestroy, missing);
  resolve(lib, "cuModuleLoadDataEx", api.cuModuleLoadDataEx, missing);
  resolve(lib, "cuModuleGetFunction", api.cuModuleGetFunction, missing);
  resolve(lib, "cuModuleUnload", api.cuModuleUnload, missing);
  resolve(lib, "cuLaunchKernel", api.cuLaunchKernel, missing);
  resolve(lib, "cuGetErrorName", api.cuGetErrorName, missing);
  resolve(lib, "cuGetErrorString", api.cuGetErrorString, missing);
  if (!missing.empty())
    return Status(Code::kNotFound,
                  "the CUDA driver library " + path + " has no entry point " + missing);
  return api;
}

Expected<DriverApi> loadDriver() {
  const std::string &path = settings()->cudaDriver;
  return loadDriver(path.empty() ? std::string("libcuda.so.1") : path);
}

Status check(const DriverApi &api, CUresult r, const char *call) {
  if (r == kCudaSuccess)
    return Status::ok();
  const char *name = nullptr, *text = nullptr;
  if (!api.cuGetErrorName || api.cuGetErrorName(r, &name) != kCudaSuccess || !name)
    name = knownErrorName(r); // CUDA's link stub names none
  if (!api.cuGetErrorString || api.cuGetErrorString(r, &text) != kCudaSuccess || !text)
    text = nullptr;
  std::string msg = std::string(call) + ": " +
                    (name ? std::string(name) : "CUDA error " + std::to_string(r));
  if (text)
    msg += " (" + std::string(text) + ")";
  return Status(r == kCudaErrorOutOfMemory ? Code::kResourceExhausted : Code::kInternal, msg);
}

} // namespace sluice::backend::gpu
