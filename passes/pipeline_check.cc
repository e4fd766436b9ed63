// passes/pipeline_check.cc: finds queues nothing fills.
#include "passes/pipeline_check.h"

#include <map>
#include <set>

namespace sluice::passes {

namespace {

bool isQueueOp(const std::string &op) {
  return op == "fifo_queue" || op == "padding_fifo_queue" ||
         op == "random_shuffle_queue" || op == "priority_queue";
}
bool isEnqueueOp(const std::string &op) {
  return op == "queue_enqueue" || op == "queue_enqueue_many";
}
bool isDequeueOp(const std::string &op) {
  return op == "queue_dequeue" || op == "queue_dequeue_many" ||
         op == "queue_dequeue_up_to";
}
bool isReaderRead(const std::string &op) {
  return op == "reader_read" || op == "reader_read_up_to";
}

/// The queue node behind a handle input, looking through identities.
const ir::Node *queueBehind(const ir::Graph &g, ir::Output in) {
  for (int hops = 0; hops < 64; ++hops) {
    const ir::Node &n = g.node(in.node);
    if (isQueueOp(n.opName()))
      return &n;
    if (n.opName() != "identity" || n.numInputs() != 1)
      return nullptr;
    in = n.inputs()[0];
  }
  return nullptr;
}

bool isShared(const ir::Node &queue) {
  return queue.hasAttr("shared_name") && !queue.attr<std::string>("shared_name").empty();
}

class PipelineCheckPass : public Pass {
public:
  std::string_view name() const override { return "pipeline-check"; }
  Status run(ir::Graph &graph, PassContext &ctx) override {
    for (Status &s : checkPipelines(graph))
      ctx.warnings.push_back(std::move(s));
    return Status::ok();
  }
};

} // namespace

std::vector<Status> checkPipelines(const ir::Graph &g) {
  std::set<ir::NodeId> filled;
  // First use of each queue by a dequeue or reader, in id order.
  std::map<ir::NodeId, const ir::Node *> dequeuedBy, readBy;
  for (int i = 0; i < g.numNodes(); ++i) {
    const ir::Node &n = g.node(i);
    const std::string &op = n.opName();
    if (isEnqueueOp(op) && n.numInputs() > 0) {
      if (const ir::Node *q = queueBehind(g, n.inputs()[0]))
        filled.insert(q->id());
    } else if (isDequeueOp(op) && n.numInputs() > 0) {
      if (const ir::Node *q = queueBehind(g, n.inputs()[0]))
        dequeuedBy.emplace(q->id(), &n);
    } else if (isReaderRead(op) && n.numInputs() > 1) {
      if (const ir::Node *q = queueBehind(g, n.inputs()[1]))
        readBy.emplace(q->id(), &n);
    }
  }
  std::vector<Status> out;
  for (const auto &[qid, user] : dequeuedBy) {
    const ir::Node &q = g.node(qid);
    if (filled.count(qid) || isShared(q))
      continue;
    out.push_back(Status(Code::kFailedPrecondition,
                         "queue '" + q.name() + "' is dequeued by '" + user->name() +
                             "' but nothing enqueues to it (created at " + q.loc().str() + ")",
                         user->loc(), user->name()));
  }
  for (const auto &[qid, reader] : readBy) {
    const ir::Node &q = g.node(qid);
    if (filled.count(qid) || isShared(q))
      continue;
    out.push_back(Status(Code::kFailedPrecondition,
                         "reader op '" + reader->name() + "' takes filenames from queue '" +
                             q.name() + "', which nothing fills (created at " + q.loc().str() + ")",
                         reader->loc(), reader->name()));
  }
  return out;
}

std::unique_ptr<Pass> createPipelineCheckPass() {
  return std::make_unique<PipelineCheckPass>();
}

} // namespace sluice::passes
