// backend/queue_registry.cc: creates the queue a node describes, finds
// shared queues across sessions, and looks queues up from handles.
#include <atomic>
#include <map>

#include "backend/fifo_queue.h"
#include "backend/priority_queue.h"
#include "backend/queue_base.h"
#include "backend/random_shuffle_queue.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {
std::string shapesString(const std::vector<ir::Shape> &ss) {
  std::string s = "[";
  for (size_t i = 0; i < ss.size(); ++i)
    s += (i ? ", " : "") + queueShapeString(ss[i]);
  return s + "]";
}
} // namespace


Expected<std::shared_ptr<QueueBase>> makeQueue(const QueueSpec &spec) {
  if (spec.types.empty())
    return invalidArgument(spec.type + " needs at least one component type");
  if (!spec.shapes.empty() && spec.shapes.size() != spec.types.size())
    return invalidArgument("Queue shapes must have the same length as dtypes (" +
                           std::to_string(spec.shapes.size()) + " shapes for " +
                           std::to_string(spec.types.size()) + " dtypes)");
  if (spec.type == "PaddingFIFOQueue") {
    if (spec.shapes.empty())
      return invalidArgument("When providing partial shapes, a list of shapes must be provided.");
    for (const auto &s : spec.shapes)
      if (!s.hasRank())
        return invalidArgument("PaddingFIFOQueue needs shapes of known rank, got " +
                               shapesString(spec.shapes));
  } else {
    for (const auto &s : spec.shapes)
      if (!s.isFullyDefined())
        return invalidArgument("All shapes must be fully defined: " + shapesString(spec.shapes));
  }
  if (spec.type == "FIFOQueue")
    return std::shared_ptr<QueueBase>(std::make_shared<FIFOQueue>(spec));
  if (spec.type == "PaddingFIFOQueue")
    return std::shared_ptr<QueueBase>(std::make_shared<PaddingFIFOQueue>(spec));
  if (spec.type == "RandomShuffleQueue") {
    if (spec.minAfterDequeue < 0)
      return invalidArgument("min_after_dequeue " + std::to_string(spec.minAfterDequeue) +
                             " must be >= 0");
    if (spec.capacity >= 0 && spec.minAfterDequeue >= spec.capacity)
      return invalidArgument("min_after_dequeue " + std::to_string(spec.minAfterDequeue) +
                             " must be < capacity " + std::to_string(spec.capacity));
    if (spec.deterministic && spec.seed == 0 && spec.seed2 == 0)
      return failedPrecondition("RandomShuffleQueue '" + spec.name +
                                "' has no seed and the session is deterministic: call "
                                "set_random_seed(...) or pass seed:");
    return std::shared_ptr<QueueBase>(std::make_shared<RandomShuffleQueue>(spec));
  }
  if (spec.type == "PriorityQueue") {
    if (spec.types[0] != ir::DType::kI64)
      return invalidArgument("PriorityQueue priority index component must be type int64, "
                             "but dtype is: " + std::string(ir::dtypeName(spec.types[0])));
    if (!spec.shapes.empty() && spec.shapes[0] != ir::Shape::scalar())
      return invalidArgument("PriorityQueue priority index component must be a scalar, "
                             "but shape is: " + queueShapeString(spec.shapes[0]));
    return std::shared_ptr<QueueBase>(std::make_shared<PriorityQueue>(spec));
  }
  return invalidArgument("unknown queue type '" + spec.type + "'");
}

namespace {

constexpr const char *kPrivateContainer = "#private";

// Shared queues outlive one session: every session that opens one holds
// it in its own resources, and this table finds it while any does.
struct SharedQueues {
  std::mutex mu;
  std::map<std::pair<std::string, std::string>, std::weak_ptr<QueueBase>> queues;
};
SharedQueues &sharedQueues() {
  static SharedQueues *s = new SharedQueues; // never destroyed: used at exit
  return *s;
}

std::atomic<int64_t> nextQueueUid{0};

} // namespace

Expected<std::string> openQueue(ResourceMgr &resources, const std::string &container,
                                const std::string &sharedName, const std::string &nodeName,
                                QueueSpec spec) {
  if (sharedName.empty()) {
    auto q = resources.lookupOrCreate<QueueBase>(
        kPrivateContainer, nodeName, [&]() -> Expected<std::shared_ptr<QueueBase>> {
          spec.name = "_" + std::to_string(nextQueueUid.fetch_add(1)) + "_" + nodeName;
          return makeQueue(spec);
        });
    if (!q.hasValue())
      return q.takeStatus();
    return encodeResourceKey(kPrivateContainer, nodeName);
  }
  spec.name = sharedName;
  auto q = resources.lookupOrCreate<QueueBase>(
      container, sharedName, [&]() -> Expected<std::shared_ptr<QueueBase>> {
        SharedQueues &sq = sharedQueues();
        std::lock_guard<std::mutex> lock(sq.mu);
        auto key = std::make_pair(container, sharedName);
        if (auto it = sq.queues.find(key); it != sq.queues.end())
          if (auto alive = it->second.lock())
            return alive;
        for (auto it = sq.queues.begin(); it != sq.queues.end();)
          it = it->second.expired() ? sq.queues.erase(it) : std::next(it);
        auto made = makeQueue(spec);
        if (made.hasValue())
          sq.queues[key] = *made;
        return made;
      });
  if (!q.hasValue())
    return q.takeStatus();
  SLUICE_TRY((*q)->matches(spec));
  return encodeResourceKey(container, sharedName);
}

Expected<std::shared_ptr<QueueInterface>> lookupQueue(KernelContext &ctx, int input) {
  const ir::Tensor &h = ctx.input(input);
  if (h.dtype() != ir::DType::kResource || h.numElements() != 1)
    return invalidArgument("expected a scalar queue handle");
  if (!ctx.resources())
    return internalError("no resource manager in this step");
  auto [container, name] = decodeResourceKey(h.strings()[0]);
  auto q = ctx.resources()->lookup<QueueInterface>(container, name);
  if (!q)
    return notFound("Resource " + h.strings()[0] + " does not exist or is not a queue");
  return q;
}

} // namespace sluice::backend
