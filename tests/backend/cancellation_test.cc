// tests/backend/cancellation_test.cc: CancellationManager's contract that
// a caller may free what its callback touches once deregisterCallback
// returns, even while another thread is running the callbacks.
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "support/cancellation.h"

namespace sluice {
namespace {

TEST(CancellationTest, DeregisterWaitsForARunningCallback) {
  CancellationManager cm;
  std::atomic<bool> inCallback{false}, callbackDone{false};
  auto token = cm.registerCallback([&] {
    inCallback = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    callbackDone = true;
  });
  ASSERT_NE(token, CancellationManager::kInvalidToken);
  std::thread canceller([&] { cm.startCancel(); });
  while (!inCallback)
    std::this_thread::yield();
  EXPECT_FALSE(cm.deregisterCallback(token));
  // Returning while the callback still ran would let the caller free it.
  EXPECT_TRUE(callbackDone);
  canceller.join();
}

TEST(CancellationTest, ACallbackMayDeregisterFromInsideTheCancel) {
  CancellationManager cm;
  CancellationManager::Token other = CancellationManager::kInvalidToken;
  bool ran = false;
  cm.registerCallback([&] {
    // Must not wait for itself.
    cm.deregisterCallback(other);
    ran = true;
  });
  other = cm.registerCallback([] {});
  cm.startCancel();
  EXPECT_TRUE(ran);
  EXPECT_TRUE(cm.isCancelled());
}

TEST(CancellationTest, RegisteringAfterTheCancelIsRefusedAndDeregisterIsImmediate) {
  CancellationManager cm;
  auto token = cm.registerCallback([] {});
  EXPECT_TRUE(cm.deregisterCallback(token));
  cm.startCancel();
  EXPECT_EQ(cm.registerCallback([] {}), CancellationManager::kInvalidToken);
  EXPECT_FALSE(cm.deregisterCallback(token));
}

} // namespace
} // namespace sluice
