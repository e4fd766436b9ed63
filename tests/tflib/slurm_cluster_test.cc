// tests/tflib/slurm_cluster_test.cc: the Slurm environment -> cluster and
// task, as TF's SlurmClusterResolver (slurm_cluster_resolver_test.py).
#include <gtest/gtest.h>

#include "tflib/cluster/slurm_cluster.h"

namespace sluice::tflib {
namespace {

TEST(SlurmClusterTest, Hostlists) {
  auto h = expandHostlist("t02n[13-15,19],login,gpu[8-10]x");
  ASSERT_TRUE(h.hasValue()) << h.status().toString();
  EXPECT_EQ(*h, (std::vector<std::string>{"t02n13", "t02n14", "t02n15", "t02n19", "login",
                                          "gpu8x", "gpu9x", "gpu10x"}));
  auto padded = expandHostlist("n[08-10]");
  ASSERT_TRUE(padded.hasValue());
  EXPECT_EQ(*padded, (std::vector<std::string>{"n08", "n09", "n10"}));
  EXPECT_FALSE(expandHostlist("n[3-1]").hasValue());
  EXPECT_FALSE(expandHostlist("n[1-").hasValue());
  EXPECT_FALSE(expandHostlist("a,,b").hasValue());
}

TEST(SlurmClusterTest, TasksPerNode) {
  auto c = expandTasksPerNode("2(x3),1");
  ASSERT_TRUE(c.hasValue());
  EXPECT_EQ(*c, (std::vector<int>{2, 2, 2, 1}));
  EXPECT_FALSE(expandTasksPerNode("2(x").hasValue());
  EXPECT_FALSE(expandTasksPerNode("x").hasValue());
}

std::map<std::string, std::string> env(int rank) {
  return {{"SLURM_PROCID", std::to_string(rank)},
          {"SLURM_STEP_NUM_TASKS", "4"},
          {"SLURM_STEP_NODELIST", "t02n[13-14]"},
          {"SLURM_STEP_TASKS_PER_NODE", "2(x2)"}};
}

TEST(SlurmClusterTest, RanksFillTheJobsInOrder) {
  auto o = parseSlurmSpec("slurm:ps=1,worker=3");
  ASSERT_TRUE(o.hasValue());
  auto t = slurmTaskConfig(env(2), *o);
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_EQ(t->type, "worker");
  EXPECT_EQ(t->index, 1);
  EXPECT_FALSE(t->isChief);
  EXPECT_EQ(*t->cluster.taskAddress("ps", 0), "t02n13:8888");
  EXPECT_EQ(*t->cluster.taskAddress("worker", 0), "t02n13:8889");
  EXPECT_EQ(*t->cluster.taskAddress("worker", 1), "t02n14:8888");
  EXPECT_EQ(*t->cluster.taskAddress("worker", 2), "t02n14:8889");
  auto chief = slurmTaskConfig(env(1), *o);
  ASSERT_TRUE(chief.hasValue());
  EXPECT_TRUE(chief->isChief); // worker 0, TF1's convention without a chief job
}

TEST(SlurmClusterTest, DefaultsAndPortBase) {
  auto o = parseSlurmSpec("slurm");
  ASSERT_TRUE(o.hasValue());
  auto t = slurmTaskConfig(env(3), *o);
  ASSERT_TRUE(t.hasValue());
  EXPECT_EQ(t->type, "worker");
  EXPECT_EQ(t->index, 3);
  EXPECT_EQ(*t->cluster.numTasks("worker"), 4);
  auto p = parseSlurmSpec("slurm:worker=4,port_base=9000");
  ASSERT_TRUE(p.hasValue());
  auto q = slurmTaskConfig(env(0), *p);
  ASSERT_TRUE(q.hasValue());
  EXPECT_EQ(*q->cluster.taskAddress("worker", 0), "t02n13:9000");
}

TEST(SlurmClusterTest, ErrorsNameWhatIsWrong) {
  SlurmOptions all;
  auto missing = slurmTaskConfig({}, all);
  ASSERT_FALSE(missing.hasValue());
  EXPECT_NE(missing.status().message().find("SLURM_PROCID"), std::string::npos);
  auto o = parseSlurmSpec("slurm:ps=1,worker=2");
  ASSERT_TRUE(o.hasValue());
  auto wrongCount = slurmTaskConfig(env(0), *o);
  ASSERT_FALSE(wrongCount.hasValue());
  EXPECT_NE(wrongCount.status().message().find("ask for 3 tasks"), std::string::npos);
  auto e = env(0);
  e["SLURM_STEP_TASKS_PER_NODE"] = "2";
  auto mismatch = slurmTaskConfig(e, all);
  ASSERT_FALSE(mismatch.hasValue());
  EXPECT_NE(mismatch.status().message().find("name 1 nodes"), std::string::npos);
  EXPECT_FALSE(parseSlurmSpec("slurm:ps").hasValue());
  EXPECT_FALSE(parseSlurmSpec("slurm:ps=1,ps=2").hasValue());
  EXPECT_FALSE(parseSlurmSpec("slurmy").hasValue());
}

} // namespace
} // namespace sluice::tflib
