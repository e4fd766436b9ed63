// tests/runtime/variable_test.cc: variables through a session: init,
// assign, read across runs, uninitialized reads, shapes, concurrency.
#include <thread>

#include "ir/inference.h"
#include "runtime/session.h"
#include "tests/passes/test_graph.h"

namespace sluice::rt {
namespace {

using testing::TestGraph;

struct VarGraph {
  TestGraph t;
  ir::Output v, read, init, inc, isInit;
  explicit VarGraph(ir::Shape shape = ir::Shape({2})) {
    v = t.out(t.add("v", "variable", {},
                    {{"dtype", ir::DType::kF32}, {"shape", shape}}));
    read = t.out(t.add("read", "read_variable", {v}, {{"dtype", ir::DType::kF32}}));
    init = t.out(t.add("init", "assign", {v, t.constantVec<float>("c", {1, 2})}));
    inc = t.out(t.add("inc", "assign_add", {v, t.constantVec<float>("one", {1, 1})}));
    isInit = t.out(t.add("is_init", "is_variable_initialized", {v}));
  }
};

std::unique_ptr<Session> makeSession(const ir::Graph &g) {
  auto s = Session::create(&g, nullptr, {});
  EXPECT_TRUE(s.hasValue());
  return std::move(*s);
}

TEST(VariableTest, PersistsAcrossRuns) {
  VarGraph vg;
  auto s = makeSession(vg.t.graph());
  auto before = s->run({}, {vg.isInit}, {});
  ASSERT_TRUE(before.hasValue()) << before.status().toString();
  EXPECT_FALSE((*before)[0].scalarValue<bool>());
  ASSERT_TRUE(s->run({}, {}, {vg.init.node}).hasValue());
  auto r = s->run({}, {vg.read, vg.isInit}, {});
  ASSERT_TRUE(r.hasValue()) << r.status().toString();
  EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({1, 2})));
  EXPECT_TRUE((*r)[1].scalarValue<bool>());
  auto inc = s->run({}, {vg.inc}, {});
  ASSERT_TRUE(inc.hasValue());
  EXPECT_TRUE((*inc)[0].equals(ir::Tensor::fromVector<float>({2, 3})));
  ASSERT_TRUE(s->run({}, {}, {vg.inc.node}).hasValue());
  auto after = s->run({}, {vg.read}, {});
  EXPECT_TRUE((*after)[0].equals(ir::Tensor::fromVector<float>({3, 4})));
  // A value read earlier does not change under later updates.
  EXPECT_TRUE((*r)[0].equals(ir::Tensor::fromVector<float>({1, 2})));
}

TEST(VariableTest, UninitializedReadFailsLikeTf) {
  VarGraph vg;
  auto s = makeSession(vg.t.graph());
  auto r = s->run({}, {vg.read}, {});
  ASSERT_FALSE(r.hasValue());
  EXPECT_EQ(r.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(r.status().node(), "read");
  EXPECT_EQ(r.status().message(),
            "Attempting to use uninitialized value v (op read_variable)");
  auto inc = s->run({}, {vg.inc}, {});
  ASSERT_FALSE(inc.hasValue());
  EXPECT_EQ(inc.status().code(), Code::kFailedPrecondition);
  // A fresh session has its own, uninitialized variables.
  ASSERT_TRUE(s->run({}, {}, {vg.init.node}).hasValue());
  auto s2 = makeSession(vg.t.graph());
  EXPECT_FALSE(s2->run({}, {vg.read}, {}).hasValue());
}

TEST(VariableTest, ControlDependenciesOrderInitAndRead) {
  VarGraph vg;
  auto r = vg.t.out(vg.t.add("read_after", "read_variable", {vg.v},
                             {{"dtype", ir::DType::kF32}}, {vg.init.node}));
  auto s = makeSession(vg.t.graph());
  auto out = s->run({}, {r}, {});
  ASSERT_TRUE(out.hasValue()) << out.status().toString();
  EXPECT_TRUE((*out)[0].equals(ir::Tensor::fromVector<float>({1, 2})));
}

TEST(VariableTest, ShapesAreValidated) {
  VarGraph vg;
  // Statically: a known shape that cannot match is a graph error.
  ir::NodeSpec spec;
  spec.name = "bad_assign";
  spec.op = "assign";
  spec.inputs = {vg.v, vg.t.constantVec<float>("three", {1, 2, 3})};
  auto n = vg.t.graph().addNode(spec);
  ASSERT_FALSE(n.hasValue());
  EXPECT_EQ(n.status().message(), "Dimension 0 in both shapes must be equal, but "
                                  "are 2 and 3. Shapes are [2] and [3]");
  spec.name = "loose_assign";
  spec.attrs["validate_shape"] = false;
  auto loose = vg.t.graph().addNode(spec);
  ASSERT_TRUE(loose.hasValue()) << loose.status().toString();
  auto s = makeSession(vg.t.graph());
  ASSERT_TRUE(s->run({}, {}, {vg.init.node}).hasValue());
  ASSERT_TRUE(s->run({}, {}, {(*loose)->id()}).hasValue());
  auto read = s->run({}, {vg.read}, {});
  ASSERT_TRUE(read.hasValue());
  EXPECT_EQ(read->at(0).numElements(), 3);
  // At run time, a validating assign compares with the current value.
  auto again = s->run({}, {}, {vg.init.node});
  ASSERT_FALSE(again.hasValue());
  EXPECT_EQ(again.status().message(),
            "Assign requires shapes of both tensors to match. lhs shape= [3] "
            "rhs shape= [2] (op assign)");
}

TEST(VariableTest, ConcurrentUpdatesAreAtomic) {
  TestGraph t;
  auto v = t.out(t.add("counter", "variable", {},
                       {{"dtype", ir::DType::kI64}, {"shape", ir::Shape::scalar()}}));
  auto init = t.out(t.add("init", "assign", {v, t.constant<int64_t>("zero", 0)}));
  auto inc = t.out(t.add("inc", "assign_add", {v, t.constant<int64_t>("one", 1)}));
  auto read = t.out(t.add("read", "read_variable", {v}, {{"dtype", ir::DType::kI64}}));
  auto s = makeSession(t.graph());
  ASSERT_TRUE(s->run({}, {}, {init.node}).hasValue());
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k)
    threads.emplace_back([&] {
      for (int i = 0; i < 250; ++i)
        (void)s->run({}, {read}, {inc.node});
    });
  for (auto &th : threads)
    th.join();
  auto r = s->run({}, {read}, {});
  ASSERT_TRUE(r.hasValue());
  EXPECT_EQ((*r)[0].scalarValue<int64_t>(), 1000);
}

} // namespace
} // namespace sluice::rt
