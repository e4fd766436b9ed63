// tests/io/io_test_util.h: temp files, a tiny in-test FIFO queue and a
// one-op graph harness for the reader and parsing tests.
#pragma once

#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "backend/kernel_registry.h"
#include "backend/queue_interface.h"
#include "backend/resource_mgr.h"
#include "backend/variable.h"
#include "ir/graph.h"

namespace sluice::testing {

using ir::DType;
using ir::Tensor;

#define EXPECT_HAS(msg, sub)                                                   \
  EXPECT_NE(std::string(msg).find(sub), std::string::npos)                     \
      << "message: '" << (msg) << "' lacks '" << (sub) << "'"

/// A fresh directory removed at the end of the test.
class TempDir {
public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sluice_io_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string &name, const std::string &contents) const {
    std::string p = path_ + "/" + name;
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }
  std::string path(const std::string &name) const { return path_ + "/" + name; }
  const std::string &dir() const { return path_; }

private:
  std::string path_;
};

inline Tensor str(std::string s) { return Tensor::scalarString(std::move(s)); }
inline Tensor strings(std::vector<std::string> v, ir::Dims dims = {-1}) {
  if (dims == ir::Dims{-1})
    dims = {static_cast<int64_t>(v.size())};
  Tensor t(DType::kString, dims);
  for (size_t i = 0; i < v.size(); ++i)
    t.strings()[i] = v[i];
  return t;
}

/// Just enough of a FIFO queue for readers: enqueue, dequeue (blocking
/// asynchronously), close.
class TestQueue : public backend::QueueInterface {
public:
  std::string kind() const override { return "FIFOQueue"; }
  void add(Tuple t) {
    tryEnqueue(std::move(t), nullptr, [](Status) {});
  }
  void addName(const std::string &f) { add({str(f)}); }
  void tryEnqueue(Tuple element, CancellationManager *, StatusCallback done) override {
    std::unique_lock<std::mutex> lock(mu_);
    if (!waiters_.empty()) {
      auto w = std::move(waiters_.front());
      waiters_.pop_front();
      lock.unlock();
      w(Status::ok(), std::move(element));
    } else {
      items_.push_back(std::move(element));
      lock.unlock();
    }
    done(Status::ok());
  }
  void tryEnqueueMany(Tuple, CancellationManager *, StatusCallback done) override {
    done(unimplemented("test queue"));
  }
  void tryDequeue(CancellationManager *, TupleCallback done) override {
    std::unique_lock<std::mutex> lock(mu_);
    ++dequeues;
    if (!items_.empty()) {
      Tuple t = std::move(items_.front());
      items_.pop_front();
      lock.unlock();
      return done(Status::ok(), std::move(t));
    }
    if (closed_) {
      lock.unlock();
      return done(outOfRange(closedMessage()), {});
    }
    waiters_.push_back(std::move(done));
  }
  void tryDequeueMany(int64_t, bool, CancellationManager *, TupleCallback done) override {
    done(unimplemented("test queue"), {});
  }
  void close(bool, StatusCallback done) override {
    std::deque<TupleCallback> w;
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      w.swap(waiters_);
    }
    for (auto &cb : w)
      cb(outOfRange(closedMessage()), {});
    done(Status::ok());
  }
  int64_t size() override {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<int64_t>(items_.size());
  }
  bool isClosed() override {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
  }
  const std::vector<DType> &componentTypes() const override { return types_; }
  const std::vector<ir::Shape> &componentShapes() const override { return shapes_; }
  const std::string &name() const override { return name_; }
  std::string closedMessage() const {
    return "FIFOQueue '" + name_ + "' is closed and has insufficient elements "
           "(requested 1, current size 0)";
  }
  int dequeues = 0;

private:
  std::mutex mu_;
  std::deque<Tuple> items_;
  std::deque<TupleCallback> waiters_;
  bool closed_ = false;
  std::vector<DType> types_{DType::kString};
  std::vector<ir::Shape> shapes_{ir::Shape::scalar()};
  std::string name_ = "filename_queue";
};

/// Builds nodes in a graph and runs their kernels by hand, sharing one
/// resource manager (the session's, in real runs).
class GraphTest : public ::testing::Test {
protected:
  ir::Graph g;
  backend::ResourceMgr resources;
  CancellationManager cm;

  ir::Output constant(Tensor t) {
    ir::NodeSpec s;
    s.op = "constant";
    s.attrs["value"] = t;
    s.attrs["dtype"] = t.dtype();
    auto n = g.addNode(std::move(s));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return {(*n)->id(), 0};
  }
  Expected<ir::Node *> add(std::string op, std::vector<ir::Output> inputs,
                           ir::AttrMap attrs = {}, std::string name = "") {
    ir::NodeSpec s;
    s.op = std::move(op);
    s.name = std::move(name);
    s.inputs = std::move(inputs);
    s.attrs = std::move(attrs);
    return g.addNode(std::move(s));
  }
  ir::Node *mustAdd(std::string op, std::vector<ir::Output> inputs,
                    ir::AttrMap attrs = {}, std::string name = "") {
    auto n = add(std::move(op), std::move(inputs), std::move(attrs), std::move(name));
    EXPECT_TRUE(n.hasValue()) << n.status().toString();
    return n.hasValue() ? *n : nullptr;
  }
  std::string addError(std::string op, std::vector<ir::Output> inputs,
                       ir::AttrMap attrs = {}) {
    auto n = add(std::move(op), std::move(inputs), std::move(attrs));
    return n.hasValue() ? "" : n.status().message();
  }

  /// Runs `n` on explicit input values (async kernels are waited for).
  Expected<std::vector<Tensor>> run(const ir::Node *n, const std::vector<Tensor> &in) {
    SLUICE_ASSIGN_OR_RETURN(auto kernel, backend::kernelRegistry().create(*n, "CPU"));
    std::vector<const Tensor *> ptrs;
    for (const Tensor &t : in)
      ptrs.push_back(&t);
    std::vector<Tensor> out(n->numOutputs());
    backend::KernelContext::Params p;
    p.node = n;
    p.inputs = ptrs.data();
    p.numInputs = static_cast<int>(ptrs.size());
    p.outputs = out.data();
    p.numOutputs = n->numOutputs();
    p.resources = &resources;
    p.cancellation = &cm;
    backend::KernelContext ctx(p);
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    kernel->computeAsync(ctx, [&] {
      std::lock_guard<std::mutex> lock(mu);
      finished = true;
      cv.notify_all();
    });
    {
      std::unique_lock<std::mutex> lock(mu);
      if (!cv.wait_for(lock, std::chrono::seconds(10), [&] { return finished; }))
        return deadlineExceeded("kernel did not finish");
    }
    if (!ctx.ok())
      return ctx.status();
    for (int i = 0; i < n->numOutputs(); ++i) {
      EXPECT_EQ(out[i].dtype(), n->outputType(i)) << n->name() << ":" << i;
      EXPECT_TRUE(n->outputShape(i).isCompatibleWith(out[i].dims()))
          << n->name() << ":" << i << " static " << n->outputShape(i).str()
          << " vs run " << ir::dimsString(out[i].dims());
    }
    return out;
  }
  /// Runs `n` with its inputs taken from constant nodes.
  Expected<std::vector<Tensor>> eval(const ir::Node *n) {
    std::vector<Tensor> in;
    for (const ir::Output &o : n->inputs())
      in.push_back(g.node(o.node).attr<Tensor>("value"));
    return run(n, in);
  }
  std::string evalError(const ir::Node *n) {
    auto r = eval(n);
    return r.hasValue() ? "" : r.status().message();
  }
};

} // namespace sluice::testing
