// tests/gpu/fake_session_test.cc: sessions on a fake GPU: placement
// prefers it, the partitioner's send/recv copy across, fused clusters
// become PTX launched with the right pointers and count on the device's
// stream, fallbacks run on the host, and nothing leaks.
#include <gtest/gtest.h>

#include "support/settings.h"

#include <cstdlib>

#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"
#include "runtime/executor.h"
#include "runtime/session.h"
#include "tests/gpu/fake_driver.h"
#include "tests/gpu/ptxas.h"
#include "tests/jit/jit_test_util.h"

namespace sluice {
namespace {

namespace gpu = backend::gpu;
using gputest::fake;
using gputest::fakeDriver;
using gputest::resetFake;
using jittest::add;
using jittest::placeholder;

const std::string kGpu0 = "/job:localhost/replica:0/task:0/device:GPU:0";
const std::string kCpu0 = "/job:localhost/replica:0/task:0/device:CPU:0";

template <typename T> T *at(void **params, int k) {
  return reinterpret_cast<T *>(*static_cast<gputest::CUdeviceptr *>(params[k]));
}
int64_t countOf(void **params, int k) { return *static_cast<int64_t *>(params[k]); }

/// Every device buffer was given back: none held by a tensor, and with
/// the cache emptied none left with the driver.
void expectNoLeaks() {
  for (int i = 0; i < gpu::deviceCount(); ++i) {
    auto d = *gpu::device(i);
    EXPECT_EQ(d->memoryStats().liveBuffers, 0) << d->label();
    d->releaseCached();
    EXPECT_EQ(d->memoryStats().cachedBytes, 0);
  }
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_TRUE(fake().live.empty()) << fake().live.size() << " blocks left with the driver";
}

class FakeSessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    resetFake(1);
    gpu::resetForTesting(fakeDriver());
  }
  void TearDown() override {
    resetFake(0);
    gpu::resetForTesting(fakeDriver());
  }
  Expected<std::vector<ir::Tensor>> run(const ir::Graph &g,
                                        std::vector<std::pair<ir::Output, ir::Tensor>> feeds,
                                        std::vector<ir::Output> fetches,
                                        rt::SessionOptions o = {}) {
    o.log = [this](const std::string &l) { log_ += l + "\n"; };
    auto s = rt::Session::create(&g, nullptr, o);
    if (!s.hasValue())
      return s.takeStatus();
    return (*s)->run(feeds, fetches, {});
  }
  std::string log_;
};

ir::Tensor ramp(int64_t n, float scale) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[static_cast<size_t>(i)] = scale * static_cast<float>(i - n / 2);
  return ir::Tensor::fromVector(v);
}

TEST_F(FakeSessionTest, ElementwiseOpsRunAsOneFusedKernelOnTheGpu) {
  // y = relu(x * x - x): the fake's kernel computes what the PTX would,
  // from the parameters as marshalled: x, y, then the element count.
  fake().kernels["sluice_"] = [](void **p) {
    const float *x = at<float>(p, 0);
    float *y = at<float>(p, 1);
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      y[i] = std::max(0.0f, x[i] * x[i] - x[i]);
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {1000});
  ir::Output y = add(g, "relu", {add(g, "subtract", {add(g, "multiply", {x, x}), x})});
  ir::Output sum = add(g, "reduce_sum", {y});
  ir::Tensor xs = ramp(1000, 0.25f);
  auto out = run(g, {{x, xs}}, {y, sum});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_FALSE((*out)[0].isOnDevice()); // fetches come back to the host
  double want = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    float v = xs.data<float>()[i];
    float r = std::max(0.0f, v * v - v);
    ASSERT_EQ((*out)[0].data<float>()[i], r) << i;
    want += r;
  }
  EXPECT_NEAR((*out)[1].scalarValue<float>(), want, 1e-3 * want);
  expectNoLeaks(); // the session is gone
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  // One kernel for the three ops, launched on the device's stream with
  // 256-thread blocks: 4 blocks cover 1000 elements.
  ASSERT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(fake().launches[0].block, 256u);
  EXPECT_EQ(fake().launches[0].grid, 4u);
  EXPECT_EQ(fake().streams.count(fake().launches[0].stream), 1u);
  ASSERT_EQ(fake().modules.size(), 1u);
  EXPECT_NE(fake().modules[0].find(".target sm_80"), std::string::npos); // the fake's 8.0
  EXPECT_NE(fake().modules[0].find(".entry " + fake().launches[0].entry), std::string::npos);
  // What a real driver would have been given assembles for that target.
  if (auto verdict = gputest::assemblePtx(fake().modules[0], "sm_80")) {
    EXPECT_EQ(*verdict, "") << fake().modules[0];
  }
  EXPECT_GE(fake().htod, 1); // x across
  EXPECT_GE(fake().dtoh, 2); // y to reduce_sum's CPU, and y fetched
}

TEST_F(FakeSessionTest, InputsArePassedInTheBodysOrder) {
  // subtract is not commutative: x - z, not z - x.
  fake().kernels["sluice_"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 3); ++i)
      at<float>(p, 2)[i] = std::abs(at<float>(p, 0)[i] - at<float>(p, 1)[i]);
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3});
  ir::Output z = placeholder(g, ir::DType::kF32, {3});
  ir::Output y = add(g, "abs", {add(g, "subtract", {x, z})});
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({5, 1, 2})}, {z, ir::Tensor::fromVector<float>({1, 4, 2})}}, {y});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({4, 3, 0})));
}

TEST_F(FakeSessionTest, SessionsShareTheDevicesLoadedModule) {
  fake().kernels["sluice_"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = -at<float>(p, 0)[i];
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {2});
  ir::Output y = add(g, "negative", {x});
  for (int k = 0; k < 2; ++k) {
    auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, 2})}}, {y});
    ASSERT_TRUE(out.hasValue()) << out.status().toString();
    EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({-1, -2})));
  }
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().launches.size(), 2u);
  EXPECT_EQ(fake().modules.size(), 1u); // one PTX text, loaded once per device
}

TEST_F(FakeSessionTest, AValueFedOnTheGpuIsUploadedByItsReader) {
  fake().kernels["sluice_"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = at<float>(p, 0)[i] * at<float>(p, 0)[i];
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3});
  ir::Output a = add(g, "negative", {x});
  ir::Output b = add(g, "square", {a});
  auto out = run(g, {{a, ir::Tensor::fromVector<float>({1, 2, 3})}}, {b});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({1, 4, 9})));
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().launches.size(), 1u);
  EXPECT_EQ(fake().htod, 1); // the fed value, uploaded by square's kernel
}

TEST_F(FakeSessionTest, MatmulRunsThroughCublasOnTheDevicesStream) {
  gpu::BlasApi blas = gputest::fakeBlas();
  gpu::setBlasForTesting(&blas);
  std::mt19937 rng(3);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (ir::DType t : {ir::DType::kF32, ir::DType::kF64}) {
        ir::Graph g;
        ir::Dims ad = ta ? ir::Dims{5, 3} : ir::Dims{3, 5}, bd = tb ? ir::Dims{4, 5} : ir::Dims{5, 4};
        ir::Output a = placeholder(g, t, ad), b = placeholder(g, t, bd);
        ir::Output c = add(g, "matmul", {a, b}, {{"transpose_a", ta}, {"transpose_b", tb}});
        std::vector<std::pair<ir::Output, ir::Tensor>> feeds = {
            {a, jittest::randomTensor(t, ad, rng)}, {b, jittest::randomTensor(t, bd, rng)}};
        for (auto &[o, v] : feeds) // finite values: the products must match exactly
          for (int64_t i = 0; i < v.numElements(); ++i)
            ir::dispatchPod(t, [&](auto tag) {
              using T = decltype(tag);
              if constexpr (std::is_floating_point_v<T>)
                v.data<T>()[i] = static_cast<T>(static_cast<int>(rng() % 9) - 4);
            });
        auto want = jittest::runWith(g, {"interp", false}, feeds, {c});
        auto got = run(g, feeds, {c});
        ASSERT_TRUE(want.hasValue()) << want.status().toString();
        ASSERT_TRUE(got.hasValue()) << got.status().toString();
        EXPECT_TRUE((*got)[0].equals((*want)[0]))
            << "ta=" << ta << " tb=" << tb << "\ngpu: " << ir::formatTensor((*got)[0])
            << "\ncpu: " << ir::formatTensor((*want)[0]);
      }
  expectNoLeaks(); // the session is gone
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().gemms, 8);
  ASSERT_EQ(fake().blasStreams.size(), 1u);
  EXPECT_EQ(fake().streams.count(*fake().blasStreams.begin()), 1u);
}

TEST_F(FakeSessionTest, ACublasThatCannotStartLeavesTheProductToTheHost) {
  gpu::BlasApi blas = gputest::fakeBlas();
  gpu::setBlasForTesting(&blas);
  fake().blasCreateResult = 3; // CUBLAS_STATUS_NOT_INITIALIZED: a driver too old for it
  ir::Graph g;
  ir::Output a = placeholder(g, ir::DType::kF32, {2, 2});
  ir::Output c = add(g, "matmul", {a, a});
  int64_t before = gpu::stats().hostFallbacks;
  auto out = run(g, {{a, ir::Tensor::fromVector<float>({1, 2, 3, 4}, {2, 2})}}, {c});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({7, 10, 15, 22}, {2, 2})));
  EXPECT_GT(gpu::stats().hostFallbacks, before);
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().gemms, 0);
}

TEST_F(FakeSessionTest, WithoutCublasMatmulStaysOnTheCpu) {
  ir::Graph g;
  ir::Output a = placeholder(g, ir::DType::kF32, {2, 2});
  ir::Output c = add(g, "matmul", {a, a});
  auto sess = rt::Session::create(&g, nullptr, {});
  ASSERT_TRUE(sess.hasValue());
  EXPECT_EQ((*(*sess)->placement())[c.node], kCpu0);
  gpu::BlasApi blas = gputest::fakeBlas();
  gpu::setBlasForTesting(&blas);
  EXPECT_EQ((*(*sess)->placement())[c.node], kGpu0);
}

TEST_F(FakeSessionTest, RunTimeShapesGetPtxPerSetOfCallShapes) {
  fake().kernels["sluice_"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = at<float>(p, 0)[i] * at<float>(p, 0)[i];
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {-1}); // the length is fed
  ir::Output y = add(g, "square", {add(g, "negative", {x})});
  auto sess = rt::Session::create(&g, nullptr, {});
  ASSERT_TRUE(sess.hasValue());
  EXPECT_EQ((*(*sess)->placement())[y.node], kGpu0);
  gpu::GpuStats before = gpu::stats();
  for (const std::vector<float> &v : {std::vector<float>{1, 2, 3}, std::vector<float>{4, 5},
                                      std::vector<float>{6, 7, 8}}) {
    auto out = (*sess)->run({{x, ir::Tensor::fromVector(v)}}, {y}, {});
    ASSERT_TRUE(out.hasValue()) << out.status().toString();
    std::vector<float> want;
    for (float e : v)
      want.push_back(e * e);
    EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector(want))) << ir::formatTensor((*out)[0]);
  }
  // Code for [3] and for [2]; [3] again reuses its own. (Their PTX is
  // one text here, the count being a parameter: the device loads it once.)
  EXPECT_EQ(gpu::stats().modulesLoaded - before.modulesLoaded, 2);
  EXPECT_EQ(gpu::stats().hostFallbacks, before.hostFallbacks);
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().launches.size(), 3u);
}

TEST_F(FakeSessionTest, PlacementPrefersTheGpuForOpsItHasCodeFor) {
  fake().kernels["sluice_"] = [](void **) {};
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {4});
  ir::Output k = add(g, "constant", {}, {{"value", ir::Tensor::fromVector<float>({1, 2, 3, 4})}, {"dtype", ir::DType::kF32}});
  ir::Output y = add(g, "exp", {add(g, "add", {x, k})});
  ir::Output s = add(g, "reduce_max", {y});
  ir::Output c = add(g, "constant", {}, {{"value", ir::Tensor::fromVector<float>({1, 2, 3, 4})}, {"dtype", ir::DType::kF32}});
  ir::NodeSpec onCpu;
  onCpu.name = "on_cpu";
  onCpu.op = "identity";
  onCpu.inputs = {c};
  onCpu.requestedDevice = "/cpu:0";
  ASSERT_TRUE(g.addNode(std::move(onCpu)).hasValue());
  ir::Output str = add(g, "constant", {}, {{"value", ir::Tensor::scalarString("a")}, {"dtype", ir::DType::kString}});
  auto sess = rt::Session::create(&g, nullptr, {});
  ASSERT_TRUE(sess.hasValue());
  auto placed = (*sess)->placement();
  ASSERT_TRUE(placed.hasValue()) << placed.status().toString();
  EXPECT_EQ((*placed)[x.node], kCpu0);  // no GPU kernel
  EXPECT_EQ((*placed)[y.node], kGpu0);  // elementwise with static shapes
  EXPECT_EQ((*placed)[s.node], kCpu0);  // a reduction to one value: one GPU thread
  EXPECT_EQ((*placed)[str.node], kCpu0); // strings stay on the host
  // A constant goes where its readers are (TF's generator heuristic).
  EXPECT_EQ((*placed)[k.node], kGpu0);
  EXPECT_EQ((*placed)[c.node], kCpu0);
  rt::SessionOptions hidden;
  hidden.deviceCount = {{"GPU", 0}};
  auto cpuOnly = rt::Session::create(&g, nullptr, hidden);
  EXPECT_EQ((*(*cpuOnly)->placement())[y.node], kCpu0);
}

// A reduction with enough outputs (a thread each) goes to the GPU, rows
// of a softmax too; fewer outputs stay on the CPU.
TEST_F(FakeSessionTest, ReductionsWithManyOutputsGoToTheGpu) {
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {8192, 16});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output mx = add(g, "reduce_max", {x}, rows);
  ir::Output e = add(g, "exp", {add(g, "subtract", {x, mx})});
  ir::Output sum = add(g, "reduce_sum", {e}, rows);
  ir::Output y = add(g, "divide", {e, sum});
  ir::Output cols = add(g, "reduce_mean", {y}, {{"axis", std::vector<int64_t>{0}}});
  auto sess = rt::Session::create(&g, nullptr, {});
  ASSERT_TRUE(sess.hasValue());
  auto placed = (*sess)->placement();
  ASSERT_TRUE(placed.hasValue()) << placed.status().toString();
  for (ir::Output o : {mx, e, sum, y})
    EXPECT_EQ((*placed)[o.node], kGpu0) << g.node(o.node).name();
  EXPECT_EQ((*placed)[cols.node], kCpu0); // 16 outputs
}

TEST_F(FakeSessionTest, ABodyTheDeviceCannotLoadRunsOnTheHost) {
  fake().moduleLoadResult = 218; // CUDA_ERROR_INVALID_PTX
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3});
  ir::Output y = add(g, "relu", {add(g, "negative", {x})});
  int64_t before = gpu::stats().hostFallbacks;
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, -2, 3})}}, {y});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({0, 2, 0})));
  EXPECT_GT(gpu::stats().hostFallbacks, before);
  expectNoLeaks(); // the session is gone
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_TRUE(fake().launches.empty());
}

TEST_F(FakeSessionTest, AFailedLaunchFailsTheStepNamingTheDriversError) {
  // No kernel registered: the fake's launch answers CUDA_ERROR_NOT_FOUND.
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3});
  ir::Output y = add(g, "relu", {add(g, "negative", {x})});
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, -2, 3})}}, {y});
  ASSERT_FALSE(out.hasValue());
  EXPECT_NE(out.status().message().find("cuLaunchKernel: CUDA_ERROR_NOT_FOUND running sluice_"),
            std::string::npos)
      << out.status().message();
}

TEST_F(FakeSessionTest, OutOfDeviceMemoryFailsTheStep) {
  fake().kernels["sluice_"] = [](void **) {};
  fake().allocLimit = 16;
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {1000});
  ir::Output y = add(g, "relu", {add(g, "negative", {x})});
  auto out = run(g, {{x, ramp(1000, 1)}}, {y});
  ASSERT_FALSE(out.hasValue());
  EXPECT_EQ(out.status().code(), Code::kResourceExhausted);
  EXPECT_NE(out.status().message().find("cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY"),
            std::string::npos)
      << out.status().message();
}

TEST_F(FakeSessionTest, ControlEdgesCrossTheDevices) {
  fake().kernels["sluice_"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = -at<float>(p, 0)[i];
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {2});
  ir::Output y = add(g, "negative", {x}); // one op: still its own GPU kernel
  ir::NodeSpec id;
  id.name = "after";
  id.op = "identity";
  id.inputs = {x};
  id.controlInputs = {y.node};
  id.requestedDevice = "/cpu:0";
  ir::Output after{(*g.addNode(std::move(id)))->id(), 0};
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, 2})}}, {after, y});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({1, 2})));
  EXPECT_TRUE((*out)[1].equals(ir::Tensor::fromVector<float>({-1, -2})));
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().launches.size(), 1u);
}

TEST_F(FakeSessionTest, ValuesMoveBetweenTwoGpusThroughTheHost) {
  resetFake(2);
  gpu::resetForTesting(fakeDriver());
  fake().kernels["sluice_first"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = at<float>(p, 0)[i] * at<float>(p, 0)[i];
  };
  fake().kernels["sluice_second"] = [](void **p) {
    for (int64_t i = 0; i < countOf(p, 2); ++i)
      at<float>(p, 1)[i] = -at<float>(p, 0)[i];
  };
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {4});
  auto onGpu = [&](const std::string &name, const std::string &op, ir::Output in,
                   const std::string &dev) {
    ir::NodeSpec n;
    n.name = name;
    n.op = op;
    n.inputs = {in};
    n.requestedDevice = dev;
    return ir::Output{(*g.addNode(std::move(n)))->id(), 0};
  };
  ir::Output a = onGpu("first", "square", x, "/gpu:0");
  ir::Output b = onGpu("second", "negative", a, "/gpu:1");
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, 2, 3, 4})}}, {b});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({-1, -4, -9, -16})));
  expectNoLeaks(); // the session is gone
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  ASSERT_EQ(fake().launches.size(), 2u);
  EXPECT_NE(fake().launches[0].stream, fake().launches[1].stream); // each GPU's own
}

TEST_F(FakeSessionTest, HostKernelsGetAClearErrorForDeviceMemory) {
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {3});
  ir::Output y = add(g, "negative", {x});
  auto ex = rt::Executor::create(std::shared_ptr<const ir::Graph>(g.clone()), {x}, {y}, {}, {});
  ASSERT_TRUE(ex.hasValue()) << ex.status().toString();
  auto dev = (*gpu::device(0))->upload(ir::Tensor::fromVector<float>({1, 2, 3}));
  ASSERT_TRUE(dev.hasValue());
  std::vector<ir::Tensor> feeds = {*dev};
  rt::StepParams params;
  params.feedValues = &feeds;
  auto out = (*ex)->run(params);
  ASSERT_FALSE(out.hasValue());
  EXPECT_NE(out.status().message().find(
                "is in GPU:0 memory, which host kernels cannot read"),
            std::string::npos)
      << out.status().message();
}

TEST_F(FakeSessionTest, SoftPlacementWithoutADriverSaysWhy) {
  {
    ScopedSettings driver(withSetting(&Settings::cudaDriver, "/nonexistent/libcuda.so.1"));
    gpu::resetForTesting();
  }
  ir::Graph g;
  ir::NodeSpec c;
  c.name = "on_gpu";
  c.op = "constant";
  c.attrs = {{"value", ir::Tensor::scalar<float>(2)}, {"dtype", ir::DType::kF32}};
  c.requestedDevice = "/gpu:0";
  ir::Output k{(*g.addNode(std::move(c)))->id(), 0};
  ir::Output y = add(g, "add", {k, k});
  rt::SessionOptions soft;
  soft.allowSoftPlacement = true;
  auto out = run(g, {}, {y}, soft);
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_EQ((*out)[0].scalarValue<float>(), 4.0f);
  EXPECT_NE(log_.find("requested '/device:GPU:0'"), std::string::npos) << log_;
  EXPECT_NE(log_.find("; no GPU here: cannot open the CUDA driver (/nonexistent/libcuda.so.1: "),
            std::string::npos)
      << log_;
  EXPECT_NE(log_.find("placed on /job:localhost/replica:0/task:0/device:CPU:0"), std::string::npos)
      << log_;
  auto hard = run(g, {}, {y});
  ASSERT_FALSE(hard.hasValue());
  EXPECT_NE(hard.status().message().find("Could not satisfy explicit device specification "
                                         "'/device:GPU:0'"),
            std::string::npos);
  EXPECT_NE(hard.status().message().find("no GPU here: "), std::string::npos);
}

TEST_F(FakeSessionTest, TheInterpreterBackendKeepsEverythingOnTheCpu) {
  ir::Graph g;
  ir::Output x = placeholder(g, ir::DType::kF32, {2});
  ir::Output y = add(g, "negative", {x});
  rt::SessionOptions o;
  o.backend = "interp";
  auto out = run(g, {{x, ir::Tensor::fromVector<float>({1, 2})}}, {y}, o);
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({-1, -2})));
  std::lock_guard<std::mutex> lock(gputest::fakeMutex());
  EXPECT_EQ(fake().allocs, 0);
}

} // namespace
} // namespace sluice
