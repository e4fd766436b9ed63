// frontend/eval/pipeline_objects.cc: Coordinator and QueueRunner, with
// TF1's semantics (docs/tf1-semantics.md §4).
#include "frontend/eval/pipeline_objects.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

namespace sluice::frontend {

namespace {

/// A native thread as a ThreadObject, started now or by its .start();
/// `body` returns its error. It counts as the program's live thread for
/// the stall check from its start until its body returned.
std::shared_ptr<ThreadObject> startNative(std::string name,
                                          std::shared_ptr<tflib::ProgramActivity> activity,
                                          std::function<std::optional<Status>()> body,
                                          bool start = true) {
  auto th = std::make_shared<ThreadObject>();
  th->name = std::move(name);
  std::weak_ptr<ThreadObject> weak = th;
  auto launch = [weak, activity, body = std::move(body)] {
    auto t = weak.lock();
    if (!t)
      return;
    auto alive = std::make_shared<tflib::ProgramActivity::Thread>(activity);
    t->thread = std::thread([t, body, alive]() mutable {
      std::optional<Status> err = body();
      std::lock_guard<std::mutex> g(t->mu);
      if (err)
        t->error = LangError{*err};
      t->done = true;
      alive.reset();
      t->cv.notify_all();
    });
  };
  if (start)
    launch();
  else
    th->launch = std::move(launch);
  return th;
}

} // namespace

std::optional<Status> CoordinatorObject::requestStop(EvaluatorImpl *ev,
                                                     std::optional<Status> error,
                                                     const SourceLoc &loc) {
  std::optional<Status> late = core->requestStop(std::move(error));
  if (late && ev)
    throwStatus(*late, loc);
  return late;
}

void CoordinatorObject::registerThread(std::shared_ptr<ThreadObject> t) {
  std::lock_guard<std::mutex> lock(mu_);
  threads_.push_back(std::move(t));
}

void CoordinatorObject::join(EvaluatorImpl &ev, std::vector<std::shared_ptr<ThreadObject>> threads,
                             double grace, bool ignoreLive, const SourceLoc &loc) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.insert(threads.end(), threads_.begin(), threads_.end());
  }
  // TF joins the union of both sets: a runner thread is registered and
  // usually passed too, and must be named once.
  {
    std::vector<std::shared_ptr<ThreadObject>> unique;
    for (auto &t : threads)
      if (std::find(unique.begin(), unique.end(), t) == unique.end())
        unique.push_back(t);
    threads = std::move(unique);
  }
  auto anyAlive = [&] {
    for (auto &t : threads)
      if (t->isAlive())
        return true;
    return false;
  };
  {
    GilRelease release(ev.gil);
    while (anyAlive() && !core->waitForStop(0.05)) {
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
    auto wait = std::chrono::milliseconds(1);
    while (anyAlive() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(wait);
      wait = std::min(wait * 2, std::chrono::milliseconds(100));
    }
  }
  std::string stragglers;
  for (auto &t : threads)
    if (t->isAlive())
      stragglers += (stragglers.empty() ? "" : " ") + t->name;
  std::optional<Status> err = core->markJoined();
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads_.clear();
  }
  // Finished threads are reaped. A thread's own error (one it did not
  // report to the coordinator) is not the coordinator's to raise, as in TF,
  // but it must not vanish either: such a thread stays unjoined, so its
  // h.join() or the session's end re-raises it.
  for (auto &t : threads)
    if (!t->isAlive()) {
      {
        std::lock_guard<std::mutex> g(t->mu);
        if (!t->error)
          t->joined = true;
      }
      if (t->thread.joinable()) {
        GilRelease release(ev.gil);
        t->thread.join();
      }
    }
  if (err)
    throw LangError{*err};
  if (!stragglers.empty() && !ignoreLive)
    throwError(Code::kRuntimeError,
               "Coordinator stopped with threads still running: " + stragglers, loc);
}

std::optional<Value> CoordinatorObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto self = std::static_pointer_cast<CoordinatorObject>(shared_from_this());
  if (name == "request_stop")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      Value ex = argOr(a, 0, "ex", Value::none());
      std::optional<Status> s;
      if (auto e = ex.objectAs<ErrorObject>())
        s = e->status;
      else if (!ex.isNone())
        throwError(Code::kTypeError, "request_stop() takes an error (from catch ... as e)", a.loc);
      self->requestStop(&ev, s, a.loc);
      return Value::none();
    });
  if (name == "should_stop")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      return Value::boolean(self->shouldStop());
    });
  if (name == "wait_for_stop")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      Value t = argOr(a, 0, "timeout", Value::none());
      double secs = t.isNone() ? -1 : toNumber(t, "timeout", a.loc);
      GilRelease release(ev.gil);
      return Value::boolean(self->core->waitForStop(secs));
    });
  if (name == "clear_stop")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      self->core->clearStop();
      return Value::none();
    });
  if (name == "register_thread")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &a) {
      auto t = requireArg(a, 0, "thread", "register_thread").objectAs<ThreadObject>();
      if (!t)
        throwError(Code::kTypeError, "register_thread() needs a thread", a.loc);
      self->registerThread(t);
      return Value::none();
    });
  if (name == "join")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "join", {"threads", "stop_grace_period_secs", "ignore_live_threads"});
      std::vector<std::shared_ptr<ThreadObject>> threads;
      Value ts = argOr(a, 0, "threads", Value::none());
      if (!ts.isNone())
        for (const Value &t : ev.iterate(ts, a.loc)) {
          auto th = t.objectAs<ThreadObject>();
          if (!th)
            throwError(Code::kTypeError, "join() needs a list of threads", a.loc);
          threads.push_back(th);
        }
      double grace = toNumber(argOr(a, 1, "stop_grace_period_secs", Value::integer(120)),
                              "stop_grace_period_secs", a.loc);
      bool ignore = ev.truthy(argOr(a, 2, "ignore_live_threads", Value::boolean(false)), a.loc);
      self->join(ev, std::move(threads), grace, ignore, a.loc);
      return Value::none();
    });
  if (name == "stop_on_exception") {
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      class StopOnException : public ContextObject {
      public:
        explicit StopOnException(std::shared_ptr<CoordinatorObject> c) : coord(std::move(c)) {}
        std::string typeName() const override { return "stop_on_exception"; }
        Value enter(EvaluatorImpl &, const SourceLoc &) override { return Value::none(); }
        bool exitWithError(EvaluatorImpl &ev, LangError &e) override {
          if (e.testFailure)
            return false;
          coord->requestStop(&ev, e.status, e.status.loc());
          return true; // reported to the coordinator and swallowed, as TF
        }
        std::shared_ptr<CoordinatorObject> coord;
      };
      return Value::object(std::make_shared<StopOnException>(self));
    });
  }
  return std::nullopt;
}

std::vector<std::shared_ptr<ThreadObject>>
QueueRunnerObject::createThreads(EvaluatorImpl &ev, std::shared_ptr<SessionObject> sess,
                                 std::shared_ptr<CoordinatorObject> coord, bool start,
                                 const SourceLoc &) {
  std::vector<std::shared_ptr<ThreadObject>> out;
  rt::Session *session = sess->session.get();
  {
    std::lock_guard<std::mutex> lock(mu_);
    // TF returns [] while this runner's threads for the session still
    // run; threads not started yet count as running, as TF counts runs
    // from create_threads on.
    for (auto &t : live_[session])
      if (t->isAlive() || !t->started())
        return out;
  }
  for (auto &body : runner->startRound(*session, coord ? coord->core : nullptr, ev.activity)) {
    std::string name = body.op == ir::kNoNode
                           ? "queue_runner_close_on_stop"
                           : "queue_runner_" + graph->graph->node(body.op).name();
    // The thread holds the session object, so the session outlives it.
    out.push_back(startNative(name, ev.activity, [sess, run = body.run] { return run(); },
                              start));
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_[session] = out;
  }
  if (coord)
    for (auto &t : out)
      coord->registerThread(t);
  ThreadState &t = ev.ts();
  for (auto &th : out) {
    if (!t.spawnScopes.empty())
      t.spawnScopes.back().push_back(th);
    else
      ev.topLevelThreads.push_back(th);
  }
  return out;
}

std::optional<Value> QueueRunnerObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto self = std::static_pointer_cast<QueueRunnerObject>(shared_from_this());
  if (name == "queue")
    return queue;
  const tflib::QueueRunnerDef &def = runner->def();
  if (name == "enqueue_ops") {
    List ops;
    for (ir::NodeId id : def.enqueueOps)
      ops.push_back(Value::op(graph, id));
    return Value::list(std::move(ops));
  }
  if (name == "close_op")
    return def.closeOp == ir::kNoNode ? Value::none() : Value::op(graph, def.closeOp);
  if (name == "cancel_op")
    return def.cancelOp == ir::kNoNode ? Value::none() : Value::op(graph, def.cancelOp);
  if (name == "exceptions_raised") {
    List errs;
    for (const Status &s : runner->exceptions())
      errs.push_back(Value::object(std::make_shared<ErrorObject>(s)));
    return Value::list(std::move(errs));
  }
  if (name == "create_threads")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      checkKeywords(a, "create_threads", {"sess", "coord", "daemon", "start"});
      // TF's create_threads(sess, coord, ...): the session is optional here
      // and defaults to the innermost open one.
      std::shared_ptr<SessionObject> sess;
      std::shared_ptr<CoordinatorObject> coord;
      for (const Value &v : a.positional) {
        if (auto s = v.objectAs<SessionObject>())
          sess = s;
        else if (auto c = v.objectAs<CoordinatorObject>())
          coord = c;
      }
      if (const Value *c = argAt(a, 999, "coord"); c && !c->isNone()) {
        coord = c->objectAs<CoordinatorObject>();
        if (!coord)
          throwError(Code::kTypeError, "coord must be a coordinator()", a.loc);
      }
      if (const Value *s = argAt(a, 999, "sess"); s && !s->isNone())
        sess = s->objectAs<SessionObject>();
      if (!sess)
        sess = ev.currentSession(a.loc);
      bool start = ev.truthy(argOr(a, 999, "start", Value::boolean(false)), a.loc);
      List out;
      for (auto &t : self->createThreads(ev, sess, coord, start, a.loc))
        out.push_back(Value::object(t));
      return Value::list(std::move(out));
    });
  return std::nullopt;
}

} // namespace sluice::frontend
