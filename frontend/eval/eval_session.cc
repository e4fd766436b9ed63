// frontend/eval/eval_session.cc: session blocks, run(), and spawned threads.
#include <chrono>

#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "passes/pipeline_check.h"
#include "tflib/input/stall_check.h"
#include <iostream>

namespace sluice::frontend {

namespace {

/// Flattens a fetch structure into outputs/targets, remembering the shape
/// so results come back in the same structure.
struct FetchPlan {
  std::vector<ir::Output> fetches;
  std::vector<ir::NodeId> targets;
};

Value planFetch(EvaluatorImpl &ev, const Value &f, FetchPlan &plan, GraphContext *g,
                const SourceLoc &loc) {
  // Returns a template: int index into fetches for tensors, none for ops.
  if (f.is(Value::kTensor)) {
    if (f.asTensor().graph != g)
      throwError(Code::kValueError, "fetch belongs to another graph", loc);
    plan.fetches.push_back(f.asTensor().out);
    return Value::integer(static_cast<int64_t>(plan.fetches.size()) - 1);
  }
  if (auto var = f.objectAs<VariableObject>()) {
    plan.fetches.push_back(var->info.readValue);
    return Value::integer(static_cast<int64_t>(plan.fetches.size()) - 1);
  }
  if (f.is(Value::kOp)) {
    plan.targets.push_back(f.asOp().node);
    return Value::none();
  }
  if (f.isSequence()) {
    List items;
    for (const Value &x : *f.asList())
      items.push_back(planFetch(ev, x, plan, g, loc));
    return f.is(Value::kList) ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  if (f.is(Value::kDict)) {
    auto d = std::make_shared<Dict>();
    for (const auto &[k, v] : f.asDict()->items)
      d->set(k, planFetch(ev, v, plan, g, loc));
    return Value::dict(d);
  }
  throwError(Code::kTypeError,
             "run() fetches graph elements (tensors, operations, variables), got a " +
                 f.typeName(),
             loc);
}

Value fillFetch(const Value &tmpl, std::vector<ir::Tensor> &results) {
  if (tmpl.is(Value::kInt))
    return Value::hostTensor(results[tmpl.asInt()]);
  if (tmpl.isSequence()) {
    List items;
    for (const Value &x : *tmpl.asList())
      items.push_back(fillFetch(x, results));
    return tmpl.is(Value::kList) ? Value::list(std::move(items)) : Value::tuple(std::move(items));
  }
  if (tmpl.is(Value::kDict)) {
    auto d = std::make_shared<Dict>();
    for (const auto &[k, v] : tmpl.asDict()->items)
      d->set(k, fillFetch(v, results));
    return Value::dict(d);
  }
  return Value::none();
}

} // namespace

std::shared_ptr<SessionObject> EvaluatorImpl::currentSession(const SourceLoc &loc) {
  ThreadState &t = ts();
  if (t.sessions.empty())
    throwError(Code::kRuntimeError, "run() needs an open session: use 'session { ... }'", loc);
  return t.sessions.back();
}

Value EvaluatorImpl::runFetches(SessionObject &sess, CallArgs &args) {
  checkKeywords(args, "run", {"fetches", "feed", "feed_dict", "timeout_in_ms", "options"});
  const Value &fetches = requireArg(args, 0, "fetches", "run");
  Value feed = argOr(args, 1, "feed", Value::none());
  if (feed.isNone())
    feed = argOr(args, 99, "feed_dict", Value::none());
  Value timeout = argOr(args, 99, "timeout_in_ms", Value::none());
  FetchPlan plan;
  Value tmpl = planFetch(*this, fetches, plan, sess.graph, args.loc);
  std::vector<std::pair<ir::Output, ir::Tensor>> feeds;
  if (!feed.isNone()) {
    if (!feed.is(Value::kDict))
      throwError(Code::kTypeError, "feed must be a dict of {tensor: value}", args.loc);
    for (const auto &[k, v] : feed.asDict()->items) {
      ir::Output target;
      if (k.is(Value::kTensor)) {
        target = k.asTensor().out;
      } else if (auto var = k.objectAs<VariableObject>()) {
        target = var->info.readValue;
      } else if (k.is(Value::kString)) {
        std::string name = k.asString();
        int index = 0;
        if (auto colon = name.rfind(':'); colon != std::string::npos) {
          index = std::atoi(name.c_str() + colon + 1);
          name = name.substr(0, colon);
        }
        const ir::Node *n = sess.graph->graph->findNode(name);
        if (!n)
          throwError(Code::kNotFound, "feed key '" + k.asString() + "' names no node", args.loc);
        target = {n->id(), index};
      } else {
        throwError(Code::kTypeError, "a feed key must be a tensor, got " + k.typeName(), args.loc);
      }
      const ir::Node &fed = sess.graph->graph->node(target.node);
      ir::Tensor value = hostToTensor(v, fed.outputType(target.index), args.loc);
      // TF's Session.run checks a feed against the static shape first
      // (a ValueError in Python).
      const ir::Shape &want = fed.outputShape(target.index);
      if (!want.isCompatibleWith(ir::Shape(value.dims())))
        throwError(Code::kValueError,
                   "Cannot feed value of shape " + ir::Shape(value.dims()).str() +
                       " for Tensor '" + fed.name() + ":" + std::to_string(target.index) +
                       "', which has shape '" + want.str() + "'",
                   args.loc);
      feeds.emplace_back(target, std::move(value));
    }
  }
  if (!sess.pipelinesChecked) {
    sess.pipelinesChecked = true;
    checkPipelinesAtRun(*sess.graph);
  }
  rt::RunOptions ro;
  if (!timeout.isNone())
    ro.timeoutMs = toInt(timeout, "timeout_in_ms", args.loc);
  if (sess.stallDetection)
    ro.stallCheck = [this, &sess]() {
      return tflib::stalledQueue(*activity, *sess.session, [&sess](const std::string &node) {
        std::shared_lock lock(sess.graph->mutex);
        const ir::Node *n = sess.graph->graph->findNode(node);
        return n ? n->loc() : SourceLoc{};
      });
    };
  std::optional<ir::Output> extra = sess.beforeRun(*this, plan.fetches, plan.targets, feeds);
  if (extra)
    plan.fetches.push_back(*extra);
  Expected<std::vector<ir::Tensor>> results = [&] {
    GilRelease release(gil);
    tflib::ProgramActivity::Run inFlight(*activity);
    rt::Session *running = sess.session.get();
    {
      std::lock_guard<std::mutex> lock(runningMu);
      runningSessions.insert(running);
    }
    auto r = running->run(feeds, plan.fetches, plan.targets, ro);
    {
      std::lock_guard<std::mutex> lock(runningMu);
      runningSessions.erase(runningSessions.find(running));
    }
    return r;
  }();
  if (!results.hasValue()) {
    Status s = results.takeStatus();
    // Run-time errors keep the location of the op that failed; the run()
    // call site is reported only when the error has none.
    s.withLoc(args.loc);
    throw LangError{std::move(s)};
  }
  std::optional<ir::Tensor> extraValue;
  if (extra) {
    extraValue = std::move(results->back());
    results->pop_back();
  }
  Value out = fillFetch(tmpl, *results);
  sess.afterRun(*this, extraValue ? &*extraValue : nullptr, args.loc);
  return out;
}

void EvaluatorImpl::interruptRuns() {
  std::lock_guard<std::mutex> lock(runningMu);
  for (rt::Session *s : runningSessions)
    s->cancelRunningSteps();
}

namespace {
rt::SessionOptions sessionOptions(EvaluatorImpl &ev, CallArgs &a) {
  Value config = argOr(a, 0, "config", Value::none());
  rt::SessionOptions o;
  bool backendSet = false;
  if (!config.isNone()) {
    auto c = config.objectAs<ConfigObject>();
    if (!c)
      throwError(Code::kTypeError, "config must be a config_proto(...)", a.loc);
    o = c->options;
    backendSet = c->backendSet;
  }
  // --backend applies where config_proto(backend:) says nothing.
  if (!backendSet && !ev.opts.backend.empty())
    o.backend = ev.opts.backend;
  return o;
}
} // namespace

void EvaluatorImpl::checkPipelinesAtRun(GraphContext &g) {
  // Tests build broken pipelines on purpose; they assert on errors instead.
  if (opts.mode != EvalMode::kRun)
    return;
  std::vector<Status> findings;
  {
    std::shared_lock lock(g.mutex);
    findings = passes::checkPipelines(*g.graph);
  }
  for (Status &f : findings) {
    if (!g.warnedNodes.insert(f.node()).second)
      continue;
    if (opts.werror)
      throw LangError{f};
    Diagnostic d;
    d.severity = Severity::kWarning;
    d.loc = f.loc();
    d.message = f.message();
    std::ostream &os = opts.err ? *opts.err : std::cerr;
    std::string text = diags.format(d);
    os << text << (text.empty() || text.back() != '\n' ? "\n" : "");
  }
}

void EvaluatorImpl::runSessionBlock(const SessionStmt &s, const std::shared_ptr<Env> &env) {
  CallArgs a;
  a.loc = s.loc;
  for (const auto &arg : s.args) {
    if (arg.name.empty()) {
      a.positional.push_back(eval(*arg.value, env));
      a.positionalLocs.push_back(arg.loc);
    } else {
      a.keywords.emplace_back(arg.name, eval(*arg.value, env));
      a.keywordLocs.push_back(arg.loc);
    }
  }
  if (std::optional<CallArgs> supervised = supervisedSessionArgs(a))
    return runSupervisedSession(s, *supervised, env);
  checkKeywords(a, "session", {"config", "target", "graph"});
  rt::SessionOptions opts = sessionOptions(*this, a);
  opts.ignoreDeviceRequests = this->opts.oneDevice;
  opts.cluster = sessionCluster(*this, argOr(a, 99, "target", Value::none()), s.loc);
  GraphContext *g = ts().graph;
  auto created = rt::Session::create(g->graph.get(), &g->mutex, opts);
  if (!created.hasValue())
    throwStatus(created.takeStatus(), s.loc);
  auto sess = std::make_shared<SessionObject>(g, std::move(*created));
  if (Value c = argOr(a, 0, "config", Value::none()); auto cfg = c.objectAs<ConfigObject>())
    sess->stallDetection = cfg->stallDetection;
  if (!s.asName.empty())
    env->set(s.asName, Value::object(sess));
  ThreadState &t = ts();
  t.sessions.push_back(sess);
  t.spawnScopes.emplace_back();
  std::optional<LangError> failure;
  try {
    Value ret;
    execBlock(s.body, env, ret);
  } catch (LangError &e) {
    failure = std::move(e);
  }
  // Close: cancel what is blocked, join the threads spawned here, and
  // re-raise the first error nobody joined.
  {
    GilRelease release(gil);
    sess->session->close().ignore();
  }
  sess->closed = true;
  auto threads = std::move(t.spawnScopes.back());
  t.spawnScopes.pop_back();
  t.sessions.pop_back();
  for (auto &th : threads) {
    if (!th->started())
      continue; // made with start: false and never started: nothing to join
    try {
      bool observed = th->joined;
      Value r = th->join(*this, s.loc);
      (void)r;
      (void)observed;
    } catch (LangError &e) {
      if (!failure)
        failure = std::move(e);
    }
  }
  if (failure)
    throw *failure;
}

Value EvaluatorImpl::spawn(const SpawnExpr &e, const std::shared_ptr<Env> &env) {
  CallArgs a;
  a.loc = e.loc;
  for (const auto &arg : e.args) {
    a.keywords.emplace_back(arg.name.empty() ? "name" : arg.name, eval(*arg.value, env));
    a.keywordLocs.push_back(arg.loc);
  }
  checkKeywords(a, "spawn", {"name"});
  auto th = std::make_shared<ThreadObject>();
  Value nameV = argOr(a, 99, "name", Value::none());
  th->name = nameV.isNone() ? "thread" : toStr(nameV, "name", e.loc);
  ThreadState parent = ts();
  parent.spawnScopes.clear();
  parent.callDepth = 0;
  auto blockEnv = std::make_shared<Env>(env);
  const Block *body = &e.body;
  const SourceLoc spawnLoc = e.loc;
  auto alive = std::make_shared<tflib::ProgramActivity::Thread>(activity);
  th->thread = std::thread([this, th, parent, blockEnv, body, spawnLoc, alive]() mutable {
    ThreadState state = parent;
    state.spawnScopes.emplace_back();
    tlsThreadState = &state;
    std::unique_lock<std::mutex> lock(gil);
    Value result;
    std::optional<LangError> err;
    try {
      // join() returns the block's last value: a `return`, or the value
      // of a final expression statement.
      Value ret;
      Flow f = Flow::kNormal;
      for (size_t i = 0; i < body->size() && f == Flow::kNormal; ++i) {
        const Stmt &st = *(*body)[i];
        if (i + 1 == body->size() && st.kind == StmtKind::kExpr)
          result = eval(*static_cast<const ExprStmt &>(st).expr, blockEnv);
        else
          f = exec(st, blockEnv, ret);
      }
      if (f == Flow::kReturn)
        result = ret;
      else if (f != Flow::kNormal)
        throwError(Code::kValueError, "'break' or 'continue' outside a loop", spawnLoc);
    } catch (LangError &ex) {
      err = std::move(ex);
    }
    // Threads spawned by this thread outside a session are joined here.
    for (auto &child : state.spawnScopes.back()) {
      try {
        child->join(*this, {});
      } catch (LangError &ex) {
        if (!err)
          err = std::move(ex);
      }
    }
    lock.unlock();
    tlsThreadState = nullptr;
    std::lock_guard<std::mutex> g(th->mu);
    th->result = std::move(result);
    th->error = std::move(err);
    th->done = true;
    alive.reset();
    th->cv.notify_all();
  });
  ThreadState &t = ts();
  if (!t.spawnScopes.empty())
    t.spawnScopes.back().push_back(th);
  else
    topLevelThreads.push_back(th);
  return Value::object(th);
}

Value ThreadObject::join(EvaluatorImpl &ev, const SourceLoc &loc) {
  if (!started())
    throwError(Code::kRuntimeError, "cannot join thread before it is started", loc);
  {
    GilRelease release(ev.gil);
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
  }
  if (thread.joinable()) {
    GilRelease release(ev.gil);
    thread.join();
  }
  bool first = !joined;
  joined = true;
  if (error && first) {
    LangError e = *error;
    throw e;
  }
  if (error)
    return Value::none();
  return result;
}

bool ThreadObject::isAlive() {
  std::lock_guard<std::mutex> lock(mu);
  return !done && !launch;
}

bool ThreadObject::started() {
  std::lock_guard<std::mutex> lock(mu);
  return !launch;
}

void ThreadObject::start(const SourceLoc &loc) {
  std::function<void()> go;
  {
    std::lock_guard<std::mutex> lock(mu);
    go = std::move(launch);
    launch = nullptr;
  }
  if (!go)
    throwError(Code::kRuntimeError, "threads can only be started once", loc);
  go();
}

} // namespace sluice::frontend
