// tests/jit/cache_test.cc: the JIT's disk cache: a restart (the engine
// reset onto the same directory, as a new process) compiles nothing, a
// changed cluster compiles again, and a corrupt or truncated entry is
// ignored, rebuilt and rewritten. tests/cli/jit_cli_test.sh checks the
// same across real processes.
#include <fstream>

#include "tests/jit/jit_test_util.h"

namespace sluice::jittest {
namespace {

namespace fs = std::filesystem;

struct Model {
  ir::Graph g;
  ir::Output x, y;
};

// y = relu(x * x + 1) for x of `n` f32 (`op` replaces relu).
void build(Model &m, int64_t n, const std::string &op = "relu") {
  m.x = placeholder(m.g, ir::DType::kF32, {n});
  ir::Output one = add(m.g, "constant", {},
                       {{"value", ir::Tensor::scalar<float>(1)}, {"dtype", ir::DType::kF32}});
  m.y = add(m.g, op, {add(m.g, "add", {add(m.g, "multiply", {m.x, m.x}), one})});
}

// Runs the model with the JIT; returns y[2] for x = [0, 1, 2, ...].
float run(const Model &m, int64_t n) {
  std::vector<float> xs(n);
  for (int64_t i = 0; i < n; ++i)
    xs[i] = static_cast<float>(i);
  auto r = runWith(m.g, {"jit", true}, {{m.x, ir::Tensor::fromVector(xs)}}, {m.y});
  EXPECT_TRUE(r.hasValue()) << r.status().toString();
  return r.hasValue() ? (*r)[0].data<float>()[2] : -1;
}

std::vector<fs::path> entries(const std::string &dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir, ec))
    out.push_back(e.path());
  return out;
}

TEST(JitCacheTest, RestartLoadsInsteadOfCompiling) {
  TempDir dir;
  backend::jit::resetForTesting(dir.str());
  Model m;
  build(m, 16);
  EXPECT_EQ(run(m, 16), 5.0f);
  EXPECT_EQ(backend::jit::stats().compiled, 1);
  ASSERT_EQ(entries(dir.str()).size(), 1u);
  // A second session in this process: the memory cache.
  EXPECT_EQ(run(m, 16), 5.0f);
  EXPECT_EQ(backend::jit::stats().compiled, 1);
  EXPECT_EQ(backend::jit::stats().memoryHits, 1);

  backend::jit::resetForTesting(dir.str()); // a new process
  EXPECT_EQ(run(m, 16), 5.0f);
  auto s = backend::jit::stats();
  EXPECT_EQ(s.compiled, 0);
  EXPECT_EQ(s.diskHits, 1);
  EXPECT_EQ(s.corruptEntries, 0);
}

TEST(JitCacheTest, AChangedClusterCompilesAgain) {
  TempDir dir;
  backend::jit::resetForTesting(dir.str());
  Model a, b, c;
  build(a, 16);
  build(b, 17);         // another shape
  build(c, 16, "exp"); // another op
  run(a, 16);
  run(b, 17);
  run(c, 16);
  EXPECT_EQ(backend::jit::stats().compiled, 3);
  EXPECT_EQ(entries(dir.str()).size(), 3u);
  backend::jit::resetForTesting(dir.str());
  run(b, 17);
  EXPECT_EQ(backend::jit::stats().compiled, 0);
  EXPECT_EQ(backend::jit::stats().diskHits, 1);
}

TEST(JitCacheTest, CorruptAndTruncatedEntriesAreRebuilt) {
  TempDir dir;
  backend::jit::resetForTesting(dir.str());
  Model m;
  build(m, 16);
  run(m, 16);
  auto files = entries(dir.str());
  ASSERT_EQ(files.size(), 1u);
  fs::path entry = files[0];
  auto size = fs::file_size(entry);
  std::string good;
  {
    std::ifstream in(entry, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto damage = [&](const std::string &bytes) {
    std::ofstream out(entry, std::ios::binary | std::ios::trunc);
    out << bytes;
  };
  std::string flipped = good;
  flipped[flipped.size() - 10] ^= 0x5a; // in the object: the checksum catches it
  std::string wrongKey = good;
  wrongKey[30] ^= 1; // in the stored key
  for (const std::string &bad :
       {good.substr(0, size / 2), good.substr(0, 10), std::string(), flipped, wrongKey,
        std::string(4096, '\xff')}) {
    damage(bad);
    backend::jit::resetForTesting(dir.str());
    EXPECT_EQ(run(m, 16), 5.0f);
    auto s = backend::jit::stats();
    EXPECT_EQ(s.corruptEntries, 1) << bad.size();
    EXPECT_EQ(s.compiled, 1);
    // Rewritten: the next start loads it.
    backend::jit::resetForTesting(dir.str());
    EXPECT_EQ(run(m, 16), 5.0f);
    EXPECT_EQ(backend::jit::stats().diskHits, 1);
    EXPECT_EQ(backend::jit::stats().compiled, 0);
  }
}

TEST(JitCacheTest, AnUnwritableDirectoryStillRuns) {
  TempDir dir;
  {
    std::ofstream f(dir.str()); // a file where the directory should be
    f << "x";
  }
  backend::jit::resetForTesting(dir.str() + "/sub");
  Model m;
  build(m, 16);
  EXPECT_EQ(run(m, 16), 5.0f);
  EXPECT_EQ(backend::jit::stats().compiled, 1);
  std::filesystem::remove(dir.str());
}

} // namespace
} // namespace sluice::jittest
