// tests/io/checkpoint_test.cc: the checkpoint format (round trips,
// shards, checksums, truncation, bit flips, version, crashes at every
// step of a write) and the save/restore kernels.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "backend/io/checkpoint.h"
#include "backend/io/crc32c.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

namespace io = backend::io;

std::string readBytes(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}
void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<io::SaveEntry> sampleEntries(float scale = 1) {
  std::vector<io::SaveEntry> e;
  e.push_back({"w", Tensor::fromVector<float>({1.5f * scale, -2, 3, 4}, {2, 2})});
  e.push_back({"b", Tensor::fromVector<double>({0.25 * scale})});
  e.push_back({"global_step", Tensor::scalar<int64_t>(static_cast<int64_t>(42 * scale))});
  e.push_back({"scope/names", strings({"a", "", std::string("nul\0inside", 10)})});
  return e;
}

/// Reads every tensor of `prefix`, or the first error.
Expected<std::map<std::string, Tensor>> readAll(const std::string &prefix) {
  SLUICE_ASSIGN_OR_RETURN(auto reader, io::CheckpointReader::open(prefix));
  std::map<std::string, Tensor> out;
  for (const io::CheckpointEntry &e : reader->entries()) {
    SLUICE_ASSIGN_OR_RETURN(Tensor t, reader->read(e));
    out[e.name] = t;
  }
  return out;
}

void expectSame(const std::map<std::string, Tensor> &got, const std::vector<io::SaveEntry> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (const io::SaveEntry &e : want) {
    auto it = got.find(e.name);
    ASSERT_NE(it, got.end()) << e.name;
    EXPECT_TRUE(it->second.equals(e.value)) << e.name << ": " << ir::formatTensor(it->second);
  }
}

TEST(CheckpointTest, RoundTripsEveryDtype) {
  TempDir d;
  std::vector<io::SaveEntry> entries = sampleEntries();
  entries.push_back({"h", Tensor::fromVector<ir::Half>({ir::Half(1.5f), ir::Half(-0.25f)})});
  entries.push_back({"i8", Tensor::fromVector<int8_t>({-128, 127})});
  entries.push_back({"i16", Tensor::fromVector<int16_t>({-3, 30000})});
  entries.push_back({"i32", Tensor::fromVector<int32_t>({7}, {1, 1, 1})});
  entries.push_back({"u8", Tensor::fromVector<uint8_t>({0, 255})});
  entries.push_back({"flags", Tensor::fromVector<bool>({true, false, true})});
  entries.push_back({"empty", Tensor(DType::kF32, {0, 3})});
  std::string prefix = d.path("model.ckpt-1");
  ASSERT_TRUE(io::writeCheckpoint(prefix, entries).isOk());
  EXPECT_TRUE(io::checkpointExists(prefix));
  EXPECT_TRUE(std::filesystem::exists(prefix + ".data-00000-of-00001"));
  auto got = readAll(prefix);
  ASSERT_TRUE(got.hasValue()) << got.status().toString();
  expectSame(*got, entries);
  auto reader = io::CheckpointReader::open(prefix);
  ASSERT_TRUE(reader.hasValue());
  const io::CheckpointEntry *w = (*reader)->find("w");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->dtype, DType::kF32);
  EXPECT_EQ(w->dims, (ir::Dims{2, 2}));
  EXPECT_EQ((*reader)->find("nope"), nullptr);
  // Entries come back sorted by name.
  std::vector<std::string> names;
  for (const auto &e : (*reader)->entries())
    names.push_back(e.name);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // No temporaries are left behind.
  for (const auto &f : std::filesystem::directory_iterator(d.dir()))
    EXPECT_EQ(f.path().string().find(".tmp-"), std::string::npos) << f.path();
}

TEST(CheckpointTest, ShardsSplitTensorsAcrossDataFiles) {
  TempDir d;
  std::vector<io::SaveEntry> entries = sampleEntries();
  for (size_t i = 0; i < entries.size(); ++i)
    entries[i].shard = static_cast<int>(i % 3);
  io::CheckpointWriteOptions opts;
  opts.numShards = 3;
  std::string prefix = d.path("m");
  ASSERT_TRUE(io::writeCheckpoint(prefix, entries, opts).isOk());
  for (int k = 0; k < 3; ++k)
    EXPECT_TRUE(std::filesystem::exists(prefix + ".data-0000" + std::to_string(k) + "-of-00003"));
  auto got = readAll(prefix);
  ASSERT_TRUE(got.hasValue()) << got.status().toString();
  expectSame(*got, entries);
  // A missing shard is named.
  std::filesystem::remove(prefix + ".data-00001-of-00003");
  auto partial = readAll(prefix);
  ASSERT_FALSE(partial.hasValue());
  EXPECT_EQ(partial.status().code(), Code::kDataLoss);
  EXPECT_HAS(partial.status().message(), "data-00001-of-00003 is missing");
}

TEST(CheckpointTest, RejectsBadEntries) {
  TempDir d;
  std::string p = d.path("m");
  std::vector<io::SaveEntry> dup = {{"a", Tensor::scalar<float>(1)}, {"a", Tensor::scalar<float>(2)}};
  EXPECT_HAS(io::writeCheckpoint(p, dup).message(), "tensor name 'a' is saved twice");
  std::vector<io::SaveEntry> unnamed = {{"", Tensor::scalar<float>(1)}};
  EXPECT_HAS(io::writeCheckpoint(p, unnamed).message(), "empty name");
  std::vector<io::SaveEntry> shard = {{"a", Tensor::scalar<float>(1), 2}};
  EXPECT_HAS(io::writeCheckpoint(p, shard).message(), "is in shard 2 of 1");
  EXPECT_FALSE(io::checkpointExists(p));
}

TEST(CheckpointTest, AFlippedPayloadBitNamesTheTensorAndFile) {
  TempDir d;
  std::string prefix = d.path("model.ckpt-5");
  ASSERT_TRUE(io::writeCheckpoint(prefix, sampleEntries()).isOk());
  auto reader = io::CheckpointReader::open(prefix);
  ASSERT_TRUE(reader.hasValue());
  const io::CheckpointEntry w = *(*reader)->find("w");
  std::string data = prefix + ".data-00000-of-00001";
  std::string bytes = readBytes(data);
  bytes[w.offset + 5] ^= 0x10;
  writeBytes(data, bytes);
  auto again = io::CheckpointReader::open(prefix);
  ASSERT_TRUE(again.hasValue()); // the index is intact
  auto t = (*again)->read(*(*again)->find("w"));
  ASSERT_FALSE(t.hasValue());
  EXPECT_EQ(t.status().code(), Code::kDataLoss);
  EXPECT_EQ(t.status().message(), "checkpoint " + prefix + ": tensor 'w' in " + data +
                                      " is corrupt (checksum mismatch)");
  // The others still read.
  EXPECT_TRUE((*again)->read(*(*again)->find("b")).hasValue());
}

TEST(CheckpointTest, TruncatedFilesAreDataLoss) {
  TempDir d;
  std::string prefix = d.path("m");
  ASSERT_TRUE(io::writeCheckpoint(prefix, sampleEntries()).isOk());
  std::string data = prefix + ".data-00000-of-00001";
  std::string dataBytes = readBytes(data);
  writeBytes(data, dataBytes.substr(0, dataBytes.size() - 3));
  auto r = readAll(prefix);
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kDataLoss);
  EXPECT_HAS(r.status().message(), data + " is truncated");
  writeBytes(data, dataBytes);
  std::string index = prefix + ".index";
  std::string indexBytes = readBytes(index);
  writeBytes(index, indexBytes.substr(0, indexBytes.size() / 2));
  auto o = io::CheckpointReader::open(prefix);
  ASSERT_FALSE(o.hasValue());
  EXPECT_EQ(o.status().code(), Code::kDataLoss);
  EXPECT_HAS(o.status().message(), index + " is truncated");
  writeBytes(index, "");
  EXPECT_HAS(io::CheckpointReader::open(prefix).status().message(), "bad magic");
  std::filesystem::remove(index);
  auto missing = io::CheckpointReader::open(prefix);
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_HAS(missing.status().message(), index + " does not exist");
}

TEST(CheckpointTest, EveryTruncationAndEveryBitFlipIsAnErrorNeverAWrongValue) {
  TempDir d;
  std::string prefix = d.path("m");
  std::vector<io::SaveEntry> entries = sampleEntries();
  ASSERT_TRUE(io::writeCheckpoint(prefix, entries).isOk());
  for (std::string file : {prefix + ".index", prefix + ".data-00000-of-00001"}) {
    const std::string good = readBytes(file);
    for (size_t n = 0; n < good.size(); ++n) {
      writeBytes(file, good.substr(0, n));
      auto r = readAll(prefix);
      ASSERT_FALSE(r.hasValue()) << file << " cut at " << n;
      EXPECT_EQ(r.status().code(), Code::kDataLoss) << r.status().message();
    }
    for (size_t bit = 0; bit < good.size() * 8; ++bit) {
      std::string bad = good;
      bad[bit / 8] ^= static_cast<char>(1 << (bit % 8));
      writeBytes(file, bad);
      auto r = readAll(prefix);
      // Padding bytes between payloads and the header's reserved words
      // carry no meaning; a flip there may read back the same values.
      if (r.hasValue()) {
        expectSame(*r, entries);
        continue;
      }
      EXPECT_EQ(r.status().code(), Code::kDataLoss) << file << " bit " << bit << ": "
                                                     << r.status().message();
      EXPECT_HAS(r.status().message(), file);
    }
    writeBytes(file, good);
  }
}

TEST(CheckpointTest, ANewerVersionAndForeignFilesAreRefused) {
  TempDir d;
  std::string prefix = d.path("m");
  ASSERT_TRUE(io::writeCheckpoint(prefix, sampleEntries()).isOk());
  // Version 2 with a valid checksum: refused by its version.
  std::string index = readBytes(prefix + ".index");
  uint32_t v2 = 2;
  std::memcpy(index.data() + 8, &v2, 4);
  writeBytes(prefix + ".index", index);
  EXPECT_HAS(io::CheckpointReader::open(prefix).status().message(), "checksum mismatch");
  uint32_t crc = io::maskCrc(io::crc32c(index.data(), index.size() - 4));
  std::memcpy(index.data() + index.size() - 4, &crc, 4);
  writeBytes(prefix + ".index", index);
  auto o = io::CheckpointReader::open(prefix);
  ASSERT_FALSE(o.hasValue());
  EXPECT_EQ(o.status().code(), Code::kDataLoss);
  EXPECT_EQ(o.status().message(),
            prefix + ".index has format version 2; this build reads version 1");
  // A data file from another write of the same tensors is not this one's.
  ASSERT_TRUE(io::writeCheckpoint(prefix, sampleEntries()).isOk());
  std::string other = d.path("other");
  ASSERT_TRUE(io::writeCheckpoint(other, sampleEntries()).isOk());
  std::filesystem::copy_file(other + ".data-00000-of-00001", prefix + ".data-00000-of-00001",
                             std::filesystem::copy_options::overwrite_existing);
  auto r = readAll(prefix);
  ASSERT_FALSE(r.hasValue());
  EXPECT_HAS(r.status().message(), "belongs to another checkpoint than " + prefix + ".index");
  writeBytes(prefix + ".index", "not a checkpoint at all");
  EXPECT_HAS(io::CheckpointReader::open(prefix).status().message(),
             "is not a Sluice checkpoint index (bad magic)");
}

/// Writes a new checkpoint in a child process that dies (SIGKILL) right
/// after write step `stopAt`; returns whether the child got there.
bool writeAndDieAt(const std::string &prefix, const std::vector<io::SaveEntry> &entries,
                   const std::string &stopAt) {
  pid_t pid = ::fork();
  if (pid == 0) {
    io::CheckpointWriteOptions opts;
    opts.onStep = [&](std::string_view step) {
      if (step == stopAt)
        ::kill(::getpid(), SIGKILL);
    };
    Status s = io::writeCheckpoint(prefix, entries, opts);
    ::_exit(s.isOk() ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

TEST(CheckpointTest, ACrashAtAnyStepLeavesTheOldCheckpointLoadable) {
  const std::vector<std::string> steps = {"data-synced", "index-synced", "data-renamed",
                                          "index-renamed"};
  for (const std::string &step : steps) {
    TempDir d;
    std::string old = d.path("model.ckpt-1");
    std::vector<io::SaveEntry> before = sampleEntries(1);
    ASSERT_TRUE(io::writeCheckpoint(old, before).isOk());
    std::string next = d.path("model.ckpt-2");
    ASSERT_TRUE(writeAndDieAt(next, sampleEntries(2), step)) << step;
    auto got = readAll(old);
    ASSERT_TRUE(got.hasValue()) << step << ": " << got.status().toString();
    expectSame(*got, before);
    // The new one is either absent or complete, never corrupt.
    if (io::checkpointExists(next)) {
      auto n = readAll(next);
      ASSERT_TRUE(n.hasValue()) << step << ": " << n.status().toString();
      expectSame(*n, sampleEntries(2));
    } else {
      EXPECT_NE(step, "index-renamed");
    }
    // Temporaries of the interrupted write are what cleanup removes.
    int stale = io::removeStaleTemporaries(d.dir(), "model.ckpt");
    EXPECT_EQ(stale > 0, step != "index-renamed") << step;
  }
}

TEST(CheckpointTest, ACrashWhileRewritingAPrefixNeverPairsAnIndexWithOtherData) {
  const std::vector<std::string> steps = {"data-synced", "index-synced", "old-index-removed",
                                          "data-renamed", "index-renamed"};
  for (const std::string &step : steps) {
    TempDir d;
    std::string p = d.path("model.ckpt-7");
    ASSERT_TRUE(io::writeCheckpoint(p, sampleEntries(1)).isOk());
    ASSERT_TRUE(writeAndDieAt(p, sampleEntries(3), step)) << step;
    if (!io::checkpointExists(p)) {
      EXPECT_TRUE(step == "old-index-removed" || step == "data-renamed") << step;
      continue;
    }
    auto got = readAll(p);
    ASSERT_TRUE(got.hasValue()) << step << ": " << got.status().toString();
    bool isOld = (*got)["global_step"].equals(Tensor::scalar<int64_t>(42));
    expectSame(*got, sampleEntries(isOld ? 1 : 3));
    EXPECT_EQ(isOld, step == "data-synced" || step == "index-synced") << step;
  }
}

TEST(CheckpointTest, WriteFileAtomicallyAndDelete) {
  TempDir d;
  std::string p = d.path("state");
  ASSERT_TRUE(io::writeFileAtomically(p, "one").isOk());
  ASSERT_TRUE(io::writeFileAtomically(p, "two").isOk());
  EXPECT_EQ(readBytes(p), "two");
  std::string prefix = d.path("model.ckpt-3");
  ASSERT_TRUE(io::writeCheckpoint(prefix, sampleEntries()).isOk());
  std::string neighbour = d.path("model.ckpt-30");
  ASSERT_TRUE(io::writeCheckpoint(neighbour, sampleEntries()).isOk());
  writeBytes(prefix + ".meta", "graph");
  ASSERT_TRUE(io::deleteCheckpoint(prefix).isOk());
  EXPECT_FALSE(io::checkpointExists(prefix));
  EXPECT_FALSE(std::filesystem::exists(prefix + ".data-00000-of-00001"));
  EXPECT_FALSE(std::filesystem::exists(prefix + ".meta"));
  EXPECT_TRUE(readAll(neighbour).hasValue()); // a longer name sharing the prefix stays
  EXPECT_TRUE(io::deleteCheckpoint(prefix).isOk()); // twice is fine
  auto unwritable = io::writeFileAtomically(d.path("no/such/dir/file"), "x");
  EXPECT_EQ(unwritable.code(), Code::kNotFound);
}

// #19 item 10: -o, --junit and golden files name what the user means.
TEST(CheckpointTest, WriteFileAtomicallyWritesThroughLinksAndIntoDevices) {
  TempDir d;
  std::string target = d.path("real.txt");
  writeBytes(target, "old");
  std::string link = d.path("link.txt");
  ASSERT_EQ(::symlink("real.txt", link.c_str()), 0); // relative, as ln -s makes it
  std::string chain = d.path("chain.txt");
  ASSERT_EQ(::symlink(link.c_str(), chain.c_str()), 0);
  ASSERT_TRUE(io::writeFileAtomically(chain, "new").isOk());
  EXPECT_EQ(readBytes(target), "new");
  struct stat st;
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode)) << "the link was replaced by a file";
  ASSERT_EQ(::lstat(chain.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  // A dangling link: the file it names is created.
  std::string dangling = d.path("dangling.txt");
  ASSERT_EQ(::symlink("made.txt", dangling.c_str()), 0);
  ASSERT_TRUE(io::writeFileAtomically(dangling, "made").isOk());
  EXPECT_EQ(readBytes(d.path("made.txt")), "made");
  // A device stays a device (as root, rename would have replaced it).
  ASSERT_TRUE(io::writeFileAtomically("/dev/null", "discarded").isOk());
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A directory is refused, not replaced.
  EXPECT_FALSE(io::writeFileAtomically(d.path(""), "x").isOk());
  // A loop of links ends with an error.
  std::string a = d.path("a"), b = d.path("b");
  ASSERT_EQ(::symlink(b.c_str(), a.c_str()), 0);
  ASSERT_EQ(::symlink(a.c_str(), b.c_str()), 0);
  EXPECT_FALSE(io::writeFileAtomically(a, "x").isOk());
}

// --- the kernels -------------------------------------------------------

class CheckpointKernelTest : public GraphTest {};

TEST_F(CheckpointKernelTest, SaveThenRestoreChecksEverythingFirst) {
  TempDir d;
  std::string prefix = d.path("model.ckpt-9");
  ir::Node *save = mustAdd("save_checkpoint",
                           {constant(str(prefix)), constant(Tensor::fromVector<float>({1, 2, 3})),
                            constant(Tensor::scalar<int64_t>(9))},
                           {{"tensor_names", std::vector<std::string>{"w", "global_step"}}});
  auto saved = eval(save);
  ASSERT_TRUE(saved.hasValue()) << saved.status().toString();
  auto restoreNode = [&](std::vector<std::string> names, std::vector<DType> dtypes,
                         std::vector<ir::Shape> shapes) {
    return mustAdd("restore_checkpoint", {constant(str(prefix))},
                   {{"tensor_names", names}, {"dtypes", dtypes}, {"shapes", shapes}});
  };
  ir::Node *ok = restoreNode({"global_step", "w"}, {DType::kI64, DType::kF32},
                             {ir::Shape::scalar(), ir::Shape({-1})});
  EXPECT_EQ(ok->outputShape(1), ir::Shape({-1}));
  auto out = eval(ok);
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(Tensor::scalar<int64_t>(9)));
  EXPECT_TRUE((*out)[1].equals(Tensor::fromVector<float>({1, 2, 3})));

  ir::Node *missing = restoreNode({"w", "b"}, {DType::kF32, DType::kF32}, {});
  EXPECT_EQ(evalError(missing), "Key b not found in checkpoint " + prefix + " (" + prefix + ".index)");
  ir::Node *dtype = restoreNode({"w"}, {DType::kF64}, {});
  EXPECT_EQ(evalError(dtype), prefix + ".index: tensor 'w' has dtype f32, but variable 'w' has "
                                       "dtype f64");
  ir::Node *shape = mustAdd("restore_checkpoint", {constant(str(prefix))},
                            {{"tensor_names", std::vector<std::string>{"w"}},
                             {"dtypes", std::vector<DType>{DType::kF32}},
                             {"shapes", std::vector<ir::Shape>{ir::Shape({4})}},
                             {"variable_names", std::vector<std::string>{"layer/w"}}});
  EXPECT_EQ(evalError(shape), prefix + ".index: tensor 'w' has shape [3], but variable "
                                       "'layer/w' has shape [4]");
  EXPECT_HAS(addError("restore_checkpoint", {constant(str(prefix))},
                      {{"tensor_names", std::vector<std::string>{"w", "w"}},
                       {"dtypes", std::vector<DType>{DType::kF32, DType::kF32}}}),
             "tensor name 'w' appears twice");
  EXPECT_HAS(addError("save_checkpoint", {constant(str(prefix)), constant(str("x"))},
                      {{"tensor_names", std::vector<std::string>{"a", "b"}}}),
             "tensor_names has 2 names for 1 tensors");
  EXPECT_HAS(addError("save_checkpoint", {constant(str(prefix)), constant(str("x"))},
                      {{"tensor_names", std::vector<std::string>{"a"}},
                       {"shards", std::vector<int64_t>{1}}}),
             "shard 1 is not in [0, 1)");
  ir::Node *nowhere = mustAdd("restore_checkpoint", {constant(str(d.path("none")))},
                              {{"tensor_names", std::vector<std::string>{"w"}},
                               {"dtypes", std::vector<DType>{DType::kF32}}});
  auto nf = eval(nowhere);
  EXPECT_EQ(nf.status().code(), Code::kNotFound);
}

} // namespace
} // namespace sluice::testing
