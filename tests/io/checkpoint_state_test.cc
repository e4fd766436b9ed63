// tests/io/checkpoint_state_test.cc: the `checkpoint` state file: its
// text format, TF's relative-path rules, latest_checkpoint, the conflict
// with the state file and an unparsable file being ignored.
#include "backend/io/checkpoint.h"
#include "backend/io/checkpoint_state.h"
#include "io_test_util.h"

namespace sluice::testing {
namespace {

namespace io = backend::io;

std::string readText(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// Changes the working directory for one test.
class InDir {
public:
  explicit InDir(const std::string &dir) : old_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InDir() { std::filesystem::current_path(old_); }

private:
  std::filesystem::path old_;
};

TEST(CheckpointStateTest, TextFormatRoundTrips) {
  io::CheckpointState s;
  s.modelCheckpointPath = "model.ckpt-20";
  s.allModelCheckpointPaths = {"model.ckpt-10", "with \"quote\" and \\ and \n", "model.ckpt-20"};
  std::string text = io::formatCheckpointState(s);
  EXPECT_EQ(text.substr(0, text.find('\n')), "model_checkpoint_path: \"model.ckpt-20\"");
  auto back = io::parseCheckpointState(text);
  ASSERT_TRUE(back.hasValue()) << back.status().toString();
  EXPECT_EQ(back->modelCheckpointPath, s.modelCheckpointPath);
  EXPECT_EQ(back->allModelCheckpointPaths, s.allModelCheckpointPaths);
  // What TF writes, timestamps and comments included, also parses.
  auto tf = io::parseCheckpointState(
      "# written by TF\nmodel_checkpoint_path: \"m-2\"\nall_model_checkpoint_paths: 'm-1'\n"
      "all_model_checkpoint_paths: \"m\" \"-2\"\nall_model_checkpoint_timestamps: 1.5e9\n"
      "last_preserved_timestamp: 1712345678.25\n");
  ASSERT_TRUE(tf.hasValue()) << tf.status().toString();
  EXPECT_EQ(tf->allModelCheckpointPaths, (std::vector<std::string>{"m-1", "m-2"}));
  EXPECT_HAS(io::parseCheckpointState("model_checkpoint_path \"x\"").status().message(),
             "expected ':'");
  EXPECT_HAS(io::parseCheckpointState("bogus: \"x\"").status().message(), "no field named");
  EXPECT_HAS(io::parseCheckpointState("model_checkpoint_path: \"unterminated").status().message(),
             "expected a quoted string");
  EXPECT_HAS(io::parseCheckpointState("\xff\xfe").status().message(), "expected a field name");
}

TEST(CheckpointStateTest, RelativeDirsGiveRelativePaths) {
  TempDir d;
  InDir in(d.dir());
  std::filesystem::create_directory("logs");
  ASSERT_TRUE(io::writeCheckpoint("logs/model.ckpt-1", {{"v", Tensor::scalar<float>(1)}}).isOk());
  ASSERT_TRUE(io::updateCheckpointState("logs", "logs/model.ckpt-1", {}).isOk());
  EXPECT_EQ(readText("logs/checkpoint"), "model_checkpoint_path: \"model.ckpt-1\"\n"
                                         "all_model_checkpoint_paths: \"model.ckpt-1\"\n");
  auto state = io::getCheckpointState("logs");
  ASSERT_TRUE(state.hasValue() && *state);
  EXPECT_EQ((*state)->modelCheckpointPath, "logs/model.ckpt-1");
  EXPECT_EQ(io::latestCheckpoint("logs"), std::optional<std::string>("logs/model.ckpt-1"));
  // An absolute dir keeps the paths as given.
  std::string abs = d.path("logs");
  ASSERT_TRUE(io::updateCheckpointState(abs, abs + "/model.ckpt-1", {abs + "/model.ckpt-0"}).isOk());
  EXPECT_EQ(readText("logs/checkpoint"),
            "model_checkpoint_path: \"" + abs + "/model.ckpt-1\"\n"
            "all_model_checkpoint_paths: \"" + abs + "/model.ckpt-0\"\n"
            "all_model_checkpoint_paths: \"" + abs + "/model.ckpt-1\"\n");
  EXPECT_EQ(io::latestCheckpoint(abs), std::optional<std::string>(abs + "/model.ckpt-1"));
}

TEST(CheckpointStateTest, LatestNeedsTheIndexAndIgnoresAnUnparsableState) {
  TempDir d;
  std::string dir = d.dir();
  EXPECT_EQ(io::latestCheckpoint(dir), std::nullopt); // no state file
  ASSERT_TRUE(io::updateCheckpointState(dir, dir + "/model.ckpt-5", {}).isOk());
  std::string warning;
  EXPECT_EQ(io::latestCheckpoint(dir, "", &warning), std::nullopt); // no .index
  EXPECT_EQ(warning, "Couldn't match files for checkpoint " + dir + "/model.ckpt-5");
  ASSERT_TRUE(io::writeCheckpoint(dir + "/model.ckpt-5", {{"v", Tensor::scalar<float>(1)}}).isOk());
  EXPECT_EQ(io::latestCheckpoint(dir), std::optional<std::string>(dir + "/model.ckpt-5"));
  d.file("checkpoint", "this is { not a state file");
  warning.clear();
  auto state = io::getCheckpointState(dir, "", &warning);
  ASSERT_TRUE(state.hasValue());
  EXPECT_FALSE(*state);
  EXPECT_HAS(warning, "ParseError");
  EXPECT_EQ(io::latestCheckpoint(dir), std::nullopt);
  d.file("checkpoint", "all_model_checkpoint_paths: \"a\"\n");
  auto invalid = io::getCheckpointState(dir);
  ASSERT_FALSE(invalid.hasValue());
  EXPECT_EQ(invalid.status().code(), Code::kValueError);
  EXPECT_EQ(invalid.status().message(), "Invalid checkpoint state loaded from " + dir);
  // Another state file name.
  ASSERT_TRUE(io::updateCheckpointState(dir, dir + "/model.ckpt-5", {}, "other_state").isOk());
  EXPECT_EQ(io::latestCheckpoint(dir, "other_state"),
            std::optional<std::string>(dir + "/model.ckpt-5"));
}

TEST(CheckpointStateTest, APrefixEqualToTheStateFileIsRefused) {
  TempDir d;
  EXPECT_TRUE(io::conflictsWithStateFile(d.dir(), d.path("checkpoint")));
  EXPECT_TRUE(io::conflictsWithStateFile(d.dir(), d.dir() + "/./checkpoint"));
  EXPECT_FALSE(io::conflictsWithStateFile(d.dir(), d.path("checkpoint-1")));
  Status s = io::updateCheckpointState(d.dir(), d.path("checkpoint"), {});
  EXPECT_EQ(s.code(), Code::kRuntimeError);
  EXPECT_HAS(s.message(), "conflicts with path used for checkpoint state");
  EXPECT_FALSE(std::filesystem::exists(d.path("checkpoint")));
}

TEST(CheckpointStateTest, TheNewestIsAppendedOnce) {
  TempDir d;
  ASSERT_TRUE(io::updateCheckpointState(d.dir(), d.path("m-2"), {d.path("m-1"), d.path("m-2")}).isOk());
  auto state = io::getCheckpointState(d.dir());
  ASSERT_TRUE(state.hasValue() && *state);
  EXPECT_EQ((*state)->allModelCheckpointPaths,
            (std::vector<std::string>{d.path("m-1"), d.path("m-2")}));
  EXPECT_EQ(io::joinPath("a", "/abs"), "/abs");
  EXPECT_EQ(io::joinPath("a/", "b"), "a/b");
  EXPECT_EQ(io::joinPath("", "b"), "b");
}

} // namespace
} // namespace sluice::testing
