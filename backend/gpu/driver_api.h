// backend/gpu/driver_api.h: the few CUDA driver entry points Sluice uses,
// declared here (no cuda.h, so the build needs no CUDA) as a table of
// function pointers: loadDriver() fills it from libcuda at run time, and
// tests fill it with a fake whose "device memory" is host memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "support/status.h"

namespace sluice::backend::gpu {

// The driver's ABI types (cuda.h): an int result, integer device pointers
// and ordinals, opaque handles.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUjit_option = int;

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorOutOfMemory = 2;
constexpr CUresult kCudaErrorNoDevice = 100;
// CUdevice_attribute values (cuda.h).
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrMemoryClockRate = 36;      // kHz
constexpr int kAttrGlobalMemoryBusWidth = 37; // bits
// CUjit_option values for cuModuleLoadDataEx's error log.
constexpr CUjit_option kJitErrorLogBuffer = 5;
constexpr CUjit_option kJitErrorLogBufferSizeBytes = 6;

/// The driver entry points, resolved by name (`_v2` where the driver
/// versions them, as cuda.h's macros would pick). Every one is set in a
/// loaded table.
struct DriverApi {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *dev, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute, CUdevice dev) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                CUstream s) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes, CUstream s) = nullptr;
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes,
                                CUstream s) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *s, unsigned flags) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream s) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream s) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *m, const void *image, unsigned numOptions,
                                 CUjit_option *options, void **values) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *f, CUmodule m, const char *name) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule m) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned gridX, unsigned gridY, unsigned gridZ,
                             unsigned blockX, unsigned blockY, unsigned blockZ,
                             unsigned sharedBytes, CUstream s, void **params,
                             void **extra) = nullptr;
  CUresult (*cuGetErrorName)(CUresult r, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult r, const char **text) = nullptr;

  /// Where the table came from ("libcuda.so.1", "fake driver"), for messages.
  std::string source;
  /// Keeps the library loaded while any table copy lives (null for fakes).
  std::shared_ptr<void> library;
};

/// dlopen()s the driver: $SLUICE_CUDA_DRIVER if set, else libcuda.so.1;
/// not_found when it is missing or lacks an entry point (naming it).
Expected<DriverApi> loadDriver();
/// The same for a given library path.
Expected<DriverApi> loadDriver(const std::string &path);

/// OK for success; otherwise an internal error naming `call` and the
/// driver's error name and text ("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY
/// (out of memory)").
Status check(const DriverApi &api, CUresult r, const char *call);

} // namespace sluice::backend::gpu
