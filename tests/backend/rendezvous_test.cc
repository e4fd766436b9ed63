// tests/backend/rendezvous_test.cc: TF's rendezvous keys and the
// in-process rendezvous: send before or after recv, cancellation, abort.
#include "backend/rendezvous.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace sluice::backend {
namespace {

const std::string kSrc = "/job:mnist/replica:1/task:2/CPU:0";
const std::string kDst = "/job:mnist/replica:1/task:2/device:GPU:0";

TEST(RendezvousKeyTest, FormatIsTfs) {
  EXPECT_EQ(rendezvousKey(kSrc, 0x1ed2, kDst, "var0"),
            "/job:mnist/replica:1/task:2/CPU:0;0000000000001ed2;"
            "/job:mnist/replica:1/task:2/device:GPU:0;var0;0:0");
  EXPECT_EQ(rendezvousKey("/cpu:0", 1, "/cpu:1", "t", 3, 4), "/cpu:0;0000000000000001;/cpu:1;t;3:4");
}

TEST(RendezvousKeyTest, ParsesBack) {
  auto k = parseRendezvousKey(rendezvousKey(kSrc, 0x1ed2, kDst, "var0", 2, 7));
  ASSERT_TRUE(k.hasValue()) << k.status().toString();
  EXPECT_EQ(k->sendDevice, kSrc);
  EXPECT_EQ(k->incarnation, 0x1ed2u);
  EXPECT_EQ(k->recvDevice, kDst);
  EXPECT_EQ(k->tensorName, "var0");
  EXPECT_EQ(k->frame, 2);
  EXPECT_EQ(k->iteration, 7);
}

TEST(RendezvousKeyTest, MalformedKeysAreInvalidArgument) {
  for (const char *bad : {
           "",
           "a;b;c",
           "/cpu:0;0000000000000001;/cpu:1;t;0:0;extra",
           "/cpu:0;00000000000000zz;/cpu:1;t;0:0",    // not hex
           "/cpu:0;00000000000000001;/cpu:1;t;0:0",   // 17 digits
           "/cpu:0;0000000000000001;/cpu:1;;0:0",     // empty name
           "/bogus:0;0000000000000001;/cpu:1;t;0:0",  // bad device
           ";0000000000000001;/cpu:1;t;0:0",          // empty device
           "/cpu:0;0000000000000001;/cpu:1;t;0",      // no iteration
           "/cpu:0;0000000000000001;/cpu:1;t;x:0",
       }) {
    auto k = parseRendezvousKey(bad);
    ASSERT_FALSE(k.hasValue()) << bad;
    EXPECT_EQ(k.status().code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(k.status().message().find("Invalid rendezvous key"), std::string::npos);
  }
}

TEST(LocalRendezvousTest, SendBeforeAndAfterRecv) {
  LocalRendezvous r;
  ASSERT_TRUE(r.send("early", ir::Tensor::scalar<int32_t>(1)).isOk());
  int got = 0;
  r.recvAsync("early", nullptr, [&](Status s, ir::Tensor t) {
    ASSERT_TRUE(s.isOk());
    got = t.scalarValue<int32_t>();
  });
  EXPECT_EQ(got, 1);
  r.recvAsync("late", nullptr, [&](Status s, ir::Tensor t) {
    ASSERT_TRUE(s.isOk());
    got = t.scalarValue<int32_t>();
  });
  EXPECT_EQ(got, 1); // still waiting
  ASSERT_TRUE(r.send("late", ir::Tensor::scalar<int32_t>(2)).isOk());
  EXPECT_EQ(got, 2);
}

TEST(LocalRendezvousTest, SecondSendOfAKeyFails) {
  LocalRendezvous r;
  ASSERT_TRUE(r.send("k", ir::Tensor::scalar<int32_t>(1)).isOk());
  Status s = r.send("k", ir::Tensor::scalar<int32_t>(1));
  EXPECT_EQ(s.code(), Code::kInternal);
}

TEST(LocalRendezvousTest, CancelledRecvSaysSo) {
  LocalRendezvous r;
  CancellationManager cm;
  Status got;
  r.recvAsync("k", &cm, [&](Status s, ir::Tensor) { got = s; });
  EXPECT_TRUE(got.isOk());
  cm.startCancel();
  EXPECT_EQ(got.code(), Code::kCancelled);
  EXPECT_NE(got.message().find("RecvAsync is cancelled."), std::string::npos);
  // A recv on an already cancelled manager fails at once.
  Status again;
  r.recvAsync("k2", &cm, [&](Status s, ir::Tensor) { again = s; });
  EXPECT_EQ(again.code(), Code::kCancelled);
  // The rendezvous itself is still usable.
  ASSERT_TRUE(r.send("k3", ir::Tensor::scalar<int32_t>(3)).isOk());
}

TEST(LocalRendezvousTest, AbortFailsPendingAndLaterOps) {
  LocalRendezvous r;
  Status pending;
  r.recvAsync("k", nullptr, [&](Status s, ir::Tensor) { pending = s; });
  r.abort(Status(Code::kAborted, "partition 2 failed"));
  EXPECT_EQ(pending.code(), Code::kAborted);
  EXPECT_EQ(r.send("x", ir::Tensor::scalar<int32_t>(1)).code(), Code::kAborted);
  Status later;
  r.recvAsync("y", nullptr, [&](Status s, ir::Tensor) { later = s; });
  EXPECT_EQ(later.message(), "partition 2 failed");
}

TEST(LocalRendezvousTest, ManyThreadsEachKeyOnce) {
  constexpr int kKeys = 2000;
  LocalRendezvous r;
  CancellationManager cm;
  std::atomic<int64_t> sum{0};
  std::atomic<int> done{0};
  std::thread receiver([&] {
    for (int i = 0; i < kKeys; ++i)
      r.recvAsync("k" + std::to_string(i), &cm, [&](Status s, ir::Tensor t) {
        EXPECT_TRUE(s.isOk());
        sum += t.scalarValue<int32_t>();
        ++done;
      });
  });
  std::thread sender([&] {
    for (int i = kKeys - 1; i >= 0; --i)
      EXPECT_TRUE(r.send("k" + std::to_string(i), ir::Tensor::scalar<int32_t>(i)).isOk());
  });
  receiver.join();
  sender.join();
  EXPECT_EQ(done.load(), kKeys);
  EXPECT_EQ(sum.load(), int64_t{kKeys} * (kKeys - 1) / 2);
}

} // namespace
} // namespace sluice::backend
