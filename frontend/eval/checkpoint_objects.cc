// frontend/eval/checkpoint_objects.cc: the Saver (TF's saver.py rules for
// paths, the state file and max_to_keep), CheckpointState, the global step
// lookup and report_uninitialized_variables.
#include "frontend/eval/checkpoint_objects.h"

#include <chrono>
#include <filesystem>
#include <sys/stat.h>

#include "backend/io/checkpoint.h"
#include "ir/text/printer.h"

namespace sluice::frontend {

namespace io = backend::io;

namespace {

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

/// A node that follows `var`'s device and colocation, whatever the scopes
/// (as a variable's own initializer and read do).
ir::Node &colocatedWith(EvaluatorImpl &ev, ir::NodeId varId, ir::NodeSpec s) {
  const ir::Node &var = ev.graph().graph->node(varId);
  std::string device = var.requestedDevice();
  s.colocateWith = {var.name()};
  ir::Node &n = ev.addNode(std::move(s), false);
  n.setRequestedDevice(device);
  return n;
}

std::string parentDir(const std::string &path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return "";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool isDirectory(const std::string &p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::shared_ptr<SessionObject> sessionArg(EvaluatorImpl &ev, CallArgs &a) {
  if (!a.positional.empty())
    if (auto s = a.positional[0].objectAs<SessionObject>()) {
      a.positional.erase(a.positional.begin());
      a.positionalLocs.erase(a.positionalLocs.begin());
      return s;
    }
  if (const Value *s = argAt(a, 999, "sess"); s && !s->isNone()) {
    auto sess = s->objectAs<SessionObject>();
    if (!sess)
      throwError(Code::kTypeError, "sess must be a session", a.loc);
    return sess;
  }
  return ev.currentSession(a.loc);
}

} // namespace

Expected<std::vector<ir::Tensor>>
runNative(EvaluatorImpl &ev, rt::Session &session,
          const std::vector<std::pair<ir::Output, ir::Tensor>> &feeds,
          const std::vector<ir::Output> &fetches, const std::vector<ir::NodeId> &targets) {
  GilRelease release(ev.gil);
  tflib::ProgramActivity::Run inFlight(*ev.activity);
  return session.run(feeds, fetches, targets);
}

std::shared_ptr<SaverObject>
SaverObject::build(EvaluatorImpl &ev, std::vector<std::pair<std::string, VariableInfo>> vars,
                   int64_t maxToKeep, bool sharded, double keepEveryNHours,
                   const std::string &name, const SourceLoc &loc) {
  auto saver = std::make_shared<SaverObject>();
  GraphContext &g = ev.graph();
  saver->graph = &g;
  saver->maxToKeep = maxToKeep;
  saver->keepEveryNHours = keepEveryNHours;
  saver->nextKeepTime_ = nowSeconds() + keepEveryNHours * 3600;
  ThreadState &t = ev.ts();
  std::string outer = t.nameScopes.empty() ? "" : t.nameScopes.back();
  std::string scope;
  {
    RootScopeGuard root(t, outer);
    scope = ev.uniqueScope(name);
  }
  RootScopeGuard in(t, scope);

  std::vector<ir::Output> reads;
  std::vector<std::string> devices;
  std::vector<int64_t> shards;
  std::vector<ir::DType> dtypes;
  std::vector<ir::Shape> shapes;
  std::vector<std::string> varNames;
  for (const auto &[key, info] : vars) {
    const ir::Node &h = g.graph->node(info.handle);
    saver->keys.push_back(key);
    varNames.push_back(h.name());
    reads.push_back(info.readValue);
    dtypes.push_back(h.attr<ir::DType>("dtype"));
    shapes.push_back(h.attr<ir::Shape>("shape"));
    // Sharded: one data file per device the variables are on (TF groups
    // a sharded saver's tensors by device the same way).
    auto it = std::find(devices.begin(), devices.end(), h.requestedDevice());
    if (it == devices.end())
      it = devices.insert(devices.end(), h.requestedDevice());
    shards.push_back(sharded ? it - devices.begin() : 0);
  }
  int64_t numShards = sharded ? static_cast<int64_t>(devices.size()) : 1;

  ir::Output modelName = ev.toTensor(Value::string("model"), ir::DType::kString, loc);
  saver->filename =
      ev.makeOp("placeholder_with_default", {modelName},
                {{"shape", ir::Shape::scalar()}}, loc, "filename")
          .asTensor()
          .out;
  std::vector<ir::Output> saveInputs = {saver->filename};
  saveInputs.insert(saveInputs.end(), reads.begin(), reads.end());
  saver->saveOp = ev.makeOp("save_checkpoint", saveInputs,
                            {{"tensor_names", saver->keys},
                             {"shards", shards},
                             {"num_shards", numShards}},
                            loc, "save_checkpoint")
                      .asOp()
                      .node;
  Value restored = ev.makeOp("restore_checkpoint", {saver->filename},
                             {{"tensor_names", saver->keys},
                              {"dtypes", dtypes},
                              {"shapes", shapes},
                              {"variable_names", varNames}},
                             loc, "restore_checkpoint");
  std::vector<ir::Output> values;
  if (restored.is(Value::kTensor))
    values.push_back(restored.asTensor().out);
  else if (restored.is(Value::kList))
    for (const Value &v : *restored.asList())
      values.push_back(v.asTensor().out);
  ir::NodeSpec all;
  all.op = "no_op";
  all.name = ev.scopedName("restore_all");
  all.loc = loc;
  for (size_t i = 0; i < vars.size(); ++i) {
    ir::NodeSpec assign;
    assign.op = "assign";
    assign.name = ev.scopedName("Assign");
    assign.inputs = {{vars[i].second.handle, 0}, values[i]};
    // As TF's saver: shapes are checked against a fully defined declared
    // shape; the restore op already checked compatibility with it.
    assign.attrs = {{"validate_shape", shapes[i].isFullyDefined()}};
    assign.loc = loc;
    all.controlInputs.push_back(colocatedWith(ev, vars[i].second.handle, std::move(assign)).id());
  }
  saver->restoreOp = ev.addNode(std::move(all)).id();
  return saver;
}

std::string SaverObject::save(EvaluatorImpl &ev, SessionObject &sess, const std::string &path,
                              std::optional<int64_t> step, const std::string &latestFilename,
                              bool writeMeta, bool writeState, const SourceLoc &loc) {
  if (sess.graph != graph)
    throwError(Code::kValueError, "the session runs another graph than the saver's", loc);
  if (!latestFilename.empty() && latestFilename.find('/') != std::string::npos)
    throwError(Code::kValueError, "'latest_filename' must not contain path components", loc);
  if (path.empty())
    throwError(Code::kValueError, "save_path must not be empty", loc);
  std::string prefix = step ? path + "-" + std::to_string(*step) : path;
  // TF refuses a bare file name (its parent "" is no directory); Sluice
  // takes it as the working directory.
  std::string saveDir = parentDir(path);
  if (!isDirectory(saveDir.empty() ? "." : saveDir))
    throwError(Code::kValueError,
               "Parent directory of " + path + " doesn't exist, can't save.", loc);
  if (io::conflictsWithStateFile(saveDir.empty() ? "." : saveDir, prefix, latestFilename))
    throwError(Code::kRuntimeError,
               "Save path '" + prefix +
                   "' conflicts with path used for checkpoint state.  Please use a different "
                   "save path.",
               loc);
  auto r = runNative(ev, *sess.session, {{filename, ir::Tensor::scalarString(prefix)}}, {},
                     {saveOp});
  if (!r.hasValue()) {
    Status s = r.takeStatus();
    throwStatus(std::move(s.withLoc(loc)), loc);
  }
  if (writeMeta) {
    std::string text;
    {
      std::shared_lock lock(graph->mutex);
      text = ir::printGraph(*graph->graph);
    }
    if (Status s = io::writeFileAtomically(io::checkpointMetaPath(prefix), text); !s)
      throwStatus(std::move(s), loc);
  }
  if (!writeState)
    return prefix;
  // TF's _RecordLastCheckpoint: with max_to_keep 0 nothing is tracked, so
  // the state lists only the newest and no file is ever deleted.
  if (maxToKeep > 0) {
    for (auto it = last_.begin(); it != last_.end();)
      it = it->first == prefix ? last_.erase(it) : it + 1;
    last_.emplace_back(prefix, nowSeconds());
    if (static_cast<int64_t>(last_.size()) > maxToKeep) {
      toDelete_.push_back(last_.front());
      last_.erase(last_.begin());
    }
  }
  if (Status s = io::updateCheckpointState(saveDir.empty() ? "." : saveDir, prefix,
                                           lastCheckpoints(), latestFilename);
      !s)
    throwStatus(std::move(s), loc);
  // TF's _MaybeDeleteOldCheckpoints: one evicted checkpoint per save,
  // unless keep_checkpoint_every_n_hours keeps it.
  if (!toDelete_.empty()) {
    auto doomed = toDelete_.front();
    toDelete_.erase(toDelete_.begin());
    if (doomed.second > nextKeepTime_) {
      nextKeepTime_ += keepEveryNHours * 3600;
    } else if (Status s = io::deleteCheckpoint(doomed.first); !s) {
      throwStatus(std::move(s), loc);
    }
  }
  return prefix;
}

void SaverObject::restore(EvaluatorImpl &ev, SessionObject &sess, const std::string &path,
                          const SourceLoc &loc) {
  if (sess.graph != graph)
    throwError(Code::kValueError, "the session runs another graph than the saver's", loc);
  if (!io::checkpointExists(path))
    throwError(Code::kValueError, "The passed save_path is not a valid checkpoint: " + path, loc);
  auto r = runNative(ev, *sess.session, {{filename, ir::Tensor::scalarString(path)}}, {},
                     {restoreOp});
  if (!r.hasValue()) {
    Status s = r.takeStatus();
    throwStatus(std::move(s.withLoc(loc)), loc);
  }
}

void SaverObject::recoverLastCheckpoints(const std::vector<std::string> &paths) {
  last_.clear();
  for (const std::string &p : paths) {
    struct stat st;
    if (::stat(io::checkpointIndexPath(p).c_str(), &st) == 0)
      last_.emplace_back(p, static_cast<double>(st.st_mtime));
  }
}

std::vector<std::string> SaverObject::lastCheckpoints() const {
  std::vector<std::string> out;
  for (const auto &[p, t] : last_)
    out.push_back(p);
  return out;
}

std::string SaverObject::repr() const {
  return "<saver of " + std::to_string(keys.size()) + " variables>";
}

std::optional<Value> SaverObject::getAttr(EvaluatorImpl &, const std::string &name) {
  auto self = std::static_pointer_cast<SaverObject>(shared_from_this());
  if (name == "save")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      auto sess = sessionArg(ev, a);
      checkKeywords(a, "save", {"sess", "save_path", "global_step", "latest_filename",
                                "meta_graph_suffix", "write_meta_graph", "write_state"});
      Value pathV = requireArg(a, 0, "save_path", "save");
      std::string path = toStr(pathV, "save_path", a.loc);
      Value stepV = argOr(a, 1, "global_step", Value::none());
      std::optional<int64_t> step;
      if (stepV.is(Value::kInt) || stepV.is(Value::kBool)) {
        step = toInt(stepV, "global_step", a.loc);
      } else if (stepV.is(Value::kHostTensor)) {
        step = stepV.asHostTensor().elementAsInt(0);
      } else if (!stepV.isNone()) {
        // A tensor or variable: its value in this session (TF's
        // training_util.global_step).
        CallArgs r;
        r.loc = a.loc;
        r.positional = {stepV};
        r.positionalLocs = {a.loc};
        Value v = ev.runFetches(*sess, r);
        if (!v.is(Value::kHostTensor) || !ir::isInteger(v.asHostTensor().dtype()) ||
            v.asHostTensor().numElements() != 1)
          throwError(Code::kTypeError, "global_step must be an integer scalar", a.loc);
        step = v.asHostTensor().elementAsInt(0);
      }
      Value latest = argOr(a, 2, "latest_filename", Value::none());
      bool meta = ev.truthy(argOr(a, 4, "write_meta_graph", Value::boolean(true)), a.loc);
      bool state = ev.truthy(argOr(a, 5, "write_state", Value::boolean(true)), a.loc);
      return Value::string(self->save(ev, *sess, path, step,
                                      latest.isNone() ? "" : toStr(latest, "latest_filename", a.loc),
                                      meta, state, a.loc));
    });
  if (name == "restore")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      auto sess = sessionArg(ev, a);
      checkKeywords(a, "restore", {"sess", "save_path"});
      Value p = requireArg(a, 0, "save_path", "restore");
      if (p.isNone())
        throwError(Code::kValueError, "Can't load save_path when it is None.", a.loc);
      self->restore(ev, *sess, toStr(p, "save_path", a.loc), a.loc);
      return Value::none();
    });
  if (name == "last_checkpoints") {
    List l;
    for (const std::string &p : lastCheckpoints())
      l.push_back(Value::string(p));
    return Value::list(std::move(l));
  }
  if (name == "recover_last_checkpoints")
    return Value::builtin(name, [self](EvaluatorImpl &ev, CallArgs &a) {
      std::vector<std::string> paths;
      for (const Value &v : ev.iterate(requireArg(a, 0, "checkpoint_paths", "recover_last_checkpoints"), a.loc))
        paths.push_back(toStr(v, "checkpoint path", a.loc));
      self->recoverLastCheckpoints(paths);
      return Value::none();
    });
  if (name == "saver_def") // the names TF's SaverDef gives
    return Value::dict([&] {
      auto d = std::make_shared<Dict>();
      const ir::Graph &g = *graph->graph;
      d->set(Value::string("filename_tensor_name"),
             Value::string(g.node(filename.node).name() + ":0"));
      d->set(Value::string("save_tensor_name"), Value::string(g.node(saveOp).name()));
      d->set(Value::string("restore_op_name"), Value::string(g.node(restoreOp).name()));
      d->set(Value::string("max_to_keep"), Value::integer(maxToKeep));
      d->set(Value::string("keep_checkpoint_every_n_hours"), Value::real(keepEveryNHours));
      return d;
    }());
  return std::nullopt;
}

std::optional<Value> CheckpointStateObject::getAttr(EvaluatorImpl &, const std::string &name) {
  if (name == "model_checkpoint_path")
    return Value::string(state.modelCheckpointPath);
  if (name == "all_model_checkpoint_paths") {
    List l;
    for (const std::string &p : state.allModelCheckpointPaths)
      l.push_back(Value::string(p));
    return Value::list(std::move(l));
  }
  return std::nullopt;
}

std::string CheckpointStateObject::repr() const {
  std::string text = io::formatCheckpointState(state);
  if (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

std::optional<VariableInfo> findGlobalStep(GraphContext &g, const SourceLoc &loc) {
  for (const VariableInfo &v : g.globalVariables) {
    const ir::Node &h = g.graph->node(v.handle);
    if (h.name() != "global_step")
      continue;
    ir::DType t = h.attr<ir::DType>("dtype");
    if (!ir::isInteger(t))
      throwError(Code::kTypeError,
                 "Existing \"global_step\" does not have integer type: " +
                     std::string(ir::dtypeName(t)),
                 loc);
    const ir::Shape &s = h.attr<ir::Shape>("shape");
    if (!s.isCompatibleWith(ir::Shape::scalar()))
      throwError(Code::kTypeError, "Existing \"global_step\" is not scalar: " + s.str(), loc);
    return v;
  }
  return std::nullopt;
}

Value reportUninitialized(EvaluatorImpl &ev, const std::vector<VariableInfo> &vars,
                          const std::string &name, const SourceLoc &loc) {
  ThreadState &t = ev.ts();
  NameScopeGuard scope(t, ev.uniqueScope(name));
  GraphContext &g = ev.graph();
  if (vars.empty())
    return ev.makeOp("constant", {},
                     {{"value", ir::Tensor(ir::DType::kString, {0})}, {"dtype", ir::DType::kString}},
                     loc, "Const");
  std::vector<ir::Output> inited;
  ir::Tensor names(ir::DType::kString, {static_cast<int64_t>(vars.size())});
  for (size_t i = 0; i < vars.size(); ++i) {
    names.strings()[i] = g.graph->node(vars[i].handle).name();
    ir::NodeSpec s;
    s.op = "is_variable_initialized";
    s.name = ev.scopedName("IsVariableInitialized");
    s.inputs = {{vars[i].handle, 0}};
    s.loc = loc;
    inited.push_back({colocatedWith(ev, vars[i].handle, std::move(s)).id(), 0});
  }
  ir::Output stacked = ev.makeOp("stack", inited, {{"axis", int64_t{0}}}, loc).asTensor().out;
  ir::Output mask = ev.makeOp("logical_not", {stacked}, {}, loc).asTensor().out;
  ir::Output nameTensor =
      ev.makeOp("constant", {}, {{"value", names}, {"dtype", ir::DType::kString}}, loc, "Const")
          .asTensor()
          .out;
  // TF's boolean_mask: where(mask), flattened, gathers the names.
  NameScopeGuard maskScope(t, ev.uniqueScope("boolean_mask"));
  ir::Output where = ev.makeOp("where", {mask}, {}, loc).asTensor().out;
  ir::Output flat = ev.makeOp("reshape",
                              {where, ev.toTensor(Value::list({Value::integer(-1)}),
                                                  ir::DType::kI32, loc)},
                              {}, loc)
                        .asTensor()
                        .out;
  return ev.makeOp("gather", {nameTensor, flat}, {{"axis", int64_t{0}}}, loc);
}

} // namespace sluice::frontend
