// tests/gpu/fake_driver.h: a CUDA driver for tests without a GPU. Its
// "device memory" is host memory (malloc'd blocks whose addresses are the
// device pointers), its streams are handles it counts, and a launch calls
// the kernel a test registered for the entry name, with the parameters
// as cuLaunchKernel received them. Every call is recorded.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "backend/gpu/blas.h"
#include "backend/gpu/driver_api.h"

namespace sluice::gputest {

using backend::gpu::CUdeviceptr;
using backend::gpu::CUresult;

struct FakeLaunch {
  std::string entry;
  unsigned grid = 0, block = 0;
  uintptr_t stream = 0;
};

/// What the fake reports and does; reset() before each test.
struct FakeGpu {
  int devices = 1;
  std::string name = "Fake GPU";
  int ccMajor = 8, ccMinor = 0;
  int sms = 4;
  CUresult initResult = 0;        // cuInit's answer
  CUresult moduleLoadResult = 0;  // cuModuleLoadDataEx's answer
  int64_t allocLimit = -1;        // cuMemAlloc fails past this many live bytes
  int blasCreateResult = 0;       // the fake cublasCreate's answer
  /// Entry-name prefix -> the kernel: its params as cuLaunchKernel gets them.
  std::map<std::string, std::function<void(void **params)>> kernels;

  // Records.
  std::map<CUdeviceptr, size_t> live; // allocations not freed
  int64_t liveBytes = 0;
  int64_t allocs = 0, frees = 0;
  int64_t htod = 0, dtoh = 0, dtod = 0, syncs = 0;
  std::set<uintptr_t> streams;           // created, not destroyed
  std::set<uintptr_t> copyStreams;       // streams copies were queued on
  std::vector<std::string> modules;      // PTX loaded
  std::vector<FakeLaunch> launches;
  int retainedContexts = 0;
  int64_t gemms = 0;                      // fake cuBLAS calls
  std::set<uintptr_t> blasStreams;        // streams its handles were bound to
  int currentCalls = 0;
};

/// The fake's state (guarded by fakeMutex()).
FakeGpu &fake();
std::mutex &fakeMutex();
/// Fresh state with `devices` GPUs.
void resetFake(int devices = 1);
/// The driver table over the fake.
backend::gpu::DriverApi fakeDriver();
/// A cuBLAS over the fake's memory (column-major gemm on the host).
backend::gpu::BlasApi fakeBlas();

} // namespace sluice::gputest
