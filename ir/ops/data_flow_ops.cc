// ir/ops/data_flow_ops.cc: queue op rows (TF1's FIFOQueue,
// RandomShuffleQueue, PaddingFIFOQueue, PriorityQueue and the queue ops).
// A queue op outputs a resource handle; the ops that take it look through
// the handle at the queue node for static dtypes and shapes.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

bool isQueueOp(const std::string &op) {
  return op == "fifo_queue" || op == "padding_fifo_queue" ||
         op == "random_shuffle_queue" || op == "priority_queue";
}

/// The queue's full tuple (a PriorityQueue's i64 priority first), when the
/// handle comes straight from a queue node.
struct QueueInfo {
  std::vector<DType> types;
  std::vector<Shape> shapes; // empty: unconstrained
};
std::optional<QueueInfo> queueBehind(const InferenceContext &c) {
  const Node &n = c.inputNode(0);
  if (!isQueueOp(n.opName()))
    return std::nullopt;
  QueueInfo q;
  q.types = n.attr<std::vector<DType>>("component_types");
  q.shapes = n.attr<std::vector<Shape>>("shapes");
  if (n.opName() == "priority_queue") {
    q.types.insert(q.types.begin(), DType::kI64);
    if (!q.shapes.empty())
      q.shapes.insert(q.shapes.begin(), Shape::scalar());
  }
  if (q.shapes.size() != q.types.size()) // a bad queue; its kernel says why
    q.shapes.clear();
  return q;
}

// The run-time messages' form ("[2,3]", "[?,3]"), so that an error reads
// the same whether found while building or while running.
std::string shapeText(const Shape &s) {
  if (!s.hasRank())
    return "<unknown>";
  std::string out = "[";
  for (int i = 0; i < s.rank(); ++i)
    out += (i ? "," : "") + (s.dim(i) < 0 ? std::string("?") : std::to_string(s.dim(i)));
  return out + "]";
}

Shape batchOf(const Shape &s, int64_t n) {
  if (!s.hasRank())
    return Shape::unknown();
  std::vector<int64_t> d{n};
  d.insert(d.end(), s.dims().begin(), s.dims().end());
  return Shape(d);
}

Status enqueueShape(InferenceContext &c, bool many) {
  auto q = queueBehind(c);
  if (!q)
    return Status::ok();
  int n = c.numInputs() - 1;
  if (n != static_cast<int>(q->types.size()))
    return c.error("Wrong number of components in tuple. Expected " +
                   std::to_string(q->types.size()) + ", got " + std::to_string(n));
  for (int i = 0; i < n; ++i) {
    if (c.inputType(i + 1) != q->types[i])
      return c.error("Type mismatch in tuple component " + std::to_string(i) + ". Expected " +
                     std::string(dtypeName(q->types[i])) + ", got " +
                     std::string(dtypeName(c.inputType(i + 1))));
    const Shape &got = c.inputShape(i + 1);
    if (many && got.hasRank() && got.rank() < 1)
      return c.error("Shape mismatch in tuple component " + std::to_string(i) +
                     ". Expected a batch (at least 1 dimension), got []");
    if (q->shapes.empty())
      continue;
    Shape want = many ? batchOf(q->shapes[i], Shape::kUnknown) : q->shapes[i];
    if (!want.isCompatibleWith(got))
      return c.error("Shape mismatch in tuple component " + std::to_string(i) +
                     ". Expected " + shapeText(want) + ", got " + shapeText(got));
  }
  return Status::ok();
}

// kind 0: dequeue, 1: dequeue_many, 2: dequeue_up_to.
Status dequeueShape(InferenceContext &c, int kind) {
  const auto &types = c.attr<std::vector<DType>>("component_types");
  auto q = queueBehind(c);
  if (q && q->types != types)
    return c.error("component_types of the dequeue do not match the queue's");
  int64_t n = Shape::kUnknown;
  if (kind == 1)
    if (auto v = c.inputConstantInts(1); v && v->size() == 1 && (*v)[0] >= 0)
      n = (*v)[0];
  for (int i = 0; i < c.numOutputs(); ++i) {
    Shape s = q && !q->shapes.empty() ? q->shapes[i] : Shape::unknown();
    c.setOutput(i, kind == 0 ? s : batchOf(s, n));
  }
  return Status::ok();
}

/// OpDefBuilder reads only "T...list" names as type lists; TF's names
/// for the queue ops ("Tcomponents", "component_types") are set here.
OpDef withTypeList(OpDef def, bool output, const std::string &arg, const std::string &attr) {
  for (ArgDef &a : output ? def.outputs : def.inputs)
    if (a.name == arg) {
      a.typeAttr.clear();
      a.typeListAttr = attr;
    }
  return def;
}

void addQueueRow(OpRegistry &reg, const char *name, const char *tf, const char *summary) {
  std::string op = name;
  OpDefBuilder b(op);
  b.tf(tf);
  b.output("handle: resource");
  bool shuffle = op == "random_shuffle_queue";
  bool priority = op == "priority_queue";
  b.attr("capacity", AttrType::kInt, int64_t{-1});
  if (shuffle)
    b.attr("min_after_dequeue", AttrType::kInt, int64_t{0});
  if (priority)
    b.attr("component_types", AttrType::kTypeList, std::vector<DType>{});
  else
    b.attr("component_types", AttrType::kTypeList);
  b.attr("shapes", AttrType::kShapeList, std::vector<Shape>{});
  if (shuffle) {
    b.attr("seed", AttrType::kInt, int64_t{0});
    b.attr("seed2", AttrType::kInt, int64_t{0});
  }
  b.attr("container", AttrType::kString, std::string());
  b.attr("shared_name", AttrType::kString, std::string());
  if (shuffle)
    b.signature("capacity, min_after_dequeue, component_types, shapes, seed, "
                "shared_name, container, seed2");
  else
    b.signature("capacity, component_types, shapes, shared_name, container");
  b.alias(priority ? "types" : "dtypes", "component_types");
  reg.add(b.stateful().shape(scalarShape).doc(summary).build());
}

} // namespace

void registerDataFlowOps(OpRegistry &reg) {
  addQueueRow(reg, "fifo_queue", "FIFOQueueV2", "A queue whose elements leave in arrival order.");
  addQueueRow(reg, "padding_fifo_queue", "PaddingFIFOQueueV2",
              "A FIFO queue with partial shapes; batches pad unknown dims with zeros.");
  addQueueRow(reg, "random_shuffle_queue", "RandomShuffleQueueV2",
              "A queue that removes a uniformly random element, keeping "
              "min_after_dequeue back while open.");
  addQueueRow(reg, "priority_queue", "PriorityQueueV2",
              "A queue whose smallest i64 priority (component 0) leaves first.");

  for (bool many : {false, true})
    reg.add(withTypeList(OpDefBuilder(many ? "queue_enqueue_many" : "queue_enqueue")
                             .tf(many ? "QueueEnqueueManyV2" : "QueueEnqueueV2")
                             .input("handle: resource")
                             .input("components: Tcomponents")
                             .attr("Tcomponents", AttrType::kTypeList)
                             .attr("timeout_ms", AttrType::kInt, int64_t{-1})
                             .signature("handle, components, timeout_ms")
                             .stateful()
                             .async()
                             .shape([many](InferenceContext &c) { return enqueueShape(c, many); })
                             .doc(many ? "Enqueues the rows (dim 0) of the components."
                                       : "Enqueues one element; blocks while the queue is full.")
                             .build(),
                         false, "components", "Tcomponents"));

  reg.add(withTypeList(OpDefBuilder("queue_dequeue")
                           .tf("QueueDequeueV2")
                           .input("handle: resource")
                           .output("components: component_types")
                           .attr("component_types", AttrType::kTypeList)
                           .attr("timeout_ms", AttrType::kInt, int64_t{-1})
                           .signature("handle, component_types, timeout_ms")
                           .stateful()
                           .async()
                           .shape([](InferenceContext &c) { return dequeueShape(c, 0); })
                           .doc("Dequeues one element; out_of_range once closed and empty.")
                           .build(),
                       true, "components", "component_types"));
  for (bool upTo : {false, true})
    reg.add(withTypeList(
        OpDefBuilder(upTo ? "queue_dequeue_up_to" : "queue_dequeue_many")
            .tf(upTo ? "QueueDequeueUpToV2" : "QueueDequeueManyV2")
            .input("handle: resource")
            .input("n: i32")
            .output("components: component_types")
            .attr("component_types", AttrType::kTypeList)
            .attr("timeout_ms", AttrType::kInt, int64_t{-1})
            .signature("handle, n, component_types, timeout_ms")
            .stateful()
            .async()
            .shape([upTo](InferenceContext &c) { return dequeueShape(c, upTo ? 2 : 1); })
            .doc(upTo ? "Dequeues up to n elements; a closed queue gives what is left."
                      : "Dequeues n elements as a batch.")
            .build(),
        true, "components", "component_types"));

  reg.add(OpDefBuilder("queue_close")
              .tf("QueueCloseV2")
              .input("handle: resource")
              .attr("cancel_pending_enqueues", AttrType::kBool, false)
              .signature("handle, cancel_pending_enqueues")
              .stateful()
              .async()
              .doc("Closes the queue (after pending enqueues, unless they are cancelled).")
              .build());
  reg.add(OpDefBuilder("queue_size")
              .tf("QueueSizeV2")
              .input("handle: resource")
              .output("size: i32")
              .signature("handle")
              .stateful()
              .shape(scalarShape)
              .doc("The number of elements in the queue.")
              .build());
  reg.add(OpDefBuilder("queue_is_closed")
              .tf("QueueIsClosedV2")
              .input("handle: resource")
              .output("is_closed: bool")
              .signature("handle")
              .stateful()
              .shape(scalarShape)
              .doc("Whether the queue is closed.")
              .build());
}

} // namespace sluice::ir
