// samples/cpp_fixture/pipeline_test.cc: tests pipeline.sluice's batches
// from C++ through the installed Sluice API.
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sluice/sluice.h>
#include <sluice/testing.h>

namespace {

using sluice::DType;
using sluice::ErrorCode;
using sluice::testing::HasDType;
using sluice::testing::HasShape;
using sluice::testing::TensorEq;
using sluice::testing::TensorNear;

class PipelineTest : public ::testing::Test {
protected:
  void SetUp() override {
    sluice::LoadOptions opts;
    opts.globals["csv"] = FIXTURE_DIR "/sales.csv";
    auto program = sluice::Program::load(FIXTURE_DIR "/pipeline.sluice", opts);
    ASSERT_TRUE(program.ok()) << program.error();
    sluice::SessionOptions sopts;
    sopts.operationTimeoutMs = 10000; // a broken pipeline fails, never hangs
    auto session = program->newSession(sopts);
    ASSERT_TRUE(session.ok()) << session.error();
    session_.emplace(std::move(*session));
    ASSERT_TRUE(session_->initialize().ok());
    ASSERT_TRUE(session_->startQueueRunners().ok());
  }

  std::optional<sluice::Session> session_;
};

TEST_F(PipelineTest, BatchesComeInFileOrder) {
  auto b1 = session_->run({"regions", "revenues"});
  ASSERT_TRUE(b1.ok()) << b1.error();
  EXPECT_THAT((*b1)[0], TensorEq({1, 2}));
  EXPECT_THAT((*b1)[0], HasDType(DType::kInt32));
  EXPECT_THAT((*b1)[1], TensorNear({7.5, 10.0}, 1e-6));
  EXPECT_THAT((*b1)[1], HasDType(DType::kFloat32));

  auto b2 = session_->run({"regions", "revenues"});
  ASSERT_TRUE(b2.ok()) << b2.error();
  EXPECT_THAT((*b2)[0], TensorEq({1, 3}));
  EXPECT_THAT((*b2)[1], TensorNear({5.0, 15.0}, 1e-6));

  // Five records: the last batch is the smaller one, then the end.
  auto b3 = session_->run({"sales/fifo_queue_DequeueUpTo:0", "sales/fifo_queue_DequeueUpTo:1"});
  ASSERT_TRUE(b3.ok()) << b3.error();
  EXPECT_THAT((*b3)[0], HasShape({1}));
  EXPECT_THAT((*b3)[1], TensorNear({10.0}, 1e-6));
  auto end = session_->fetch("revenues");
  ASSERT_FALSE(end.ok());
  EXPECT_EQ(end.error().code(), ErrorCode::kOutOfRange);
}

TEST_F(PipelineTest, TotalRevenue) {
  double total = 0;
  int batches = 0;
  while (true) {
    auto b = session_->fetch("revenues");
    if (!b.ok()) {
      EXPECT_EQ(b.error().code(), ErrorCode::kOutOfRange) << b.error();
      break;
    }
    ++batches;
    for (float r : b->values<float>())
      total += r;
  }
  EXPECT_EQ(batches, 3);
  EXPECT_DOUBLE_EQ(total, 7.5 + 10.0 + 5.0 + 15.0 + 10.0);
}

} // namespace
