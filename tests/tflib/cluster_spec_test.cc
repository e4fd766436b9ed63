// tests/tflib/cluster_spec_test.cc: ClusterSpec queries and TF_CONFIG as
// tf.estimator.RunConfig reads it (run_config_test.py's cases).
#include "tflib/cluster/tf_config.h"

#include <gtest/gtest.h>

namespace sluice::tflib {
namespace {

using rt::clusterSpecFromJson;
using rt::clusterSpecToJson;

ClusterSpec psWorker() {
  ClusterSpec c;
  c.addJob("ps", {"ps0:2222", "ps1:2222"});
  c.addJob("worker", {"w0:2222", "w1:2222", "w2:2222"});
  return c;
}

TEST(ClusterSpecTest, Queries) {
  ClusterSpec c = psWorker();
  EXPECT_EQ(c.jobs(), (std::vector<std::string>{"ps", "worker"}));
  EXPECT_EQ(*c.numTasks("worker"), 3);
  EXPECT_EQ(*c.taskAddress("ps", 1), "ps1:2222");
  EXPECT_EQ(*c.taskIndices("ps"), (std::vector<int>{0, 1}));
  auto missing = c.numTasks("chief");
  ASSERT_FALSE(missing.hasValue());
  EXPECT_EQ(missing.status().code(), Code::kValueError);
  EXPECT_EQ(missing.status().message(), "No such job in cluster: 'chief'");
  EXPECT_FALSE(c.taskAddress("ps", 2).hasValue());
}

TEST(ClusterSpecTest, SparseJobsPadWithNone) {
  ClusterSpec c;
  c.addSparseJob("worker", {{1, "w1:1"}, {3, "w3:1"}});
  EXPECT_EQ(*c.numTasks("worker"), 2);
  EXPECT_EQ(*c.taskIndices("worker"), (std::vector<int>{1, 3}));
  auto tasks = *c.jobTasks("worker");
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_FALSE(tasks[0]);
  EXPECT_EQ(*tasks[1], "w1:1");
  EXPECT_FALSE(tasks[2]);
  // {0: a} equals [a].
  ClusterSpec dense, sparse;
  dense.addJob("ps", {"h:1"});
  sparse.addSparseJob("ps", {{0, "h:1"}});
  EXPECT_TRUE(dense == sparse);
  EXPECT_FALSE(dense == c);
}

TEST(ClusterSpecTest, DevicesPerTask) {
  ClusterSpec c;
  c.addJob("ps", {"a:1"});
  c.addSparseJob("worker", {{2, "b:1"}});
  EXPECT_EQ(c.devices(2), (std::vector<std::string>{
                              "/job:ps/replica:0/task:0/device:CPU:0",
                              "/job:ps/replica:0/task:0/device:CPU:1",
                              "/job:worker/replica:0/task:2/device:CPU:0",
                              "/job:worker/replica:0/task:2/device:CPU:1"}));
}

TEST(ClusterSpecTest, FromJson) {
  auto c = clusterSpecFromJson(R"({"ps": ["p:1"], "worker": {"0": "w:1", "4": "w:5"}})");
  ASSERT_TRUE(c.hasValue()) << c.status().toString();
  EXPECT_EQ(*c->taskAddress("worker", 4), "w:5");
  for (const char *bad : {"[1]", R"({"ps": 3})", R"({"ps": [1]})", R"({"ps": {"x": "a"}})",
                          R"({"ps": {"-1": "a"}})", "{", R"({"": ["a"]})"}) {
    auto r = clusterSpecFromJson(bad);
    EXPECT_FALSE(r.hasValue()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << bad;
  }
}

TEST(TfConfigTest, LocalWhenEmptyOrWithoutCluster) {
  auto t = parseTfConfig("");
  ASSERT_TRUE(t.hasValue());
  EXPECT_EQ(t->type, "worker");
  EXPECT_EQ(t->index, 0);
  EXPECT_TRUE(t->isChief);
  EXPECT_EQ(t->master, "");
  EXPECT_EQ(t->numPsReplicas, 0);
  EXPECT_EQ(t->numWorkerReplicas, 1);
  auto ps = parseTfConfig(R"({"task": {"type": "ps", "index": 0}})");
  ASSERT_FALSE(ps.hasValue());
  EXPECT_NE(ps.status().message().find("task type must be worker"), std::string::npos);
  auto one = parseTfConfig(R"({"task": {"type": "worker", "index": 1}})");
  ASSERT_FALSE(one.hasValue());
  EXPECT_NE(one.status().message().find("task index must be 0"), std::string::npos);
}

TEST(TfConfigTest, ChiefClusters) {
  const char *cfg = R"({"cluster": {"chief": ["c:1"], "ps": ["p0:1", "p1:1"],
                                     "worker": ["w0:1", "w1:1"]},
                        "task": {"type": "worker", "index": 1}})";
  auto t = parseTfConfig(cfg);
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_EQ(t->type, "worker");
  EXPECT_EQ(t->index, 1);
  EXPECT_FALSE(t->isChief);
  EXPECT_EQ(t->master, "grpc://w1:1");
  EXPECT_EQ(t->numPsReplicas, 2);
  EXPECT_EQ(t->numWorkerReplicas, 3);
  auto chief = parseTfConfig(R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]},
                                 "task": {"type": "chief", "index": "0"}})");
  ASSERT_TRUE(chief.hasValue()) << chief.status().toString();
  EXPECT_TRUE(chief->isChief);
  EXPECT_EQ(chief->master, "grpc://c:1");
  // One task in the whole cluster runs locally.
  auto alone = parseTfConfig(R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "chief", "index": 0}})");
  ASSERT_TRUE(alone.hasValue());
  EXPECT_EQ(alone->master, "");
}

TEST(TfConfigTest, EvaluatorIsOutsideTheCluster) {
  auto t = parseTfConfig(R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]},
                             "task": {"type": "evaluator", "index": 0}})");
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_TRUE(t->cluster.empty());
  EXPECT_EQ(t->master, "");
  EXPECT_FALSE(t->isChief);
  EXPECT_EQ(t->numPsReplicas, 0);
  EXPECT_EQ(t->numWorkerReplicas, 0);
}

TEST(TfConfigTest, MasterClusters) {
  auto t = parseTfConfig(R"({"cluster": {"master": ["m:1"], "worker": ["w:1"], "ps": ["p:1"]},
                             "task": {"type": "master", "index": 0}})");
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_TRUE(t->isChief);
  EXPECT_EQ(t->numWorkerReplicas, 2);
  auto both = parseTfConfig(R"({"cluster": {"master": ["m:1"], "chief": ["c:1"]},
                                "task": {"type": "master", "index": 0}})");
  ASSERT_FALSE(both.hasValue());
  EXPECT_NE(both.status().message().find("job `chief` is not supported"), std::string::npos);
}

TEST(TfConfigTest, InvalidConfigsAreValueErrors) {
  struct Case {
    const char *config, *message;
  } cases[] = {
      {"not json", "not valid JSON"},
      {"[1]", "must be a JSON object"},
      {R"({"cluster": {"worker": ["w:1"]}, "task": {"type": "worker", "index": 0}})",
       "must have one \"chief\" node"},
      {R"({"cluster": {"chief": ["a:1", "b:1"]}, "task": {"type": "chief", "index": 0}})",
       "must have only one \"chief\" node"},
      {R"({"cluster": {"chief": ["c:1"]}, "task": {"index": 0}})", "\"type\""},
      {R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "chief"}})", "\"index\""},
      {R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "ps", "index": 0}})",
       "ps is not a valid task_type"},
      {R"({"cluster": {"chief": ["c:1"], "worker": ["w:1"]}, "task": {"type": "worker", "index": 3}})",
       "3 is not a valid task_id for task_type worker"},
      {R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "chief", "index": -1}})", ">= 0"},
      {R"({"cluster": {"chief": ["c:1"]}, "task": {"type": "chief", "index": 0.5}})",
       "must be an integer"},
      {R"({"cluster": {"chief": 7}, "task": {"type": "chief", "index": 0}})",
       "must be a list of addresses"},
  };
  for (const Case &c : cases) {
    auto t = parseTfConfig(c.config);
    ASSERT_FALSE(t.hasValue()) << c.config;
    EXPECT_EQ(t.status().code(), Code::kValueError) << c.config;
    EXPECT_NE(t.status().message().find(c.message), std::string::npos)
        << c.config << ": " << t.status().message();
  }
}

TEST(TfConfigTest, LegacyEnvironmentPicksTheChief) {
  const char *local = R"({"cluster": {"ps": ["p:1"], "worker": ["w0:1", "w1:1"]},
                          "task": {"type": "worker", "index": 0}, "environment": "local"})";
  auto t = parseTfConfig(local);
  ASSERT_TRUE(t.hasValue()) << t.status().toString();
  EXPECT_TRUE(t->isChief);
  EXPECT_EQ(t->numWorkerReplicas, 2);
  auto cloud = parseTfConfig(R"({"cluster": {"master": ["m:1"], "worker": ["w0:1"]},
                                 "task": {"type": "worker", "index": 0}, "environment": "cloud"})");
  ASSERT_TRUE(cloud.hasValue());
  EXPECT_FALSE(cloud->isChief);
}

TEST(TaskConfigTest, BetweenGraphWorkerZeroIsChief) {
  auto w0 = taskConfigFor(psWorker(), "worker", 0);
  ASSERT_TRUE(w0.hasValue());
  EXPECT_TRUE(w0->isChief);
  auto w2 = taskConfigFor(psWorker(), "worker", 2);
  ASSERT_TRUE(w2.hasValue());
  EXPECT_FALSE(w2->isChief);
  EXPECT_EQ(w2->master, "grpc://w2:2222");
  EXPECT_FALSE(taskConfigFor(psWorker(), "worker", 3).hasValue());
  auto free = taskConfigFor(ClusterSpec(), "worker", 5);
  ASSERT_TRUE(free.hasValue());
  EXPECT_FALSE(free->isChief);
}

} // namespace
} // namespace sluice::tflib
