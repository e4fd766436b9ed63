// backend/conditional_accumulator.cc
#include "backend/conditional_accumulator.h"

namespace sluice::backend {

namespace {

// TF's TensorShape::DebugString form.
std::string dimsText(const ir::Dims &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i)
    s += (i ? "," : "") + std::to_string(d[i]);
  return s + "]";
}

template <typename T> void addInto(ir::Tensor &sum, const ir::Tensor &g) {
  T *s = sum.data<T>();
  const T *x = g.data<T>();
  for (int64_t i = 0, n = g.numElements(); i < n; ++i)
    s[i] = static_cast<T>(static_cast<double>(s[i]) + static_cast<double>(x[i]));
}

template <typename T> void divideBy(ir::Tensor &t, int64_t n) {
  T *s = t.data<T>();
  for (int64_t i = 0, e = t.numElements(); i < e; ++i)
    s[i] = static_cast<T>(static_cast<double>(s[i]) / static_cast<double>(n));
}

template <typename F> void withFloatType(ir::DType t, F &&f) {
  switch (t) {
  case ir::DType::kF16: f(ir::Half{}); break;
  case ir::DType::kF32: f(float{}); break;
  default: f(double{}); break;
  }
}

} // namespace

ConditionalAccumulator::ConditionalAccumulator(ir::DType dtype, ir::Shape shape,
                                               std::string name, bool mean)
    : dtype_(dtype), shape_(std::move(shape)), name_(std::move(name)), mean_(mean) {}

ConditionalAccumulator::~ConditionalAccumulator() {
  // Nothing can reach it any more: fail what still waits.
  std::vector<Finished> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Take &t : takes_)
      finished.push_back({std::move(t), cancelled("TakeGrad operation was cancelled"), {}});
    takes_.clear();
  }
  complete(finished);
}

Status ConditionalAccumulator::applyGrad(int64_t localStep, const ir::Tensor &grad) {
  if (grad.dtype() != dtype_)
    return invalidArgument("Accumulator '" + name_ + "' holds " +
                           std::string(ir::dtypeName(dtype_)) + " gradients, got a " +
                           std::string(ir::dtypeName(grad.dtype())) + " one");
  std::vector<Finished> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (counter_ > 0 && sum_.dims() != grad.dims())
      return invalidArgument("Shape mismatch: expected " + dimsText(sum_.dims()) + ", got " +
                             dimsText(grad.dims()));
    if (!shape_.isCompatibleWith(grad.dims()))
      return invalidArgument("Shape mismatch: expected " + shape_.str() + ", got " +
                             dimsText(grad.dims()));
    if (localStep < globalStep_)
      return Status::ok(); // stale: computed before the last update
    if (counter_ == 0)
      sum_ = grad.deepCopy();
    else
      withFloatType(dtype_, [&](auto t) { addInto<decltype(t)>(sum_, grad); });
    ++counter_;
    serveTakesLocked(finished);
  }
  complete(finished);
  return Status::ok();
}

void ConditionalAccumulator::tryTakeGrad(int64_t numRequired, CancellationManager *cm,
                                         TakeDone done) {
  if (numRequired <= 0)
    return done(invalidArgument("Argument num_required must be positive, but was " +
                                std::to_string(numRequired)),
                {});
  std::vector<Finished> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    Take t;
    t.id = nextTake_++;
    t.numRequired = numRequired;
    t.done = std::move(done);
    if (cm) {
      std::weak_ptr<ConditionalAccumulator> weak = weak_from_this();
      uint64_t id = t.id;
      t.cm = cm;
      t.token = cm->registerCallback([weak, id] {
        if (auto self = weak.lock())
          self->cancelTake(id);
      });
      if (t.token == CancellationManager::kInvalidToken) {
        finished.push_back({std::move(t), cancelled("TakeGrad operation was cancelled"), {}});
        t.cm = nullptr;
      }
    }
    if (finished.empty()) {
      takes_.push_back(std::move(t));
      serveTakesLocked(finished);
    }
  }
  complete(finished);
}

void ConditionalAccumulator::serveTakesLocked(std::vector<Finished> &finished) {
  while (!takes_.empty() && counter_ >= takes_.front().numRequired) {
    ir::Tensor value = std::move(sum_);
    if (mean_)
      withFloatType(dtype_, [&](auto t) { divideBy<decltype(t)>(value, counter_); });
    counter_ = 0;
    sum_ = ir::Tensor();
    ++globalStep_;
    finished.push_back({std::move(takes_.front()), Status::ok(), std::move(value)});
    takes_.pop_front();
  }
}

void ConditionalAccumulator::complete(std::vector<Finished> &finished) {
  // Outside the lock: a callback may run the next step's ops.
  for (Finished &f : finished) {
    if (f.take.cm && f.take.token != CancellationManager::kInvalidToken)
      f.take.cm->deregisterCallback(f.take.token);
    f.take.done(std::move(f.status), std::move(f.value));
  }
  finished.clear();
}

void ConditionalAccumulator::cancelTake(uint64_t id) {
  std::vector<Finished> finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = takes_.begin(); it != takes_.end(); ++it)
      if (it->id == id) {
        Take t = std::move(*it);
        takes_.erase(it);
        t.cm = nullptr; // the manager is running this very callback
        finished.push_back({std::move(t), cancelled("TakeGrad operation was cancelled"), {}});
        break;
      }
  }
  complete(finished);
}

int64_t ConditionalAccumulator::numAccumulated() {
  std::lock_guard<std::mutex> lock(mu_);
  return counter_;
}

void ConditionalAccumulator::setGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  globalStep_ = step;
}

int64_t ConditionalAccumulator::globalStep() {
  std::lock_guard<std::mutex> lock(mu_);
  return globalStep_;
}

} // namespace sluice::backend
