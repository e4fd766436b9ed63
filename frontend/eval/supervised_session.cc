// frontend/eval/supervised_session.cc: around each run() of a supervised
// session: the global step, the chief's save and summary schedule, the
// progress line; its methods (should_stop, request_stop, coord ...).
#include "frontend/eval/supervised_session.h"

#include <chrono>
#include <cstdio>
#include <iostream>

namespace sluice::frontend {

namespace io = backend::io;

double monotonicSeconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

void supervisorWarning(EvaluatorImpl &ev, const std::string &text) {
  std::ostream &os = ev.opts.err ? *ev.opts.err : std::cerr;
  os << "warning: " << text << "\n";
}

void checkRun(Expected<std::vector<ir::Tensor>> &r, const SourceLoc &loc) {
  if (!r.hasValue()) {
    Status s = r.takeStatus();
    throwStatus(std::move(s.withLoc(loc)), loc);
  }
}

int64_t SupervisedSession::readStep(EvaluatorImpl &ev, const SourceLoc &loc) {
  if (!cfg.globalStep)
    return runs;
  auto r = runNative(ev, *session, {}, {cfg.globalStep->readValue}, {});
  // A non-chief may run before anyone initialized the step (it then has
  // no schedule to keep); the chief initialized or restored it.
  if (!r.hasValue() && !cfg.isChief && r.status().code() == Code::kFailedPrecondition)
    return step;
  checkRun(r, loc);
  return (*r)[0].elementAsInt(0);
}

void SupervisedSession::saveIfNew(EvaluatorImpl &ev, const SourceLoc &loc) {
  if (!cfg.isChief || !cfg.saver || cfg.logdir.empty())
    return;
  int64_t now = readStep(ev, loc);
  if (lastSaveStep && *lastSaveStep == now)
    return;
  std::optional<int64_t> suffix;
  if (cfg.globalStep)
    suffix = now;
  cfg.saver->save(ev, *this, savePath(), suffix, "", true, true, loc);
  lastSaveStep = now;
  lastSaveTime = monotonicSeconds();
}

bool SupervisedSession::isTrainingRun(const std::vector<ir::Output> &fetches,
                                      const std::vector<ir::NodeId> &targets) {
  if (!cfg.globalStep)
    return true;
  std::vector<ir::NodeId> key;
  for (const ir::Output &o : fetches)
    key.push_back(o.node);
  key.push_back(ir::kNoNode);
  key.insert(key.end(), targets.begin(), targets.end());
  if (auto it = trainingRuns.find(key); it != trainingRuns.end())
    return it->second;
  // The graph is finalized: what a run reaches never changes.
  std::set<ir::NodeId> seen;
  std::vector<ir::NodeId> stack(key.begin(), key.end());
  bool found = false;
  while (!stack.empty() && !found) {
    ir::NodeId id = stack.back();
    stack.pop_back();
    if (id == ir::kNoNode || !seen.insert(id).second)
      continue;
    found = stepUpdaters.count(id) > 0;
    const ir::Node &n = graph->graph->node(id);
    for (const ir::Output &in : n.inputs())
      stack.push_back(in.node);
    for (ir::NodeId c : n.controlInputs())
      stack.push_back(c);
  }
  trainingRuns[key] = found;
  return found;
}

std::optional<ir::Output>
SupervisedSession::beforeRun(EvaluatorImpl &, const std::vector<ir::Output> &fetches,
                             const std::vector<ir::NodeId> &targets,
                             const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds) {
  if (!cfg.isChief || !cfg.summaryOp || cfg.logdir.empty())
    return std::nullopt;
  // TF's SummarySaverHook: every save_summaries_steps, counted from the
  // step this run will make; only training runs compute them (an
  // evaluation run between two steps would log the same step again).
  if (lastSummaryStep && step + 1 < *lastSummaryStep + cfg.summarySteps)
    return std::nullopt;
  if (!isTrainingRun(fetches, targets))
    return std::nullopt;
  // A run that does not feed what the summaries need does not compute
  // them (an evaluation run, say), instead of failing for its feeds.
  for (ir::NodeId p : summaryPlaceholders) {
    bool fed = false;
    for (const auto &[out, value] : feeds)
      fed = fed || out.node == p;
    if (!fed)
      return std::nullopt;
  }
  return cfg.summaryOp;
}

void SupervisedSession::afterRun(EvaluatorImpl &ev, const ir::Tensor *extra, const SourceLoc &loc) {
  // Threads running in this session take turns here. The lock is taken
  // without the interpreter lock: a thread holding it releases that lock
  // while its steps run.
  std::unique_lock<std::mutex> turn;
  {
    GilRelease release(ev.gil);
    turn = std::unique_lock<std::mutex>(hookMu);
  }
  ++runs;
  step = readStep(ev, loc);
  if (extra) {
    if (!writer) {
      auto w = io::SummaryFileWriter::open(cfg.logdir);
      if (!w.hasValue())
        throwStatus(w.takeStatus(), loc);
      writer = std::move(*w);
    }
    const std::string &bytes = extra->strings()[0];
    if (Status s = writer->addSummary(bytes, step); !s)
      throwStatus(std::move(s), loc);
    lastSummaryStep = step;
    if (auto values = io::decodeScalarSummary(bytes); values.hasValue() && !values->empty()) {
      const io::ScalarValue *pick = &values->front();
      for (const io::ScalarValue &v : *values)
        if (v.tag.find("loss") != std::string::npos) {
          pick = &v;
          break;
        }
      latestScalar = std::make_pair(pick->tag, pick->value);
    }
  }
  if (cfg.isChief && cfg.saver && !cfg.logdir.empty()) {
    bool due = false;
    if (cfg.saveSteps)
      due = !lastSaveStep || step >= *lastSaveStep + *cfg.saveSteps;
    else if (cfg.saveSecs > 0)
      due = monotonicSeconds() - lastSaveTime >= cfg.saveSecs;
    if (due)
      saveIfNew(ev, loc);
  }
  if (progress)
    showProgress(ev, false);
}

void SupervisedSession::showProgress(EvaluatorImpl &ev, bool final) {
  double now = monotonicSeconds();
  if (!final && now - progressTime < 0.2)
    return;
  if (now > progressTime && progressTime > 0)
    stepsPerSec = static_cast<double>(step - progressStep) / (now - progressTime);
  progressTime = now;
  progressStep = step;
  char line[256];
  int n = std::snprintf(line, sizeof line, "\rstep %lld  %.1f steps/s",
                        static_cast<long long>(step), stepsPerSec);
  if (latestScalar && n > 0 && static_cast<size_t>(n) < sizeof line)
    std::snprintf(line + n, sizeof line - n, "  %s %.6g", latestScalar->first.c_str(),
                  static_cast<double>(latestScalar->second));
  std::cerr << line << "\x1b[K" << (final ? "\n" : "") << std::flush;
  progressShown = true;
  ev.progressLineShown = !final;
}

std::optional<Value> SupervisedSession::getAttr(EvaluatorImpl &ev, const std::string &name) {
  auto self = std::static_pointer_cast<SupervisedSession>(shared_from_this());
  if (name == "should_stop")
    return Value::builtin(name, [self](EvaluatorImpl &, CallArgs &) {
      return Value::boolean(self->coord->shouldStop());
    });
  if (name == "request_stop")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      Value ex = argOr(a, 0, "ex", Value::none());
      std::optional<Status> s;
      if (auto e = ex.objectAs<ErrorObject>())
        s = e->status;
      self->coord->requestStop(&ev, s, a.loc);
      return Value::none();
    });
  if (name == "coord")
    return Value::object(coord);
  if (name == "saver")
    return cfg.saver ? Value::object(cfg.saver) : Value::none();
  if (name == "is_chief")
    return Value::boolean(cfg.isChief);
  if (name == "logdir")
    return cfg.logdir.empty() ? Value::none() : Value::string(cfg.logdir);
  if (name == "save_path")
    return cfg.logdir.empty() ? Value::none() : Value::string(savePath());
  if (name == "global_step")
    return cfg.globalStep
               ? Value::object(std::make_shared<VariableObject>(graph, *cfg.globalStep))
               : Value::none();
  return SessionObject::getAttr(ev, name);
}


} // namespace sluice::frontend
