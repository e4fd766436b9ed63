// tests/jit/cache_test.cc: the JIT's disk cache: a restart (the engine
// reset onto the same directory, as a new process) compiles nothing, a
// changed cluster compiles again, and a corrupt or truncated entry is
// ignored, rebuilt and rewritten. tests/cli/jit_cli_test.sh checks the
// same across real processes. The size limit drops the least recently
// used entries.
#include <cstdlib>
#include <fstream>

#include "backend/jit/object_cache.h"
#include "support/settings.h"
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

// Stores `key` with an object of `bytes` and dates its file `age` ago.
std::string storeAged(const backend::jit::ObjectCache &c, const std::string &key, size_t bytes,
                      std::chrono::minutes age) {
  std::string why;
  EXPECT_TRUE(c.store(key, std::string(bytes, 'x'), why)) << why;
  fs::last_write_time(c.pathFor(key), fs::file_time_type::clock::now() - age);
  return c.pathFor(key);
}

TEST(JitCacheTest, TrimDropsTheLeastRecentlyUsedEntriesFirst) {
  TempDir dir;
  backend::jit::ObjectCache c(dir.str(), 1000);
  std::string oldest = storeAged(c, "a", 400, std::chrono::minutes(30));
  std::string old = storeAged(c, "b", 400, std::chrono::minutes(20));
  std::string used = storeAged(c, "c", 400, std::chrono::minutes(40));
  std::string obj;
  std::string why;
  // Reading "c" makes it the most recently used.
  ASSERT_EQ(c.load("c", obj, why), backend::jit::ObjectCache::Result::kHit) << why;
  std::string fresh = storeAged(c, "d", 400, std::chrono::minutes(0));
  {
    std::ofstream f(dir.str() + "/notes.txt"); // not the cache's: never removed
    f << std::string(5000, 'n');
  }
  backend::jit::ObjectCache::Trimmed t = c.trim(fresh);
  // Each file holds its header and key too, so two of four must go.
  EXPECT_EQ(t.files, 2);
  EXPECT_FALSE(fs::exists(oldest));
  EXPECT_FALSE(fs::exists(old));
  EXPECT_TRUE(fs::exists(used));
  EXPECT_TRUE(fs::exists(fresh));
  EXPECT_TRUE(fs::exists(dir.str() + "/notes.txt"));
  EXPECT_EQ(c.trim(fresh).files, 0); // under the limit now
}

TEST(JitCacheTest, TrimNeverRemovesTheEntryJustStored) {
  TempDir dir;
  backend::jit::ObjectCache c(dir.str(), 100);
  std::string big = storeAged(c, "big", 4000, std::chrono::minutes(90));
  EXPECT_EQ(c.trim(big).files, 0);
  EXPECT_TRUE(fs::exists(big));
}

TEST(JitCacheTest, TrimRemovesOnlyStaleTemporaries) {
  TempDir dir;
  backend::jit::ObjectCache c(dir.str(), 1 << 20);
  std::string keep = storeAged(c, "k", 10, std::chrono::minutes(0));
  std::string stale = keep + ".tmp-1", live = keep + ".tmp-2";
  for (const std::string &p : {stale, live})
    std::ofstream(p) << "partial";
  fs::last_write_time(stale, fs::file_time_type::clock::now() - std::chrono::hours(2));
  EXPECT_EQ(c.trim(keep).files, 1);
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live)); // another process may still be writing it
}

TEST(JitCacheTest, TheLimitComesFromTheEnvironment) {
  auto limit = [](const char *text) { return withSetting(&Settings::jitCacheMaxMb, text); };
  {
    ScopedSettings three(limit("3"));
    EXPECT_EQ(backend::jit::ObjectCache::defaultMaxBytes(), uint64_t{3} << 20);
  }
  for (const char *bad : {"0", "-1", "lots", "3MB", ""}) {
    ScopedSettings wrong(limit(bad));
    EXPECT_EQ(backend::jit::ObjectCache::defaultMaxBytes(), uint64_t{256} << 20) << bad;
  }
  // Read from the environment as the tool reads it at start.
  setenv("SLUICE_JIT_CACHE_MAX_MB", "5", 1);
  EXPECT_EQ(settingsFromEnvironment().jitCacheMaxMb, "5");
  unsetenv("SLUICE_JIT_CACHE_MAX_MB");
}

// Through the engine: a cache limited to 1 MiB holding an old 1 MiB file
// drops it when a cluster is compiled and stored.
TEST(JitCacheTest, TheEngineTrimsAfterStoring) {
  TempDir dir;
  {
    ScopedSettings oneMiB(withSetting(&Settings::jitCacheMaxMb, "1"));
    backend::jit::resetForTesting(dir.str());
  }
  backend::jit::ObjectCache c(dir.str(), 1 << 20);
  std::string filler = storeAged(c, "filler", 1 << 20, std::chrono::minutes(60));
  Model m;
  build(m, 16);
  EXPECT_EQ(run(m, 16), 5.0f);
  EXPECT_EQ(backend::jit::stats().compiled, 1);
  EXPECT_EQ(backend::jit::stats().evicted, 1);
  EXPECT_FALSE(fs::exists(filler));
  EXPECT_EQ(entries(dir.str()).size(), 1u);
}

} // namespace
} // namespace sluice::jittest
