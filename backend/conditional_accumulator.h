// backend/conditional_accumulator.h: TF1's ConditionalAccumulator, the
// per-variable gradient store of synchronous replication. A gradient is
// accepted only if it was computed at a step no older than the
// accumulator's (stale ones are dropped silently, as TF does); a take
// waits until enough were accepted, returns their mean (or sum), clears
// the store and advances the step.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "backend/resource_mgr.h"
#include "ir/shape.h"
#include "ir/tensor.h"
#include "support/cancellation.h"

namespace sluice::backend {

class ConditionalAccumulator : public Resource,
                               public std::enable_shared_from_this<ConditionalAccumulator> {
public:
  using TakeDone = std::function<void(Status, ir::Tensor)>;

  ConditionalAccumulator(ir::DType dtype, ir::Shape shape, std::string name, bool mean);
  ~ConditionalAccumulator() override;

  std::string kind() const override { return "ConditionalAccumulator"; }
  const std::string &name() const { return name_; }
  ir::DType dtype() const { return dtype_; }
  const ir::Shape &shape() const { return shape_; }
  bool mean() const { return mean_; }

  /// Adds `grad` if `localStep` >= the accumulator's step; invalid_argument
  /// for a dtype or shape that does not match.
  Status applyGrad(int64_t localStep, const ir::Tensor &grad);
  /// Calls `done` once `numRequired` gradients were accepted (in arrival
  /// order of the takes); cancelled through `cm`.
  void tryTakeGrad(int64_t numRequired, CancellationManager *cm, TakeDone done);
  int64_t numAccumulated();
  /// TF keeps a lower step too (with a warning); so do we.
  void setGlobalStep(int64_t step);
  int64_t globalStep();

private:
  struct Take {
    uint64_t id = 0;
    int64_t numRequired = 0;
    CancellationManager *cm = nullptr;
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    TakeDone done;
  };
  struct Finished {
    Take take;
    Status status;
    ir::Tensor value;
  };
  /// Serves the oldest takes that can be served now; called with mu_ held.
  void serveTakesLocked(std::vector<Finished> &finished);
  static void complete(std::vector<Finished> &finished);
  void cancelTake(uint64_t id);

  const ir::DType dtype_;
  const ir::Shape shape_;
  const std::string name_;
  const bool mean_;

  std::mutex mu_;
  int64_t globalStep_ = 0; // guarded by mu_
  int64_t counter_ = 0;    // guarded by mu_
  ir::Tensor sum_;         // guarded by mu_
  std::deque<Take> takes_; // guarded by mu_
  uint64_t nextTake_ = 1;  // guarded by mu_
};

} // namespace sluice::backend
