// tests/gpu/driver_test.cc: opening the driver, its errors as Status,
// device discovery and TF's device_count cap, device memory.
#include <gtest/gtest.h>

#include "support/settings.h"

#include <unistd.h>

#include <cstdlib>

#include "backend/gpu/blas.h"
#include "backend/gpu/platform.h"
#include "ir/graph.h"
#include "runtime/session_devices.h"
#include "tests/gpu/fake_driver.h"

namespace sluice {
namespace {

namespace gpu = backend::gpu;
using gputest::fake;
using gputest::fakeDriver;
using gputest::resetFake;

class DriverTest : public ::testing::Test {
protected:
  void TearDown() override {
    resetFake(0);
    gpu::resetForTesting(fakeDriver()); // no devices for later tests
  }
};

TEST_F(DriverTest, AMissingLibraryMeansNoGpuAndSaysWhy) {
  auto api = gpu::loadDriver("/nonexistent/libcuda.so.1");
  ASSERT_FALSE(api.hasValue());
  EXPECT_EQ(api.status().code(), Code::kNotFound);
  EXPECT_EQ(api.status().message().rfind("cannot open the CUDA driver (/nonexistent/libcuda.so.1: ", 0), 0u)
      << api.status().message();
}

TEST_F(DriverTest, ALibraryWithoutTheEntryPointsIsNotADriver) {
  auto api = gpu::loadDriver("libm.so.6");
  ASSERT_FALSE(api.hasValue());
  EXPECT_NE(api.status().message().find("has no entry point cuInit"), std::string::npos)
      << api.status().message();
}

TEST_F(DriverTest, EveryEntryPointResolvesFromCudasStubLibrary) {
  // The toolkit's link stub exports the real driver's symbols (so the
  // names, `_v2` included, are right) and answers every call with
  // CUDA_ERROR_STUB_LIBRARY: a driver without devices.
  const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (::access(stub, R_OK) != 0)
    GTEST_SKIP() << "no CUDA stub library at " << stub;
  auto api = gpu::loadDriver(stub);
  ASSERT_TRUE(api.hasValue()) << api.status().message();
  EXPECT_NE(api->cuInit(0), 0);
  {
    ScopedSettings driver(withSetting(&Settings::cudaDriver, stub));
    gpu::resetForTesting();
  }
  EXPECT_EQ(gpu::deviceCount(), 0);
  EXPECT_EQ(gpu::unavailableReason().rfind(std::string(stub) + ": cuInit: ", 0), 0u)
      << gpu::unavailableReason();
}

TEST_F(DriverTest, CublasOpensAtRunTimeToo) {
  const char *lib = "/usr/local/cuda/lib64/libcublas.so";
  if (::access(lib, R_OK) != 0)
    GTEST_SKIP() << "no cuBLAS at " << lib;
  {
    ScopedSettings blas(withSetting(&Settings::cublas, lib));
    gpu::resetBlasForTesting();
    EXPECT_TRUE(gpu::blasAvailable()) << gpu::blasUnavailableReason();
  }
  {
    ScopedSettings blas(withSetting(&Settings::cublas, "/nowhere/libcublas.so"));
    gpu::resetBlasForTesting();
    EXPECT_FALSE(gpu::blasAvailable()); // loads now, lazily
  }
  EXPECT_EQ(gpu::blasUnavailableReason().rfind("cannot open cuBLAS (/nowhere/libcublas.so", 0), 0u)
      << gpu::blasUnavailableReason();
}

TEST_F(DriverTest, AFakeLibcudaIsOpenedByItsPath) {
  // tests/gpu/fake_libcuda.cc: the fake behind the driver's own symbols
  // ($SLUICE_FAKE_CUDA where the build tree is not: scripts/gpu_bundle.sh).
  const char *fake = std::getenv("SLUICE_FAKE_CUDA");
  {
    ScopedSettings driver(withSetting(&Settings::cudaDriver, fake && *fake ? fake : SLUICE_FAKE_CUDA));
    gpu::resetForTesting();
  }
  ASSERT_EQ(gpu::deviceCount(), 1) << gpu::unavailableReason();
  EXPECT_EQ((*gpu::device(0))->computeCapability(), 90);
}

TEST_F(DriverTest, SluiceCudaDriverNamesTheLibrary) {
  {
    ScopedSettings driver(withSetting(&Settings::cudaDriver, "/nowhere/fake-libcuda.so"));
    gpu::resetForTesting();
  }
  EXPECT_EQ(gpu::deviceCount(), 0);
  EXPECT_NE(gpu::unavailableReason().find("/nowhere/fake-libcuda.so"), std::string::npos)
      << gpu::unavailableReason();
  auto d = gpu::device(0);
  ASSERT_FALSE(d.hasValue());
  EXPECT_NE(d.status().message().find("there is no GPU:0"), std::string::npos);
}

TEST_F(DriverTest, FailuresNameTheCallAndTheDriversError) {
  gpu::DriverApi api = fakeDriver();
  Status oom = gpu::check(api, 2, "cuMemAlloc");
  EXPECT_EQ(oom.code(), Code::kResourceExhausted);
  EXPECT_EQ(oom.message(), "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)");
  Status ptx = gpu::check(api, 218, "cuModuleLoadDataEx");
  EXPECT_EQ(ptx.code(), Code::kInternal);
  EXPECT_EQ(ptx.message(), "cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX");
  EXPECT_EQ(gpu::check(api, 9999, "cuInit").message(), "cuInit: CUDA error 9999");
  EXPECT_TRUE(gpu::check(api, 0, "cuInit").isOk());
}

TEST_F(DriverTest, CuInitFailureMeansNoDevices) {
  resetFake(2);
  fake().initResult = 100;
  gpu::resetForTesting(fakeDriver());
  EXPECT_EQ(gpu::deviceCount(), 0);
  EXPECT_EQ(gpu::unavailableReason(), "fake driver: cuInit: CUDA_ERROR_NO_DEVICE");
}

TEST_F(DriverTest, ZeroDevicesSaySo) {
  resetFake(0);
  gpu::resetForTesting(fakeDriver());
  EXPECT_EQ(gpu::deviceCount(), 0);
  EXPECT_EQ(gpu::unavailableReason(), "fake driver reports no CUDA devices");
}

TEST_F(DriverTest, DiscoversDevicesWithTheirFacts) {
  resetFake(2);
  fake().ccMajor = 9;
  fake().sms = 132;
  gpu::resetForTesting(fakeDriver());
  ASSERT_EQ(gpu::deviceCount(), 2);
  EXPECT_EQ(gpu::unavailableReason(), "");
  auto d = gpu::device(1);
  ASSERT_TRUE(d.hasValue()) << d.status().toString();
  EXPECT_EQ((*d)->name(), "Fake GPU 1");
  EXPECT_EQ((*d)->computeCapability(), 90);
  EXPECT_EQ((*d)->multiprocessors(), 132);
  EXPECT_DOUBLE_EQ((*d)->theoreticalBandwidth(), 64.0); // 2 x 1 GHz x 32 bytes
  EXPECT_EQ(fake().retainedContexts, 2);
  EXPECT_EQ(fake().streams.size(), 2u); // one stream per device
  auto byName = gpu::deviceOf("/job:localhost/replica:0/task:0/device:GPU:1");
  ASSERT_TRUE(byName.hasValue());
  EXPECT_EQ(byName->get(), d->get());
  EXPECT_FALSE(gpu::deviceOf("/job:localhost/replica:0/task:0/device:CPU:0").hasValue());
  EXPECT_FALSE(gpu::device(2).hasValue());
}

TEST_F(DriverTest, ReleasesContextsAndStreamsWhenForgotten) {
  resetFake(2);
  gpu::resetForTesting(fakeDriver());
  ASSERT_EQ(fake().retainedContexts, 2);
  resetFake(0); // keeps nothing of the old state's records
  fake().retainedContexts = 2;
  gpu::resetForTesting(fakeDriver());
  EXPECT_EQ(fake().retainedContexts, 0);
}

TEST_F(DriverTest, DeviceCountCapsTheGpusAndTheyComeFirst) {
  resetFake(2);
  gpu::resetForTesting(fakeDriver());
  ir::Graph g;
  const std::string local = "/job:localhost/replica:0/task:0/device:";
  EXPECT_EQ(rt::sessionDevices(g, {}),
            (std::vector<std::string>{local + "GPU:0", local + "GPU:1", local + "CPU:0"}));
  EXPECT_EQ(rt::sessionDevices(g, {{"GPU", 1}}),
            (std::vector<std::string>{local + "GPU:0", local + "CPU:0"}));
  EXPECT_EQ(rt::sessionDevices(g, {{"GPU", 0}, {"CPU", 2}}),
            (std::vector<std::string>{local + "CPU:0", local + "CPU:1"}));
  // Asking for more than exist gives what exists, as in TF.
  EXPECT_EQ(rt::sessionDevices(g, {{"GPU", 8}}).size(), 3u);
}

TEST_F(DriverTest, WithoutADriverThereAreOnlyCpus) {
  resetFake(0);
  gpu::resetForTesting(fakeDriver());
  ir::Graph g;
  EXPECT_EQ(rt::sessionDevices(g, {{"GPU", 2}}),
            (std::vector<std::string>{"/job:localhost/replica:0/task:0/device:CPU:0"}));
}

TEST_F(DriverTest, MemoryIsFreedWithItsLastTensor) {
  resetFake(1);
  gpu::resetForTesting(fakeDriver());
  auto d = *gpu::device(0);
  {
    ir::Tensor host = ir::Tensor::fromVector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
    auto dev = d->upload(host);
    ASSERT_TRUE(dev.hasValue()) << dev.status().toString();
    EXPECT_TRUE(dev->isOnDevice());
    EXPECT_EQ(dev->deviceMemory()->deviceName(), "GPU:0");
    EXPECT_EQ(d->memoryStats().liveBuffers, 1);
    EXPECT_EQ(fake().liveBytes, 512); // its size class
    ir::Tensor shared = *dev; // shares the buffer
    auto back = shared.toHost();
    ASSERT_TRUE(back.hasValue());
    EXPECT_FALSE(back->isOnDevice());
    EXPECT_TRUE(back->equals(host));
    EXPECT_TRUE(shared.equals(host)); // compares a host copy
    EXPECT_EQ(ir::formatTensor(shared), "[[1. 2. 3.] [4. 5. 6.]]");
    EXPECT_EQ(fake().htod, 1);
    EXPECT_GE(fake().dtoh, 1);
    EXPECT_EQ(fake().copyStreams.size(), 1u);
    EXPECT_EQ(*fake().copyStreams.begin(), reinterpret_cast<uintptr_t>(d->stream()));
  }
  EXPECT_EQ(d->memoryStats().liveBuffers, 0);
  EXPECT_EQ(d->memoryStats().liveBytes, 0);
  EXPECT_EQ(d->memoryStats().cachedBytes, 512); // kept for the next tensor
  EXPECT_EQ(fake().live.size(), 1u);
  d->releaseCached();
  EXPECT_TRUE(fake().live.empty());
  EXPECT_EQ(fake().frees, 1);
}

TEST_F(DriverTest, FreedBlocksServeTheNextTensorOfTheirSize) {
  resetFake(1);
  gpu::resetForTesting(fakeDriver());
  auto d = *gpu::device(0);
  for (int64_t n : {1000, 900, 1000}) // 4000 and 3600 bytes: one 4 KiB class
    ASSERT_TRUE(d->allocateTensor(ir::DType::kF32, {n}).hasValue());
  EXPECT_EQ(fake().allocs, 1);
  EXPECT_EQ(d->memoryStats().allocations, 1);
  ASSERT_TRUE(d->allocateTensor(ir::DType::kF32, {2000}).hasValue()); // another class
  EXPECT_EQ(fake().allocs, 2);
  d->releaseCached();
  EXPECT_TRUE(fake().live.empty());
}

TEST_F(DriverTest, OutOfMemoryFreesTheCacheAndTriesAgain) {
  resetFake(1);
  fake().allocLimit = 8192;
  gpu::resetForTesting(fakeDriver());
  auto d = *gpu::device(0);
  ASSERT_TRUE(d->allocateTensor(ir::DType::kF32, {1000}).hasValue()); // 4 KiB, then cached
  auto big = d->allocateTensor(ir::DType::kF32, {1500});              // 6 KiB: over the limit
  ASSERT_TRUE(big.hasValue()) << big.status().toString();
  EXPECT_EQ(fake().frees, 1);
  EXPECT_EQ(d->memoryStats().cachedBytes, 0);
}

TEST_F(DriverTest, EmptyTensorsNeedNoAllocation) {
  resetFake(1);
  gpu::resetForTesting(fakeDriver());
  auto d = *gpu::device(0);
  auto t = d->upload(ir::Tensor(ir::DType::kF32, {0, 3}));
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_EQ(fake().allocs, 0);
  auto back = t->toHost();
  ASSERT_TRUE(back.hasValue());
  EXPECT_EQ(back->dims(), (ir::Dims{0, 3}));
}

TEST_F(DriverTest, OutOfDeviceMemoryIsResourceExhausted) {
  resetFake(1);
  fake().allocLimit = 100;
  gpu::resetForTesting(fakeDriver());
  auto d = *gpu::device(0);
  auto t = d->allocateTensor(ir::DType::kF32, {1000});
  ASSERT_FALSE(t.hasValue());
  EXPECT_EQ(t.status().code(), Code::kResourceExhausted);
  EXPECT_NE(t.status().message().find("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY"), std::string::npos);
  EXPECT_NE(t.status().message().find("4000 bytes on GPU:0"), std::string::npos);
  auto s = d->allocateTensor(ir::DType::kString, {2});
  ASSERT_FALSE(s.hasValue());
  EXPECT_NE(s.status().message().find("string tensors cannot live in GPU memory"),
            std::string::npos);
}

TEST_F(DriverTest, PtxTargetIsTheDevicesOrTheNewestLlvmKnows) {
  std::string note;
  EXPECT_EQ(gpu::ptxArch(90, &note), "sm_90");
  EXPECT_EQ(note, "");
  EXPECT_EQ(gpu::ptxArch(80), "sm_80");
  EXPECT_EQ(gpu::ptxArch(88), "sm_87");
  EXPECT_EQ(gpu::ptxArch(120, &note), "sm_90");
  EXPECT_NE(note.find("compute capability 12.0 has no LLVM 16 target; using sm_90"),
            std::string::npos)
      << note;
}

} // namespace
} // namespace sluice
