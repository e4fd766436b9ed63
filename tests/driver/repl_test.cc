// tests/frontend/repl_test.cc: the REPL engine without a terminal: input
// gathering, echo, rollback after errors, commands, completion, interrupt.
#include "driver/repl.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace sluice::driver {
namespace {

class ReplTest : public ::testing::Test {
protected:
  ReplTest() : repl_(ReplOptions{&out_, &err_, false}) {}

  /// Feeds `text` line by line; returns what it printed to stdout.
  std::string feed(const std::string &text) {
    out_.str("");
    err_.str("");
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
      repl_.addLine(line);
    return out_.str();
  }
  std::string err() const { return err_.str(); }
  std::vector<std::string> complete(const std::string &line) {
    return repl_.complete(line, line.size()).candidates;
  }
  static bool has(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  }

  std::ostringstream out_, err_;
  Repl repl_;
};

TEST(ReplInputTest, BracketsBracesAndStrings) {
  EXPECT_TRUE(needsMoreInput("f(1,"));
  EXPECT_TRUE(needsMoreInput("fn f(a) {"));
  EXPECT_TRUE(needsMoreInput("x = [[1, 2],\n"));
  EXPECT_FALSE(needsMoreInput("f(1, 2)"));
  EXPECT_FALSE(needsMoreInput("s = \"(\""));
  EXPECT_FALSE(needsMoreInput("x = 1 # (an open comment"));
  EXPECT_FALSE(needsMoreInput("s = \"\\\"(\""));
  EXPECT_FALSE(needsMoreInput("f(]")); // mismatched: the parser reports it
}

TEST_F(ReplTest, HostValuesEcho) {
  EXPECT_EQ(feed("1 + 2"), "3\n");
  EXPECT_EQ(feed("\"a\" + \"b\""), "\"ab\"\n");
  EXPECT_EQ(feed("none"), "");
  EXPECT_EQ(feed("x = 5"), "");
  EXPECT_EQ(feed("x * 2"), "10\n");
}

TEST_F(ReplTest, SymbolicTensorShowsNameDtypeShapeDevice) {
  feed("x = constant([1.0, 2.0], name: \"xs\")");
  EXPECT_EQ(feed("x"), "<tensor 'xs:0' dtype=f32 shape=[2] "
                       "device=/job:localhost/replica:0/task:0/device:CPU:0>\n");
  EXPECT_EQ(feed("run(x * 2)"), "[2. 4.]\n");
  EXPECT_EQ(feed(":run x + 1"), "[2. 3.]\n");
}

TEST_F(ReplTest, MultiLineInput) {
  EXPECT_FALSE(repl_.addLine("fn twice(a) {"));
  EXPECT_TRUE(repl_.pending());
  EXPECT_FALSE(repl_.addLine("  return a * 2"));
  EXPECT_TRUE(repl_.addLine("}"));
  EXPECT_FALSE(repl_.pending());
  EXPECT_EQ(feed("twice(21)"), "42\n");
  repl_.addLine("ys = [1,");
  repl_.discardPending();
  EXPECT_FALSE(repl_.pending());
  EXPECT_EQ(feed("ys"), "");
  EXPECT_NE(err().find("ys"), std::string::npos) << err();
}

TEST_F(ReplTest, SessionKeepsVariables) {
  feed("v = variable(0, name: \"counter\")\nrun(v.initializer)");
  feed("for i in range(3) { run(assign_add(v, 5)) }");
  EXPECT_EQ(feed("run(v)"), "15\n");
}

TEST_F(ReplTest, FailedStatementLeavesGraphAsBefore) {
  feed("keep = constant(1.0, name: \"keep\")");
  EXPECT_EQ(feed("gone = constant(2.0, name: \"gone\") + no_such_name"), "");
  EXPECT_NE(err().find("no_such_name"), std::string::npos) << err();
  EXPECT_EQ(repl_.failures(), 1);
  // The node and the binding are gone: the name is free again.
  EXPECT_EQ(feed("constant(3.0, name: \"gone\").name"), "\"gone:0\"\n");
  feed("gone");
  EXPECT_NE(err().find("gone"), std::string::npos);
  EXPECT_EQ(feed("run(keep)"), "1.\n");
  // A run of the same fetch after rollback uses the graph as it is now.
  feed("y = constant(7.0, name: \"y\")");
  EXPECT_EQ(feed("run(y)"), "7.\n");
  feed("z = constant(1.0) + undefined_too");
  feed("w = constant(9.0, name: \"w\")");
  EXPECT_EQ(feed("run(w)"), "9.\n");
}

TEST_F(ReplTest, RunTimeErrorsAreReported) {
  feed("p = placeholder(f32)");
  EXPECT_EQ(feed("run(p)"), "");
  EXPECT_NE(err().find("invalid_argument"), std::string::npos) << err();
  EXPECT_EQ(feed("run(p * 2, feed: {p: 3.0})"), "6.\n");
}

TEST_F(ReplTest, SyntaxErrorsAreLocated) {
  feed("1 + 1");
  EXPECT_EQ(feed("x = = 2"), "");
  EXPECT_NE(err().find("<repl>:2:"), std::string::npos) << err();
  EXPECT_EQ(feed("3"), "3\n");
}

TEST_F(ReplTest, DocCoversLibraryFunctions) {
  std::string doc = feed(":doc dense");
  EXPECT_NE(doc.find("dense(inputs, units, activation: none, use_bias: true"), std::string::npos)
      << doc;
  EXPECT_NE(doc.find("tf.layers.dense"), std::string::npos) << doc;
  EXPECT_EQ(err(), "");
  doc = feed(":doc adam_optimizer");
  EXPECT_NE(doc.find("adam_optimizer(learning_rate: 0.001"), std::string::npos) << doc;
  EXPECT_NE(doc.find("methods: minimize"), std::string::npos) << doc;
  EXPECT_NE(feed(":doc session").find("statement; TF1: tf.Session"), std::string::npos);
  // A builtin that shadows an op: the builtin first, then the op.
  doc = feed(":doc constant");
  EXPECT_NE(doc.find("constant(value, dtype: none, shape: none"), std::string::npos) << doc;
  EXPECT_NE(doc.find("the registry op 'constant': constant(value, dtype)"), std::string::npos)
      << doc;
  EXPECT_TRUE(has(complete(":doc shuffle_b"), "shuffle_batch"));
}

TEST_F(ReplTest, Commands) {
  EXPECT_NE(feed(":help").find(":placement"), std::string::npos);
  EXPECT_NE(feed(":ops fifo").find("fifo_queue(capacity"), std::string::npos);
  std::string doc = feed(":doc matmul");
  EXPECT_NE(doc.find("inputs:"), std::string::npos) << doc;
  EXPECT_NE(doc.find("transpose_a: bool = false"), std::string::npos) << doc;
  EXPECT_NE(doc.find("TF 1.15: MatMul"), std::string::npos) << doc;
  EXPECT_NE(doc.find("gradient: yes"), std::string::npos) << doc;
  feed(":doc no_such_op");
  EXPECT_NE(err().find("no op or library function named 'no_such_op'"), std::string::npos);
  EXPECT_EQ(feed(":type 1"), "int\n");
  EXPECT_EQ(feed(":type constant([1, 2], name: \"t\")"), "tensor i32 [2] (symbolic)\n");
  // :type leaves the graph as it was.
  EXPECT_EQ(feed("constant(1, name: \"t\").name"), "\"t:0\"\n");
  EXPECT_NE(feed(":graph").find("t"), std::string::npos);
  EXPECT_NE(feed(":placement").find("/device:CPU:0"), std::string::npos);
  EXPECT_NE(feed(":time x = 1").find("time: "), std::string::npos);
  feed(":nope");
  EXPECT_NE(err().find("unknown command ':nope'"), std::string::npos);
  feed(":reset");
  feed("x");
  EXPECT_NE(err().find("x"), std::string::npos);
  EXPECT_FALSE(repl_.quitRequested());
  feed(":quit");
  EXPECT_TRUE(repl_.quitRequested());
}

TEST_F(ReplTest, LoadAndDot) {
  std::string dir = ::testing::TempDir();
  std::string lib = dir + "/repl_test_lib.sluice";
  std::ofstream(lib) << "w = constant(3.0, name: \"w\")\nfn square(t) { return t * t }\n";
  feed(":load " + lib);
  EXPECT_EQ(err(), "");
  EXPECT_EQ(feed("run(square(w))"), "9.\n");
  std::string dot = dir + "/repl_test.dot";
  feed(":dot " + dot);
  std::ifstream in(dot);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("digraph"), std::string::npos);
  std::remove(lib.c_str());
  std::remove(dot.c_str());
}

TEST_F(ReplTest, Completion) {
  EXPECT_TRUE(has(complete("fifo_qu"), "fifo_queue"));
  EXPECT_TRUE(has(complete("q = fifo_queue(capa"), "capacity:"));
  feed("q = fifo_queue(capacity: 3, dtypes: [f32])");
  feed("my_value = 3");
  auto methods = complete("q.enq");
  EXPECT_TRUE(has(methods, "enqueue"));
  EXPECT_TRUE(has(methods, "enqueue_many"));
  EXPECT_FALSE(has(complete("q."), "initializer"));
  EXPECT_TRUE(has(complete("print(my_v"), "my_value"));
  EXPECT_TRUE(has(complete("x = whi"), "while"));
  EXPECT_TRUE(has(complete(":pl"), "placement"));
  EXPECT_TRUE(has(complete(":doc mat"), "matmul"));
  EXPECT_TRUE(repl_.complete(":load sam", 9).files);
  ReplCompletion c = repl_.complete("y = q.dequ", 10);
  EXPECT_EQ(c.start, 6u);
}

TEST_F(ReplTest, InterruptCancelsTheRunningStep) {
  feed("q = fifo_queue(capacity: 3, dtypes: [f32])");
  // A live thread, so the blocked dequeue is not a stall.
  feed("t = spawn { sleep(2000) }");
  std::thread ctrlC([this] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    repl_.interrupt();
  });
  EXPECT_EQ(feed("run(q.dequeue())"), "");
  ctrlC.join();
  EXPECT_NE(err().find("cancelled"), std::string::npos) << err();
  EXPECT_EQ(feed("1 + 1"), "2\n");
}

} // namespace
} // namespace sluice::driver
