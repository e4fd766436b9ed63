// tests/passes/pipeline_check_test.cc: the static pipeline check.
#include "passes/pipeline_check.h"

#include <gtest/gtest.h>

namespace sluice::passes {
namespace {

ir::Node &add(ir::Graph &g, const std::string &name, const std::string &op,
              std::vector<ir::Output> inputs, ir::AttrMap attrs = {}) {
  ir::NodeSpec s;
  s.name = name;
  s.op = op;
  s.inputs = std::move(inputs);
  s.attrs = std::move(attrs);
  auto n = g.addNode(std::move(s));
  EXPECT_TRUE(n.hasValue()) << n.status().toString();
  return **n;
}

ir::Node &queue(ir::Graph &g, const std::string &name, std::string shared = "") {
  return add(g, name, "fifo_queue", {},
             {{"component_types", std::vector<ir::DType>{ir::DType::kF32}},
              {"shapes", std::vector<ir::Shape>{ir::Shape::scalar()}},
              {"capacity", int64_t{10}},
              {"shared_name", shared}});
}

TEST(PipelineCheckTest, DequeuedButNeverFilledIsReported) {
  ir::Graph g;
  ir::Node &q = queue(g, "q");
  add(g, "take", "queue_dequeue", {{q.id(), 0}},
      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  auto findings = checkPipelines(g);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].node(), "take");
  EXPECT_NE(findings[0].message().find("queue 'q' is dequeued by 'take' but nothing enqueues"),
            std::string::npos);
}

TEST(PipelineCheckTest, FilledOrSharedQueuesAreFine) {
  ir::Graph g;
  ir::Node &q = queue(g, "q");
  ir::Node &c = add(g, "c", "constant", {}, {{"value", ir::Tensor::scalar(1.0f)}});
  add(g, "put", "queue_enqueue", {{q.id(), 0}, {c.id(), 0}});
  add(g, "take", "queue_dequeue", {{q.id(), 0}},
      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  ir::Node &shared = queue(g, "s", "across_processes");
  add(g, "take_shared", "queue_dequeue", {{shared.id(), 0}},
      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  EXPECT_TRUE(checkPipelines(g).empty());
}

TEST(PipelineCheckTest, PassAppendsWarningsWithoutFailing) {
  ir::Graph g;
  ir::Node &q = queue(g, "q");
  add(g, "take", "queue_dequeue", {{q.id(), 0}},
      {{"component_types", std::vector<ir::DType>{ir::DType::kF32}}});
  PassContext ctx;
  auto pass = createPipelineCheckPass();
  EXPECT_TRUE(pass->run(g, ctx).isOk());
  EXPECT_EQ(ctx.warnings.size(), 1u);
}

} // namespace
} // namespace sluice::passes
