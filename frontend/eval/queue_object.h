// frontend/eval/queue_object.h: the language's queue value (TF1's
// QueueBase): its handle node, dtypes, shapes and names, and methods that
// build the queue ops.
#pragma once

#include "frontend/eval/objects.h"

namespace sluice::frontend {

class QueueObject : public HandleObject {
public:
  GraphContext *handleGraph() const override { return graph; }
  ir::Output handleOutput() const override { return {handle, 0}; }
  std::string typeName() const override { return "queue"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;

  GraphContext *graph = nullptr;
  ir::NodeId handle = -1;
  std::vector<ir::DType> dtypes;  // the full tuple (PriorityQueue: i64 first)
  std::vector<ir::Shape> shapes;  // empty: unconstrained
  std::vector<std::string> names; // empty: enqueue/dequeue use lists
};

} // namespace sluice::frontend
