// tests/gpu/fake_libcuda.cc: the fake driver (fake_driver.h) as a shared
// library exporting the CUDA driver's symbols, for programs that open
// the driver themselves: SLUICE_CUDA_DRIVER=libsluice_fake_cuda.so runs
// them on one fake sm_90 GPU whose kernels compute nothing (a smoke test
// of their GPU path, not of results).
#include <mutex>

#include "tests/gpu/fake_driver.h"

namespace {

using namespace sluice::backend::gpu;

const DriverApi &api() {
  static const DriverApi a = [] {
    sluice::gputest::resetFake(1);
    sluice::gputest::fake().ccMajor = 9;
    sluice::gputest::fake().kernels["sluice_"] = [](void **) {};
    return sluice::gputest::fakeDriver();
  }();
  return a;
}

} // namespace

extern "C" {
CUresult cuInit(unsigned f) { return api().cuInit(f); }
CUresult cuDeviceGetCount(int *n) { return api().cuDeviceGetCount(n); }
CUresult cuDeviceGet(CUdevice *d, int i) { return api().cuDeviceGet(d, i); }
CUresult cuDeviceGetName(char *s, int n, CUdevice d) { return api().cuDeviceGetName(s, n, d); }
CUresult cuDeviceGetAttribute(int *v, int a, CUdevice d) {
  return api().cuDeviceGetAttribute(v, a, d);
}
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { return api().cuDeviceTotalMem(b, d); }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) {
  return api().cuDevicePrimaryCtxRetain(c, d);
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return api().cuDevicePrimaryCtxRelease(d); }
CUresult cuCtxSetCurrent(CUcontext c) { return api().cuCtxSetCurrent(c); }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { return api().cuMemAlloc(p, n); }
CUresult cuMemFree_v2(CUdeviceptr p) { return api().cuMemFree(p); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n, CUstream s) {
  return api().cuMemcpyHtoDAsync(d, h, n, s);
}
CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n, CUstream s) {
  return api().cuMemcpyDtoHAsync(h, d, n, s);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s2, size_t n, CUstream s) {
  return api().cuMemcpyDtoDAsync(d, s2, n, s);
}
CUresult cuStreamCreate(CUstream *s, unsigned f) { return api().cuStreamCreate(s, f); }
CUresult cuStreamSynchronize(CUstream s) { return api().cuStreamSynchronize(s); }
CUresult cuStreamDestroy_v2(CUstream s) { return api().cuStreamDestroy(s); }
CUresult cuModuleLoadDataEx(CUmodule *m, const void *img, unsigned n, CUjit_option *o, void **v) {
  return api().cuModuleLoadDataEx(m, img, n, o, v);
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  return api().cuModuleGetFunction(f, m, name);
}
CUresult cuModuleUnload(CUmodule m) { return api().cuModuleUnload(m); }
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream s, void **p,
                        void **e) {
  return api().cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, p, e);
}
CUresult cuGetErrorName(CUresult r, const char **s) { return api().cuGetErrorName(r, s); }
CUresult cuGetErrorString(CUresult r, const char **s) { return api().cuGetErrorString(r, s); }
}
