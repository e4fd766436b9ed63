// frontend/eval/builtins_device_setter.cc: TF's device functions for
// parameter servers: replica_device_setter with its round-robin default,
// greedy_load_balancing_strategy and byte_size_load_fn
// (docs/tf1-semantics.md §5.2; the placements of TF's device_setter_test).
#include <set>

#include "frontend/eval/cluster_objects.h"
#include "frontend/eval/objects.h"

namespace sluice::frontend {

namespace {

// TF's STANDARD_PS_OPS that Sluice has, by Sluice's op name; TF's own
// names in a user's ps_ops list mean the same op.
const std::set<std::string> kDefaultPsOps = {"variable"};

std::string psOpName(const std::string &tfOrSluiceName) {
  static const std::set<std::string> variableNames = {"Variable", "VariableV2",
                                                      "AutoReloadVariable", "VarHandleOp"};
  return variableNames.count(tfOrSluiceName) ? "variable" : tfOrSluiceName;
}

const ir::Node &opNode(const Value &op, const char *fn, const SourceLoc &loc) {
  if (op.is(Value::kOp))
    return op.asOp().graph->graph->node(op.asOp().node);
  if (op.is(Value::kTensor))
    return op.asTensor().graph->graph->node(op.asTensor().out.node);
  if (auto v = op.objectAs<VariableObject>())
    return v->graph->graph->node(v->info.handle);
  throwError(Code::kTypeError, std::string(fn) + "() needs an operation, got " + op.typeName(),
             loc);
}

ir::DeviceSpec parseDevice(const std::string &s, const SourceLoc &loc) {
  auto d = ir::DeviceSpec::parse(s);
  if (!d.hasValue())
    throwStatus(d.takeStatus(), loc);
  return *d;
}

bool isCallable(const Value &v) { return v.is(Value::kFunction) || v.is(Value::kBuiltin); }

// TF's byte_size_load_fn: element count times dtype size of the op's one
// output; a variable's output is a handle, so its dtype and shape attrs
// stand for the value it holds (TF reads the shape attr the same way).
Value byteSizeLoad(EvaluatorImpl &, CallArgs &a) {
  checkKeywords(a, "byte_size_load_fn", {"op"});
  const ir::Node &n = opNode(requireArg(a, 0, "op", "byte_size_load_fn"), "byte_size_load_fn",
                             a.loc);
  if (n.numOutputs() != 1)
    throwError(Code::kValueError, "Op " + n.name() + " must have a single output", a.loc);
  ir::DType dtype = n.outputType(0);
  ir::Shape shape = n.outputShape(0);
  if (dtype == ir::DType::kResource && n.hasAttr("dtype") && n.hasAttr("shape")) {
    dtype = n.attr<ir::DType>("dtype");
    shape = n.attr<ir::Shape>("shape");
  } else if (!shape.isFullyDefined() && n.hasAttr("shape")) {
    shape = n.attr<ir::Shape>("shape");
  }
  if (!shape.isFullyDefined())
    throwError(Code::kValueError,
               "Shape " + shape.str() + " of op " + n.name() + " is not fully defined", a.loc);
  return Value::integer(shape.numElements() * static_cast<int64_t>(ir::dtypeSize(dtype)));
}

Value greedyStrategy(EvaluatorImpl &, CallArgs &a) {
  checkKeywords(a, "greedy_load_balancing_strategy", {"num_tasks", "load_fn"});
  int64_t n = toInt(requireArg(a, 0, "num_tasks", "greedy_load_balancing_strategy"),
                    "num_tasks", a.loc);
  if (n <= 0)
    throwError(Code::kValueError, "num_tasks must be > 0, not " + std::to_string(n), a.loc);
  Value loadFn = argOr(a, 1, "load_fn", Value::builtin("byte_size_load_fn", byteSizeLoad));
  if (!isCallable(loadFn))
    throwError(Code::kTypeError, "load_fn must be callable, got " + loadFn.typeName(), a.loc);
  auto loads = std::make_shared<std::vector<double>>(static_cast<size_t>(n), 0.0);
  return Value::builtin("greedy_load_balancing_strategy",
                        [loads, loadFn](EvaluatorImpl &ev, CallArgs &c) {
                          const Value &op = requireArg(c, 0, "op", "strategy");
                          // Least loaded first; ties go to the lowest index.
                          size_t task = 0;
                          for (size_t i = 1; i < loads->size(); ++i)
                            if ((*loads)[i] < (*loads)[task])
                              task = i;
                          CallArgs la;
                          la.positional = {op};
                          la.positionalLocs = {c.loc};
                          la.loc = c.loc;
                          (*loads)[task] += toNumber(ev.call(loadFn, la), "load", c.loc);
                          return Value::integer(static_cast<int64_t>(task));
                        });
}

struct Chooser {
  int psTasks = 0;
  std::string psDevice, workerDevice;
  bool mergeDevices = true;
  std::set<std::string> psOps;
  Value strategy; // none: round robin
  int next = 0;
};

// TF's _ReplicaDeviceChooser.device_function.
Value chooseDevice(const std::shared_ptr<Chooser> &ch, EvaluatorImpl &ev, CallArgs &a) {
  const Value &op = requireArg(a, 0, "op", "device_function");
  const ir::Node &n = opNode(op, "device_function", a.loc);
  const std::string &current = n.requestedDevice();
  if (!ch->mergeDevices && !current.empty())
    return Value::string(current);
  ir::DeviceSpec cur = parseDevice(current, a.loc);
  if (ch->psTasks > 0 && !ch->psDevice.empty() && ch->psOps.count(n.opName())) {
    ir::DeviceSpec ps = parseDevice(ch->psDevice, a.loc);
    // The task is chosen only when the op's own job does not move it off
    // the ps job.
    if (ps.job && (!cur.job || cur.job == ps.job)) {
      int64_t task;
      if (ch->strategy.isNone()) {
        task = ch->next;
        ch->next = (ch->next + 1) % ch->psTasks;
      } else {
        CallArgs sa;
        sa.positional = {op};
        sa.positionalLocs = {a.loc};
        sa.loc = a.loc;
        task = toInt(ev.call(ch->strategy, sa), "the task ps_strategy chose", a.loc);
      }
      if (task < 0)
        throwError(Code::kValueError,
                   "ps_strategy chose task " + std::to_string(task) + " for " + n.name(), a.loc);
      ps.task = static_cast<int>(task);
    }
    ps.mergeFrom(cur);
    return Value::string(ps.toString());
  }
  ir::DeviceSpec worker = parseDevice(ch->workerDevice, a.loc);
  worker.mergeFrom(cur);
  return Value::string(worker.toString());
}

Value replicaDeviceSetter(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "replica_device_setter",
                {"ps_tasks", "ps_device", "worker_device", "merge_devices", "cluster", "ps_ops",
                 "ps_strategy"});
  auto ch = std::make_shared<Chooser>();
  ch->psTasks = static_cast<int>(toInt(argOr(a, 0, "ps_tasks", Value::integer(0)), "ps_tasks",
                                       a.loc));
  if (ch->psTasks < 0)
    throwError(Code::kValueError, "ps_tasks must be >= 0, not " + std::to_string(ch->psTasks),
               a.loc);
  Value psDevice = argOr(a, 1, "ps_device", Value::string("/job:ps"));
  ch->psDevice = psDevice.isNone() ? "" : toStr(psDevice, "ps_device", a.loc);
  Value workerDevice = argOr(a, 2, "worker_device", Value::string("/job:worker"));
  ch->workerDevice = workerDevice.isNone() ? "" : toStr(workerDevice, "worker_device", a.loc);
  // Malformed device strings fail here, not at the first op.
  parseDevice(ch->psDevice, a.loc);
  parseDevice(ch->workerDevice, a.loc);
  ch->mergeDevices = ev.truthy(argOr(a, 3, "merge_devices", Value::boolean(true)), a.loc);
  Value cluster = argOr(a, 4, "cluster", Value::none());
  if (!cluster.isNone()) {
    rt::ClusterSpec spec = toClusterSpec(ev, cluster, a.loc);
    std::optional<std::string> psJob = parseDevice(ch->psDevice, a.loc).job;
    if (!psJob || !spec.hasJob(*psJob))
      return Value::none(); // as TF: no ps job, no device function
    ch->psTasks = *spec.numTasks(*psJob);
  }
  if (ch->psTasks == 0)
    return Value::none();
  Value psOps = argOr(a, 5, "ps_ops", Value::none());
  if (psOps.isNone()) {
    ch->psOps = kDefaultPsOps;
  } else {
    for (const Value &o : ev.iterate(psOps, a.loc))
      ch->psOps.insert(psOpName(toStr(o, "ps_ops", a.loc)));
  }
  ch->strategy = argOr(a, 6, "ps_strategy", Value::none());
  if (!ch->strategy.isNone() && !isCallable(ch->strategy))
    throwError(Code::kTypeError, "ps_strategy must be callable", a.loc);
  return Value::builtin("replica_device_setter",
                        [ch](EvaluatorImpl &ev, CallArgs &c) { return chooseDevice(ch, ev, c); });
}

} // namespace

void installDeviceSetterBuiltins(EvaluatorImpl &, Env &env) {
  env.set("replica_device_setter", Value::builtin("replica_device_setter", replicaDeviceSetter));
  env.set("greedy_load_balancing_strategy",
          Value::builtin("greedy_load_balancing_strategy", greedyStrategy));
  env.set("byte_size_load_fn", Value::builtin("byte_size_load_fn", byteSizeLoad));
}

} // namespace sluice::frontend
