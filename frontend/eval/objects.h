// frontend/eval/objects.h: the language's object values: scopes for
// `with`, errors, variables, device specs, sessions and threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <thread>

#include "frontend/eval/interp.h"
#include "runtime/session.h"

namespace sluice::frontend {

/// Something `with` can open: name_scope, device, control_dependencies,
/// colocate_with, coordinator.stop_on_exception ...
class ContextObject : public Object {
public:
  /// Pushes the scope; returns the value bound by `as`.
  virtual Value enter(EvaluatorImpl &ev, const SourceLoc &loc) = 0;
  /// Scope stacks are restored by the `with` statement itself; objects
  /// with other state undo it here.
  virtual void exit(EvaluatorImpl &ev) {}
  /// Called when the body raised; return true to swallow the error.
  virtual bool exitWithError(EvaluatorImpl &ev, LangError &e) {
    exit(ev);
    return false;
  }
};

/// A scope built from a function: `enter` and `exit` callbacks.
class ScopeObject : public ContextObject {
public:
  ScopeObject(std::string name, std::function<Value(EvaluatorImpl &, const SourceLoc &)> enter)
      : name_(std::move(name)), enter_(std::move(enter)) {}
  std::string typeName() const override { return name_; }
  Value enter(EvaluatorImpl &ev, const SourceLoc &loc) override { return enter_(ev, loc); }

private:
  std::string name_;
  std::function<Value(EvaluatorImpl &, const SourceLoc &)> enter_;
};

/// The value bound by `catch KIND as e`.
class ErrorObject : public Object {
public:
  explicit ErrorObject(Status s) : status(std::move(s)) {}
  std::string typeName() const override { return "error"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;
  Status status;
};

/// An object backed by a resource handle node (variables, queues,
/// readers): ops that take a resource input accept it directly.
class HandleObject : public Object {
public:
  virtual GraphContext *handleGraph() const = 0;
  virtual ir::Output handleOutput() const = 0;
};

/// A variable: its handle node, initializer and read value. Used as a
/// tensor it reads (`name/read:0`).
class VariableObject : public HandleObject {
public:
  VariableObject(GraphContext *g, VariableInfo info) : graph(g), info(info) {}
  GraphContext *handleGraph() const override { return graph; }
  ir::Output handleOutput() const override { return {info.handle, 0}; }
  std::string typeName() const override { return "variable"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  /// Two objects for one variable node are the same variable.
  bool equalsObject(const Object &o) const override {
    auto *v = dynamic_cast<const VariableObject *>(&o);
    return v && v->graph == graph && v->info.handle == info.handle;
  }
  std::string repr() const override;
  GraphContext *graph;
  VariableInfo info;
};

class DeviceSpecObject : public Object {
public:
  explicit DeviceSpecObject(ir::DeviceSpec s) : spec(std::move(s)) {}
  std::string typeName() const override { return "device_spec"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override { return spec.toString(); }
  ir::DeviceSpec spec;
};

/// config_proto(...): TF's ConfigProto fields.
class ConfigObject : public Object {
public:
  std::string typeName() const override { return "config_proto"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  rt::SessionOptions options;
  bool stallDetection = true;
  bool backendSet = false; // backend: given, so --backend does not apply
};

class ThreadObject;

/// An open session over a graph.
class SessionObject : public Object {
public:
  SessionObject(GraphContext *g, std::unique_ptr<rt::Session> s)
      : graph(g), session(std::move(s)) {}
  std::string typeName() const override { return "session"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  /// Around each run() of the language (a supervised session's schedule):
  /// an extra output to fetch in this run, given its feeds ...
  virtual std::optional<ir::Output>
  beforeRun(EvaluatorImpl &ev, const std::vector<ir::Output> &fetches,
            const std::vector<ir::NodeId> &targets,
            const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds) {
    return std::nullopt;
  }
  /// ... and what to do after it succeeded (`extra`: that output's value).
  virtual void afterRun(EvaluatorImpl &ev, const ir::Tensor *extra, const SourceLoc &loc) {}
  GraphContext *graph;
  std::unique_ptr<rt::Session> session;
  bool closed = false;
  /// Not in TF: a run blocked on a queue nothing can fill fails instead
  /// of hanging (config_proto(stall_detection: false) turns it off).
  bool stallDetection = true;
  /// The static pipeline check runs at the session's first run, so that
  /// ops built inside the session block before it (a feeder's enqueue)
  /// count; a supervised session checks its finalized graph up front.
  bool pipelinesChecked = false;
};

/// A thread started by `spawn`.
class ThreadObject : public Object {
public:
  std::string typeName() const override { return "thread"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override { return "<thread '" + name + "'>"; }
  /// Waits (without the interpreter lock) and returns the result or throws.
  Value join(EvaluatorImpl &ev, const SourceLoc &loc);
  /// Alive: started and not finished (an unstarted thread is not, as in
  /// Python).
  bool isAlive();
  /// create_threads(start: false) leaves the launch for .start().
  bool started();
  /// Starts a thread made with start: false; runtime_error if it already
  /// was, as Python's "threads can only be started once".
  void start(const SourceLoc &loc);

  std::string name;
  std::thread thread;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool joined = false; // someone observed its result
  std::function<void()> launch; // set until an unstarted thread starts
  Value result;
  std::optional<LangError> error;
};

} // namespace sluice::frontend
