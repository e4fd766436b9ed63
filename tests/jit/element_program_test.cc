// tests/jit/element_program_test.cc: how a fused body becomes loop nests:
// dims merged where every operand allows (so the inner loop is long and
// unit-stride), broadcast strides, a nest per result shape, and what is
// left to the interpreter.
#include <gtest/gtest.h>

#include "backend/jit/element_program.h"
#include "ir/graph.h"

namespace sluice::backend::jit {
namespace {

// A body with parameters of `shapes` (f32) and `build` adding its nodes;
// the results are the outputs `build` returns.
class Body {
public:
  ir::Output arg(std::vector<int64_t> dims, ir::DType t = ir::DType::kF32) {
    ir::NodeSpec s;
    s.name = "arg_" + std::to_string(def_->args.size());
    s.op = "function_arg";
    s.attrs = {{"T", t}, {"index", static_cast<int64_t>(def_->args.size())},
               {"shape", ir::Shape(dims)}};
    auto n = body_->addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    def_->args.push_back((*n)->id());
    return {(*n)->id(), 0};
  }
  ir::Output op(const std::string &name, std::vector<ir::Output> in, ir::AttrMap attrs = {}) {
    ir::NodeSpec s;
    s.name = body_->uniqueName(name);
    s.op = name;
    s.inputs = std::move(in);
    s.attrs = std::move(attrs);
    auto n = body_->addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return {(*n)->id(), 0};
  }
  Expected<ElementProgram> build(std::vector<ir::Output> rets) {
    def_->name = "body";
    def_->rets = std::move(rets);
    def_->body = body_;
    return buildElementProgram(*def_);
  }

private:
  std::shared_ptr<ir::Graph> body_ = std::make_shared<ir::Graph>();
  std::shared_ptr<ir::FunctionDef> def_ = std::make_shared<ir::FunctionDef>();
};

TEST(ElementProgramTest, SameShapesCollapseToOneDim) {
  Body b;
  ir::Output x = b.arg({4, 5, 6}), y = b.arg({4, 5, 6});
  auto p = b.build({b.op("relu", {b.op("add", {x, y})})});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  ASSERT_EQ(p->nests.size(), 1u);
  EXPECT_EQ(p->nests[0].dims, (std::vector<int64_t>{120}));
  EXPECT_EQ(p->nests[0].inputStrides[0], (std::vector<int64_t>{1}));
}

TEST(ElementProgramTest, BroadcastsKeepTheirDimsAndStrideZero) {
  Body b;
  ir::Output x = b.arg({4, 5, 6}), row = b.arg({6}), s = b.arg({});
  auto p = b.build({b.op("multiply", {b.op("add", {x, row}), s})});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  const LoopNest &n = p->nests[0];
  EXPECT_EQ(n.dims, (std::vector<int64_t>{20, 6})); // [4, 5] merge, the row repeats
  EXPECT_EQ(n.inputStrides[0], (std::vector<int64_t>{6, 1}));
  EXPECT_EQ(n.inputStrides[1], (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(n.inputStrides[2], (std::vector<int64_t>{0, 0}));
}

TEST(ElementProgramTest, OneNestPerResultShape) {
  Body b;
  ir::Output x = b.arg({5}), m = b.arg({3, 5});
  ir::Output e = b.op("exp", {x});
  ir::Output y = b.op("add", {m, e});
  auto p = b.build({y, e});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  ASSERT_EQ(p->nests.size(), 2u);
  EXPECT_EQ(p->nests[0].outputs, (std::vector<int>{0}));
  EXPECT_EQ(p->nests[1].outputs, (std::vector<int>{1}));
  EXPECT_EQ(p->nests[1].dims, (std::vector<int64_t>{5}));
  // The [5] nest loads only x; m's strides stay zero.
  EXPECT_EQ(p->nests[1].inputStrides[1], (std::vector<int64_t>{0}));
  EXPECT_EQ(p->nests[1].instrs.size(), 2u);
}

TEST(ElementProgramTest, CanonicalTextNamesWhatTheCodeDependsOn) {
  auto text = [](std::vector<int64_t> dims, const char *op) {
    Body b;
    ir::Output x = b.arg(dims);
    auto p = b.build({b.op(op, {b.op("negative", {x})})});
    EXPECT_TRUE(p.hasValue());
    return p->canonicalText();
  };
  EXPECT_EQ(text({8}, "exp"), text({8}, "exp"));
  EXPECT_NE(text({8}, "exp"), text({9}, "exp"));
  EXPECT_NE(text({8}, "exp"), text({8}, "log"));
  EXPECT_NE(text({8}, "exp").find("= exp f32 f32 %1"), std::string::npos) << text({8}, "exp");
}

TEST(ElementProgramTest, UnsupportedBodiesAreUnimplemented) {
  Body b;
  ir::Output x = b.arg({2, 2});
  auto p = b.build({b.op("matmul", {x, x})});
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.status().code(), Code::kUnimplemented);
  EXPECT_NE(p.status().message().find("the op"), std::string::npos);

  Body h;
  ir::Output xh = h.arg({4}, ir::DType::kF16);
  auto ph = h.build({h.op("negative", {h.op("abs", {xh})})});
  EXPECT_FALSE(ph.hasValue());
}

TEST(ElementProgramTest, ZeroElementsRunNothing) {
  Body b;
  ir::Output x = b.arg({3, 0});
  auto p = b.build({b.op("exp", {b.op("negative", {x})})});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  EXPECT_EQ(p->nests[0].dims[0], 0);
}

// Softmax: one nest over rows, a stage per reduction and one for the
// output; exp(x - max) is computed once, kept in a row buffer by the sum's
// stage and read back by the divide's.
TEST(ElementProgramTest, ReductionsReadInsideWalkRows) {
  Body b;
  ir::Output x = b.arg({6, 10});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output mx = b.op("reduce_max", {x}, rows);
  ir::Output e = b.op("exp", {b.op("subtract", {x, mx})});
  ir::Output s = b.op("reduce_sum", {e}, rows);
  auto p = b.build({b.op("divide", {e, s}), s});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  ASSERT_EQ(p->nests.size(), 1u);
  const LoopNest &n = p->nests[0];
  ASSERT_TRUE(n.rows);
  EXPECT_EQ(n.dims, (std::vector<int64_t>{6}));
  EXPECT_EQ(n.rows->length, 10);
  ASSERT_EQ(n.rows->stages.size(), 4u); // max, sum, the sum as an output, the divide
  EXPECT_EQ(n.rows->stages[0].reduceOp, "reduce_max");
  EXPECT_EQ(n.rows->stages[1].reduceOp, "reduce_sum");
  EXPECT_TRUE(n.rows->stages[2].perRow);
  EXPECT_EQ(n.rows->stages[2].outputs, (std::vector<int>{1}));
  EXPECT_EQ(n.rows->stages[3].outputs, (std::vector<int>{0}));
  EXPECT_EQ(n.rows->bufferTypes.size(), 1u);
  EXPECT_EQ(n.rows->stages[1].buffered.size(), 1u);
  int exps = 0;
  for (const RowStage &st : n.rows->stages)
    for (const Instr &in : st.instrs)
      exps += in.op == "exp";
  EXPECT_EQ(exps, 1);
  EXPECT_NE(p->canonicalText().find("reduce_sum f32 %"), std::string::npos);
}

// Rows of a 3-d value over its last two dims, an input constant along
// the rows ([4, 1, 1]) and one broadcast over them ([5, 3]).
TEST(ElementProgramTest, RowInputsStepAlongOrStayConstant) {
  Body b;
  ir::Output x = b.arg({4, 5, 3}), c = b.arg({4, 1, 1}), w = b.arg({5, 3});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1, 2}}, {"keepdims", true}};
  ir::Output m = b.op("reduce_mean", {b.op("multiply", {x, w})}, rows);
  auto p = b.build({b.op("add", {b.op("subtract", {x, m}), c})});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  const RowProgram &r = *p->nests[0].rows;
  EXPECT_EQ(r.length, 15);
  EXPECT_EQ(r.outerDims, (std::vector<int64_t>{4}));
  EXPECT_EQ(r.innerStrides, (std::vector<int64_t>{1, 0, 1}));
  EXPECT_EQ(r.outerStrides, (std::vector<std::vector<int64_t>>{{15}, {1}, {0}}));
}

// A row too long for the stack's budget is recomputed, not buffered; a
// reduction over other rows than the first one's has no code.
TEST(ElementProgramTest, LongRowsRecomputeAndMixedRowsAreRefused) {
  Body b;
  ir::Output x = b.arg({2, 40000});
  ir::AttrMap rows = {{"axis", std::vector<int64_t>{1}}, {"keepdims", true}};
  ir::Output e = b.op("exp", {x});
  auto p = b.build({b.op("divide", {e, b.op("reduce_sum", {e}, rows)})});
  ASSERT_TRUE(p.hasValue()) << p.status().toString();
  EXPECT_TRUE(p->nests[0].rows->bufferTypes.empty());

  Body m;
  ir::Output y = m.arg({3, 4});
  ir::Output r1 = m.op("reduce_sum", {y}, rows);
  ir::Output r0 = m.op("reduce_sum", {y}, {{"axis", std::vector<int64_t>{0}}, {"keepdims", true}});
  auto q = m.build({m.op("add", {m.op("add", {y, r1}), r0})});
  ASSERT_FALSE(q.hasValue());
  EXPECT_EQ(q.status().code(), Code::kUnimplemented);
  EXPECT_NE(q.status().message().find("trailing dims"), std::string::npos) << q.status().toString();
}

} // namespace
} // namespace sluice::backend::jit
