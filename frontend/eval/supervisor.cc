// frontend/eval/supervisor.cc: supervised sessions, TF1's Supervisor and
// SessionManager (docs/tf1-semantics.md §8): `session(logdir: ...) { }`
// finalizes the graph; the chief restores the newest loadable checkpoint
// in logdir or initializes, a non-chief waits until the model is ready;
// queue runners start with the session's coordinator; the chief saves on
// schedule (supervised_session.cc) and at the end; out_of_range ends the
// block cleanly.
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "backend/io/checkpoint.h"
#include "frontend/eval/supervised_session.h"

namespace sluice::frontend {

namespace io = backend::io;

namespace {

const char *const kSupervisorKeys[] = {
    "logdir",          "is_chief",      "save_every_steps",        "save_every_secs",
    "init_op",         "init_fn",       "local_init_op",           "ready_op",
    "ready_for_local_init_op",          "max_wait_secs",           "recovery_wait_secs",
    "saver",           "summary_op",    "save_summaries_steps",    "global_step",
    "checkpoint_basename",              "stop_grace_secs"};

std::string nodeName(GraphContext &g, ir::NodeId id) {
  return id == ir::kNoNode ? "None" : g.graph->node(id).name();
}

// --- configuration -------------------------------------------------------

ir::NodeId opArg(const Value &v, const std::string &key, const SourceLoc &loc) {
  if (v.isNone())
    return ir::kNoNode;
  if (v.is(Value::kOp))
    return v.asOp().node;
  if (v.is(Value::kTensor))
    return v.asTensor().out.node;
  throwError(Code::kTypeError, key + " must be an op, got a " + v.typeName(), loc);
}

std::optional<ir::Output> tensorArg(const Value &v, const std::string &key, const SourceLoc &loc) {
  if (v.isNone())
    return std::nullopt;
  if (v.is(Value::kTensor))
    return v.asTensor().out;
  throwError(Code::kTypeError, key + " must be a tensor, got a " + v.typeName(), loc);
}

/// Reads the supervisor's arguments and builds the default ops TF's
/// Supervisor takes from the graph's collections, before the graph is
/// finalized.
SupervisorConfig configure(EvaluatorImpl &ev, CallArgs &a, GraphContext &g) {
  SupervisorConfig c;
  auto has = [&](const char *k) { return argAt(a, 999, k) != nullptr; };
  auto get = [&](const char *k) { return argOr(a, 999, k, Value::none()); };
  const SourceLoc &loc = a.loc;
  if (Value v = get("logdir"); !v.isNone())
    c.logdir = toStr(v, "logdir", loc);
  if (has("is_chief"))
    c.isChief = ev.truthy(get("is_chief"), loc);
  if (Value v = get("save_every_steps"); !v.isNone()) {
    c.saveSteps = toInt(v, "save_every_steps", loc);
    if (*c.saveSteps <= 0)
      throwError(Code::kValueError, "save_every_steps must be > 0, got " +
                                        std::to_string(*c.saveSteps), loc);
  }
  if (has("save_every_secs")) {
    Value v = get("save_every_secs");
    if (c.saveSteps && !v.isNone())
      throwError(Code::kValueError, "You cannot provide both save_every_secs and save_every_steps.",
                 loc);
    c.saveSecs = v.isNone() ? 0 : toNumber(v, "save_every_secs", loc);
  }
  auto seconds = [&](const char *k, double dflt) {
    if (!has(k))
      return dflt;
    double s = toNumber(get(k), k, loc);
    if (s < 0 || std::isnan(s))
      throwError(Code::kValueError, std::string(k) + " must be >= 0", loc);
    return s;
  };
  c.maxWaitSecs = seconds("max_wait_secs", 7200);
  c.recoveryWaitSecs = seconds("recovery_wait_secs", 30);
  c.stopGraceSecs = seconds("stop_grace_secs", 120);
  if (Value v = get("save_summaries_steps"); !v.isNone()) {
    c.summarySteps = toInt(v, "save_summaries_steps", loc);
    if (c.summarySteps <= 0)
      throwError(Code::kValueError, "save_summaries_steps must be > 0", loc);
  }
  if (Value v = get("checkpoint_basename"); !v.isNone())
    c.basename = toStr(v, "checkpoint_basename", loc);
  if (Value v = get("init_fn"); !v.isNone()) {
    if (!v.is(Value::kFunction) && !v.is(Value::kBuiltin))
      throwError(Code::kTypeError, "init_fn must be a function of the session, got a " + v.typeName(),
                 loc);
    c.initFn = v;
  }

  auto builtin = [&](const char *name, std::vector<Value> pos = {}) {
    CallArgs b;
    b.loc = loc;
    for (Value &p : pos) {
      b.positional.push_back(std::move(p));
      b.positionalLocs.push_back(loc);
    }
    return ev.call(*ev.builtins->lookup(name), b);
  };
  // A default is made once per graph and kept in its collection, as TF's
  // Supervisor does, so a later supervised session reuses it.
  auto collected = [&](const char *key, const std::function<Value()> &make) -> Value {
    if (auto it = g.supervisorOps.find(key); it != g.supervisorOps.end())
      return it->second.index < 0 ? Value::none()
             : g.graph->node(it->second.node).numOutputs() == 0
                 ? Value::op(&g, it->second.node)
                 : Value::tensor(&g, it->second);
    Value v = make();
    if (v.is(Value::kTensor))
      g.supervisorOps[key] = v.asTensor().out;
    else if (v.is(Value::kOp))
      g.supervisorOps[key] = {v.asOp().node, 0};
    else
      g.supervisorOps[key] = {ir::kNoNode, -1};
    return v;
  };
  // TF's defaults: USE_DEFAULT builds them; an explicit none means none.
  c.initOp = opArg(has("init_op") ? get("init_op")
                                   : collected("init_op", [&] {
                                       return builtin("global_variables_initializer");
                                     }),
                   "init_op", loc);
  c.localInitOp = opArg(has("local_init_op") ? get("local_init_op")
                                             : collected("local_init_op", [&] {
                                                 return builtin("local_variables_initializer");
                                               }),
                        "local_init_op", loc);
  c.readyOp = tensorArg(has("ready_op") ? get("ready_op")
                                        : collected("ready_op", [&] {
                                            return builtin("report_uninitialized_variables");
                                          }),
                        "ready_op", loc);
  c.readyForLocalInitOp = tensorArg(
      has("ready_for_local_init_op")
          ? get("ready_for_local_init_op")
          : collected("ready_for_local_init_op",
                      [&] {
                        List globals;
                        for (const VariableInfo &v : g.globalVariables)
                          globals.push_back(Value::object(std::make_shared<VariableObject>(&g, v)));
                        return builtin("report_uninitialized_variables",
                                       {Value::list(std::move(globals))});
                      }),
      "ready_for_local_init_op", loc);
  if (has("global_step")) {
    Value v = get("global_step");
    if (auto var = v.objectAs<VariableObject>())
      c.globalStep = var->info;
    else if (!v.isNone())
      throwError(Code::kTypeError, "global_step must be a variable, got a " + v.typeName(), loc);
  } else {
    c.globalStep = findGlobalStep(g, loc);
  }
  if (has("saver")) {
    Value v = get("saver");
    c.saver = v.objectAs<SaverObject>();
    if (!c.saver && !v.isNone())
      throwError(Code::kTypeError, "saver must be a saver(), got a " + v.typeName(), loc);
  } else if (g.supervisorSaver) {
    c.saver = std::static_pointer_cast<SaverObject>(g.supervisorSaver);
  } else if (!c.logdir.empty() && !g.globalVariables.empty()) {
    c.saver = builtin("saver").objectAs<SaverObject>();
    g.supervisorSaver = c.saver;
  }
  if (has("summary_op"))
    c.summaryOp = tensorArg(get("summary_op"), "summary_op", loc);
  else if (!c.logdir.empty() && (!g.summaries.empty() || g.supervisorOps.count("summary_op")))
    c.summaryOp = tensorArg(collected("summary_op", [&] { return builtin("merge_all_summaries"); }),
                            "summary_op", loc);
  // TF: "When using replicas, all Variables must have their device set".
  if (!c.isChief)
    for (const VariableInfo &v : g.globalVariables)
      if (g.graph->node(v.handle).requestedDevice().empty())
        throwError(Code::kValueError,
                   "When using replicas, all Variables must have their device set: " +
                       g.graph->node(v.handle).name(),
                   loc);
  return c;
}

/// The placeholders `out` depends on (a summary fetched in a run needs
/// them fed).
std::set<ir::NodeId> placeholdersBehind(const ir::Graph &g, ir::NodeId out) {
  std::set<ir::NodeId> seen, found;
  std::vector<ir::NodeId> stack = {out};
  while (!stack.empty()) {
    ir::NodeId id = stack.back();
    stack.pop_back();
    if (!seen.insert(id).second)
      continue;
    const ir::Node &n = g.node(id);
    if (n.opName() == "placeholder")
      found.insert(id);
    for (const ir::Output &in : n.inputs())
      stack.push_back(in.node);
    for (ir::NodeId c : n.controlInputs())
      stack.push_back(c);
  }
  return found;
}

// --- SessionManager ------------------------------------------------------

/// TF's _ready: (ready, why not). A failed_precondition about an
/// uninitialized value counts as not ready; other errors are raised.
std::pair<bool, std::string> modelReady(EvaluatorImpl &ev, rt::Session &s,
                                        const std::optional<ir::Output> &op, const SourceLoc &loc) {
  if (!op)
    return {true, ""};
  auto r = runNative(ev, s, {}, {*op}, {});
  if (!r.hasValue()) {
    Status st = r.takeStatus();
    if (st.code() == Code::kFailedPrecondition &&
        st.message().find("uninitialized") != std::string::npos)
      return {false, st.message()};
    throwStatus(std::move(st.withLoc(loc)), loc);
  }
  const ir::Tensor &names = (*r)[0];
  if (names.dtype() != ir::DType::kString || names.numElements() == 0)
    return {true, ""};
  std::string msg = "Variables not initialized: ";
  for (int64_t i = 0; i < names.numElements(); ++i)
    msg += (i ? ", " : "") + names.strings()[i];
  return {false, msg};
}

/// TF's _try_run_local_init_op.
std::pair<bool, std::string> tryLocalInit(EvaluatorImpl &ev, rt::Session &s,
                                          const SupervisorConfig &c, const SourceLoc &loc) {
  if (c.localInitOp == ir::kNoNode)
    return {true, ""};
  auto [ready, msg] = modelReady(ev, s, c.readyForLocalInitOp, loc);
  if (!ready)
    return {false, msg};
  auto r = runNative(ev, s, {}, {}, {c.localInitOp});
  checkRun(r, loc);
  return {true, ""};
}

/// Restores the newest checkpoint of logdir that loads, falling back to
/// the older kept ones (with a warning) when it is missing, truncated or
/// corrupt. False when there is none; the newest's error when every listed
/// checkpoint exists but none loads.
bool restoreLatest(EvaluatorImpl &ev, SupervisedSession &sess, const SourceLoc &loc) {
  const SupervisorConfig &c = sess.cfg;
  std::string warning;
  auto state = io::getCheckpointState(c.logdir, "", &warning);
  if (!state.hasValue())
    throwStatus(state.takeStatus(), loc);
  if (!warning.empty())
    supervisorWarning(ev, warning);
  if (!*state)
    return false;
  std::vector<std::string> candidates = {(*state)->modelCheckpointPath};
  const auto &all = (*state)->allModelCheckpointPaths;
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (std::find(candidates.begin(), candidates.end(), *it) == candidates.end())
      candidates.push_back(*it);
  std::optional<LangError> firstError;
  for (const std::string &p : candidates) {
    if (!io::checkpointExists(p)) {
      supervisorWarning(ev, "checkpoint " + p + " has no " + io::checkpointIndexPath(p) +
                   "; trying an older one");
      continue;
    }
    try {
      c.saver->restore(ev, sess, p, loc);
    } catch (LangError &e) {
      if (e.testFailure)
        throw;
      supervisorWarning(ev, "cannot restore " + p + ": " + e.status.message() +
                   "; falling back to an older kept checkpoint");
      if (!firstError)
        firstError = std::move(e);
      continue;
    }
    if (p != candidates.front())
      supervisorWarning(ev, "restored " + p + " instead of " + candidates.front());
    // Keep max_to_keep across restarts (TF's CheckpointSaverHook does so).
    c.saver->recoverLastCheckpoints(all);
    return true;
  }
  if (firstError)
    throw *firstError;
  return false;
}

/// TF's SessionManager.prepare_session (chief).
void prepareChief(EvaluatorImpl &ev, SupervisedSession &sess, const SourceLoc &loc) {
  const SupervisorConfig &c = sess.cfg;
  GraphContext &g = *sess.graph;
  bool restored = c.saver && !c.logdir.empty() && restoreLatest(ev, sess, loc);
  if (!restored) {
    if (c.initOp == ir::kNoNode && c.initFn.isNone() && c.localInitOp == ir::kNoNode)
      throwError(Code::kRuntimeError,
                 "Model is not initialized and no init_op or init_fn or local_init_op was given",
                 loc);
    if (c.initOp != ir::kNoNode) {
      auto r = runNative(ev, *sess.session, {}, {}, {c.initOp});
      checkRun(r, loc);
    }
    if (!c.initFn.isNone()) {
      CallArgs a;
      a.loc = loc;
      a.positional = {Value::object(sess.shared_from_this())};
      a.positionalLocs = {loc};
      ev.call(c.initFn, a);
    }
  }
  std::string initFnName = c.initFn.isNone() ? "None" : "<function>";
  auto [localOk, localMsg] = tryLocalInit(ev, *sess.session, c, loc);
  if (!localOk)
    throwError(Code::kRuntimeError,
               "Init operations did not make model ready for local_init.  Init op: " +
                   nodeName(g, c.initOp) + ", init fn: " + initFnName + ", error: " + localMsg,
               loc);
  auto [ready, msg] = modelReady(ev, *sess.session, c.readyOp, loc);
  if (!ready)
    throwError(Code::kRuntimeError,
               "Init operations did not make model ready.  Init op: " + nodeName(g, c.initOp) +
                   ", init fn: " + initFnName + ", local_init_op: " +
                   nodeName(g, c.localInitOp) + ", error: " + msg,
               loc);
}

/// TF's SessionManager.wait_for_session (non-chief): a fresh session per
/// attempt until the model is ready, or deadline_exceeded.
std::unique_ptr<rt::Session> waitForSession(EvaluatorImpl &ev, GraphContext &g,
                                            const rt::SessionOptions &opts,
                                            const SupervisorConfig &c, const SourceLoc &loc) {
  double start = monotonicSeconds();
  for (;;) {
    auto created = rt::Session::create(g.graph.get(), &g.mutex, opts);
    if (!created.hasValue())
      throwStatus(created.takeStatus(), loc);
    std::unique_ptr<rt::Session> s = std::move(*created);
    auto [localOk, localMsg] = tryLocalInit(ev, *s, c, loc);
    std::string readyMsg;
    if (localOk) {
      auto [ready, msg] = modelReady(ev, *s, c.readyOp, loc);
      if (ready)
        return s;
      readyMsg = msg;
    }
    {
      GilRelease release(ev.gil);
      s->close().ignore();
    }
    double elapsed = monotonicSeconds() - start;
    if (elapsed + c.recoveryWaitSecs > c.maxWaitSecs)
      throwError(Code::kDeadlineExceeded,
                 "Session was not ready after waiting " +
                     std::to_string(static_cast<int64_t>(c.maxWaitSecs)) + " secs.",
                 loc);
    std::ostream &os = ev.opts.err ? *ev.opts.err : std::cerr;
    os << "Waiting for model to be ready.  Ready_for_local_init_op:  "
       << (localOk ? "None" : localMsg) << ", ready: " << (readyMsg.empty() ? "None" : readyMsg)
       << "\n";
    GilRelease release(ev.gil);
    std::this_thread::sleep_for(std::chrono::duration<double>(c.recoveryWaitSecs));
  }
}

} // namespace

namespace {

/// TF's tf.train.Supervisor as a value: what a supervised session is made
/// with. `session(sv) as sess { }` opens one; the keyword form
/// `session(logdir: ...)` is the shorthand that builds the same.
class SupervisorObject : public Object {
public:
  std::string typeName() const override { return "supervisor"; }
  std::string repr() const override {
    for (const auto &[k, v] : settings)
      if (k == "logdir" && v.is(Value::kString))
        return "<supervisor logdir=" + v.asString() + ">";
    return "<supervisor>";
  }
  std::optional<Value> getAttr(EvaluatorImpl &, const std::string &name) override {
    for (const auto &[k, v] : settings)
      if (k == name)
        return v;
    if (isSupervisorKey(name))
      return Value::none(); // not given: the session's default
    return std::nullopt;
  }
  std::vector<std::pair<std::string, Value>> settings;
  std::vector<SourceLoc> locs;
};

} // namespace

std::optional<CallArgs> supervisedSessionArgs(const CallArgs &a) {
  std::shared_ptr<SupervisorObject> sv;
  if (!a.positional.empty())
    sv = a.positional.front().objectAs<SupervisorObject>();
  if (!sv) {
    for (const auto &[key, value] : a.keywords)
      if (isSupervisorKey(key))
        return a; // the keyword shorthand
    return std::nullopt;
  }
  if (a.positional.size() > 1)
    throwError(Code::kTypeError, "session(supervisor) takes no other positional argument",
               a.positionalLocs[1]);
  CallArgs merged;
  merged.loc = a.loc;
  for (size_t i = 0; i < a.keywords.size(); ++i) {
    if (isSupervisorKey(a.keywords[i].first))
      throwError(Code::kTypeError,
                 "'" + a.keywords[i].first + "' belongs to the supervisor: give it to "
                 "supervisor(...), not to session(...)",
                 a.keywordLocs[i]);
    merged.keywords.push_back(a.keywords[i]);
    merged.keywordLocs.push_back(a.keywordLocs[i]);
  }
  for (size_t i = 0; i < sv->settings.size(); ++i) {
    merged.keywords.push_back(sv->settings[i]);
    merged.keywordLocs.push_back(sv->locs[i]);
  }
  return merged;
}

bool isSupervisorKey(const std::string &key) {
  for (const char *k : kSupervisorKeys)
    if (key == k)
      return true;
  return false;
}

void EvaluatorImpl::runSupervisedSession(const SessionStmt &s, CallArgs &a,
                                         const std::shared_ptr<Env> &env) {
  checkKeywords(a, "session",
                {"config", "target", "graph", "logdir", "is_chief", "save_every_steps",
                 "save_every_secs", "init_op", "init_fn", "local_init_op", "ready_op",
                 "ready_for_local_init_op", "max_wait_secs", "recovery_wait_secs", "saver",
                 "summary_op", "save_summaries_steps", "global_step", "checkpoint_basename",
                 "stop_grace_secs"});
  rt::SessionOptions sopts;
  Value config = argOr(a, 0, "config", Value::none());
  bool stallDetection = true;
  if (!config.isNone()) {
    auto cfg = config.objectAs<ConfigObject>();
    if (!cfg)
      throwError(Code::kTypeError, "config must be a config_proto(...)", a.loc);
    sopts = cfg->options;
    stallDetection = cfg->stallDetection;
    if (!cfg->backendSet && !opts.backend.empty())
      sopts.backend = opts.backend;
  } else if (!opts.backend.empty()) {
    sopts.backend = opts.backend;
  }
  sopts.ignoreDeviceRequests = opts.oneDevice;
  // TF's Supervisor.managed_session(master): the chief and the others
  // reach the ps tasks' variables through the cluster.
  sopts.cluster = sessionCluster(*this, argOr(a, 99, "target", Value::none()), s.loc);
  GraphContext *g = ts().graph;
  SupervisorConfig cfg = configure(*this, a, *g);
  std::set<ir::NodeId> summaryPlaceholders;
  if (cfg.summaryOp)
    summaryPlaceholders = placeholdersBehind(*g->graph, cfg.summaryOp->node);
  {
    std::unique_lock lock(g->mutex);
    g->graph->finalize(); // TF's Supervisor: no node may be added from here on
  }
  checkPipelinesAtRun(*g);
  if (cfg.isChief && !cfg.logdir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cfg.logdir, ec);
    if (ec)
      throwError(Code::kNotFound, "cannot create logdir " + cfg.logdir + ": " + ec.message(), s.loc);
    // Temporaries a killed save left behind.
    io::removeStaleTemporaries(cfg.logdir, cfg.basename);
    io::removeStaleTemporaries(cfg.logdir, "checkpoint");
  }
  std::unique_ptr<rt::Session> session;
  if (cfg.isChief) {
    auto created = rt::Session::create(g->graph.get(), &g->mutex, sopts);
    if (!created.hasValue())
      throwStatus(created.takeStatus(), s.loc);
    session = std::move(*created);
  } else {
    session = waitForSession(*this, *g, sopts, cfg, s.loc);
  }
  auto sess = std::make_shared<SupervisedSession>(g, std::move(session), std::move(cfg));
  sess->stallDetection = stallDetection;
  sess->summaryPlaceholders = std::move(summaryPlaceholders);
  if (sess->cfg.globalStep) {
    // Every op that takes the global step's handle, other than reads.
    const ir::Graph &graph = *g->graph;
    for (ir::NodeId id = 0; id < graph.numNodes(); ++id) {
      const ir::Node &n = graph.node(id);
      if (n.opName() == "read_variable" || n.opName() == "is_variable_initialized")
        continue;
      for (const ir::Output &in : n.inputs())
        if (in.node == sess->cfg.globalStep->handle)
          sess->stepUpdaters.insert(id);
    }
  }
  sess->progress = opts.progressLine && (!opts.err || opts.err == &std::cerr);
  if (!s.asName.empty())
    env->set(s.asName, Value::object(sess));
  ThreadState &t = ts();
  t.sessions.push_back(sess);
  t.spawnScopes.emplace_back();
  std::optional<LangError> failure;
  std::vector<std::shared_ptr<ThreadObject>> runnerThreads;
  try {
    if (sess->cfg.isChief)
      prepareChief(*this, *sess, s.loc);
    sess->step = sess->readStep(*this, s.loc);
    sess->lastSaveStep = sess->step; // what was restored (or initialized) is not saved again
    sess->lastSaveTime = monotonicSeconds();
    sess->progressStep = sess->step;
    sess->progressTime = monotonicSeconds();
    for (auto &r : g->queueRunners)
      for (auto &th : std::static_pointer_cast<QueueRunnerObject>(r)->createThreads(
               *this, sess, sess->coord, true, s.loc))
        runnerThreads.push_back(th);
    Value ret;
    execBlock(s.body, env, ret);
  } catch (LangError &e) {
    failure = std::move(e);
  }
  // TF's managed_session ends cleanly on out_of_range (the input ran out).
  if (failure && !failure->testFailure && failure->status.code() == Code::kOutOfRange)
    failure.reset();
  if (!failure && !sess->coord->core->error()) {
    try {
      sess->saveIfNew(*this, s.loc);
    } catch (LangError &e) {
      failure = std::move(e);
    }
  }
  try {
    sess->coord->requestStop(this, std::nullopt, s.loc);
    // Better than TF, whose join waits out stop_grace_secs for a runner
    // blocked in a step (a chief's sync-replicas runner waiting for
    // gradients that will not come): after a short wait, the steps still
    // running are cancelled (their errors come after the stop, which the
    // coordinator ignores, as TF's does).
    {
      GilRelease release(gil);
      auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
      auto alive = [&] {
        for (auto &th : runnerThreads)
          if (th->isAlive())
            return true;
        return false;
      };
      while (alive() && std::chrono::steady_clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      sess->session->cancelRunningSteps();
    }
    sess->coord->join(*this, runnerThreads, sess->cfg.stopGraceSecs, false, s.loc);
  } catch (LangError &e) {
    if (!failure)
      failure = std::move(e);
  }
  if (sess->writer) {
    Status st = sess->writer->close();
    if (!st && !failure)
      failure = LangError{st.withLoc(s.loc)};
  }
  if (sess->progressShown)
    sess->showProgress(*this, true);
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
      continue;
    try {
      th->join(*this, s.loc);
    } catch (LangError &e) {
      if (!failure)
        failure = std::move(e);
    }
  }
  if (failure)
    throw *failure;
}

void installSupervisorBuiltins(EvaluatorImpl &evaluator, Env &env) {
  env.set("supervisor", Value::builtin("supervisor", [](EvaluatorImpl &, CallArgs &a) {
            if (!a.positional.empty())
              throwError(Code::kTypeError,
                         "supervisor() takes keyword arguments only (logdir:, is_chief:, ...)",
                         a.positionalLocs[0]);
            auto sv = std::make_shared<SupervisorObject>();
            for (size_t i = 0; i < a.keywords.size(); ++i) {
              if (!isSupervisorKey(a.keywords[i].first)) {
                std::string known;
                for (const char *k : kSupervisorKeys)
                  known += (known.empty() ? "" : ", ") + std::string(k);
                throwError(Code::kTypeError,
                           "supervisor() got an unexpected keyword argument '" +
                               a.keywords[i].first + "' (it takes " + known + ")",
                           a.keywordLocs[i]);
              }
              sv->settings.push_back(a.keywords[i]);
              sv->locs.push_back(a.keywordLocs[i]);
            }
            return Value::object(sv);
          }));
  env.set("should_stop", Value::builtin("should_stop", [](EvaluatorImpl &ev, CallArgs &a) {
            ThreadState &t = ev.ts();
            for (auto it = t.sessions.rbegin(); it != t.sessions.rend(); ++it)
              if (auto sv = std::dynamic_pointer_cast<SupervisedSession>(*it))
                return Value::boolean(sv->coord->shouldStop());
            throwError(Code::kRuntimeError,
                       "should_stop() needs a supervised session: session(logdir: ...) { }",
                       a.loc);
          }));
  (void)evaluator;
}

} // namespace sluice::frontend
