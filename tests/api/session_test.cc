// tests/api/session_test.cc: Session: feeds and fetches by name,
// variables, queue runners over a CSV file, datasets, and run errors.
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sluice/sluice.h"
#include "sluice/testing.h"

namespace {

using sluice::DType;
using sluice::ErrorCode;
using sluice::HostTensor;
using sluice::Program;
using sluice::testing::HasDType;
using sluice::testing::HasShape;
using sluice::testing::TensorEq;
using sluice::testing::TensorNear;
using ::testing::HasSubstr;

/// A temporary folder with one CSV file, removed at the end.
class CsvDir {
public:
  explicit CsvDir(const std::string &text) {
    dir_ = std::filesystem::temp_directory_path() /
           ("sluice_api_session_" + std::to_string(::getpid()) + "_" + std::to_string(next_++));
    std::filesystem::create_directories(dir_);
    std::ofstream(csv()) << text;
  }
  ~CsvDir() { std::filesystem::remove_all(dir_); }
  std::string csv() const { return (dir_ / "data.csv").string(); }

private:
  static inline int next_ = 0;
  std::filesystem::path dir_;
};

TEST(SessionTest, FeedsAndFetchesByName) {
  auto p = Program::fromString("x = placeholder(f32, shape: [none], name: \"x\")\n"
                               "y = x * 2.0 + 1.0\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok()) << s.error();
  auto y = s->fetch("y", {{"x", HostTensor::of<float>({1, 2, 3})}});
  ASSERT_TRUE(y.ok()) << y.error();
  EXPECT_THAT(*y, TensorEq(HostTensor::of<float>({3, 5, 7})));
  EXPECT_THAT(*y, HasDType(DType::kFloat32));
  auto both = s->run({"x", "y"}, {{"x", HostTensor::of<float>({0.5f})}});
  ASSERT_TRUE(both.ok()) << both.error();
  ASSERT_EQ(both->size(), 2u);
  EXPECT_THAT((*both)[1], TensorNear({2.0}, 1e-6));
}

TEST(SessionTest, UnfedPlaceholderIsInvalidArgument) {
  auto p = Program::fromString("x = placeholder(f32, name: \"x\")\ny = x + 1.0\n", {}, "f.sluice");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  auto y = s->fetch("y");
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_THAT(y.error().toString(), HasSubstr("x"));
}

TEST(SessionTest, FeedOfTheWrongDTypeFails) {
  auto p = Program::fromString("x = placeholder(f32, name: \"x\")\ny = x + 1.0\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  auto y = s->fetch("y", {{"x", HostTensor::scalar<int32_t>(1)}});
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.error().code(), ErrorCode::kInvalidArgument);
}

TEST(SessionTest, VariablesPersistAcrossRunsAndNotAcrossSessions) {
  auto p = Program::fromString("c = variable(0, name: \"counter\")\n"
                               "inc = assign_add(c, 1)\n");
  ASSERT_TRUE(p.ok()) << p.error();
  for (int round = 0; round < 2; ++round) {
    auto s = p->newSession();
    ASSERT_TRUE(s.ok());
    ASSERT_TRUE(s->initialize().ok());
    for (int i = 0; i < 3; ++i)
      ASSERT_TRUE(s->runTargets({"inc"}).ok());
    auto c = s->fetch("c"); // a top-level variable: its value
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_THAT(*c, TensorEq(HostTensor::scalar<int32_t>(3)));
  }
}

TEST(SessionTest, FetchingAnOpIsAnError) {
  auto p = Program::fromString("c = variable(0)\ninit = global_variables_initializer()\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  auto r = s->fetch("init");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.error().message(), HasSubstr("run it as a target"));
  EXPECT_TRUE(s->runTargets({"init"}).ok());
}

TEST(SessionTest, QueueRunnersBatchACsvFile) {
  CsvDir d("a,b,label\n1.0,2.0,0\n3.0,4.0,1\n5.0,6.0,0\n7.0,8.0,1\n9.0,10.0,1\n");
  auto p = Program::fromString(
      "files = string_input_producer([csv], num_epochs: 1, shuffle: false)\n"
      "key, value = text_line_reader(skip_header_lines: 1).read(files)\n"
      "a, b, label = decode_csv(value, record_defaults: [[0.0], [0.0], [0]])\n"
      "features, labels = batch([stack([a, b]), label], batch_size: 2,\n"
      "                         allow_smaller_final_batch: true)\n",
      {.globals = {{"csv", d.csv()}}});
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->initialize().ok());
  ASSERT_TRUE(s->startQueueRunners().ok());
  auto b1 = s->run({"features", "labels"});
  ASSERT_TRUE(b1.ok()) << b1.error();
  EXPECT_THAT((*b1)[0], TensorEq({{1, 2}, {3, 4}}));
  EXPECT_THAT((*b1)[1], TensorEq(HostTensor::of<int32_t>({0, 1})));
  auto b2 = s->run({"features", "labels"});
  ASSERT_TRUE(b2.ok()) << b2.error();
  EXPECT_THAT((*b2)[0], TensorEq({{5, 6}, {7, 8}}));
  auto b3 = s->run({"features", "labels"});
  ASSERT_TRUE(b3.ok()) << b3.error();
  EXPECT_THAT((*b3)[0], HasShape({1, 2}));
  auto end = s->run({"features"});
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), ErrorCode::kOutOfRange);
  EXPECT_TRUE(s->stopQueueRunners().ok());
}

TEST(SessionTest, ARunnerErrorIsWhatTheConsumerSees) {
  CsvDir d("1.0,oops\n");
  auto p = Program::fromString(
      "files = string_input_producer([csv], num_epochs: 1)\n"
      "key, value = text_line_reader().read(files)\n"
      "a, n = decode_csv(value, record_defaults: [[0.0], [0]])\n"
      "xs, ns = batch([a, n], batch_size: 1)\n",
      {.globals = {{"csv", d.csv()}}});
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->initialize().ok());
  ASSERT_TRUE(s->startQueueRunners().ok());
  auto r = s->fetch("xs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kInvalidArgument);
  EXPECT_THAT(r.error().message(), HasSubstr("oops"));
  EXPECT_FALSE(s->stopQueueRunners().ok());
}

TEST(SessionTest, ADequeueNothingFillsStallsInsteadOfHanging) {
  auto p = Program::fromString("q = fifo_queue(capacity: 2, dtypes: [f32])\n"
                               "x = q.dequeue()\n",
                               {}, "stall.sluice");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  auto r = s->fetch("x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kFailedPrecondition);
  EXPECT_THAT(r.error().message(), HasSubstr("run stalled"));
}

TEST(SessionTest, DatasetIteratorWithAFedFilename) {
  CsvDir d("x,y\n1,10\n2,20\n3,30\n");
  auto p = Program::fromString(
      "filename = placeholder(string, shape: [], name: \"filename\")\n"
      "fn parse(line) {\n"
      "    x, y = decode_csv(line, record_defaults: [[0], [0.0]])\n"
      "    return (x, y)\n"
      "}\n"
      "it = text_line_dataset(filename).skip(1).map(parse).batch(2).make_initializable_iterator()\n"
      "init = it.initializer\n"
      "xs, ys = it.get_next()\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE(s->runTargets({"init"}, {{"filename", HostTensor::scalar(d.csv().c_str())}}).ok());
  auto r = s->run({"xs", "ys"});
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_THAT((*r)[0], TensorEq(HostTensor::of<int32_t>({1, 2})));
  EXPECT_THAT((*r)[1], TensorNear({10, 20}, 1e-6));
  auto last = s->fetch("xs");
  ASSERT_TRUE(last.ok()) << last.error();
  EXPECT_THAT(*last, TensorEq({3}));
  auto end = s->fetch("xs");
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), ErrorCode::kOutOfRange);
}

TEST(SessionTest, ClosedSessionRefusesRuns) {
  auto p = Program::fromString("a = constant(1.0, name: \"a\")\n");
  ASSERT_TRUE(p.ok()) << p.error();
  auto s = p->newSession();
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->fetch("a").ok());
  EXPECT_TRUE(s->close().ok());
  auto r = s->fetch("a");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::kCancelled);
}

} // namespace
