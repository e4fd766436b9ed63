// frontend/eval/builtins_placer.cc: assigned_device(x), the device the
// placer gives x's node: in the innermost open session, with its devices
// (device_count) and allow_soft_placement; outside a session, as a default
// session would place it.
#include "frontend/eval/interp.h"
#include "frontend/eval/objects.h"
#include "passes/placer.h"
#include "runtime/pass_config.h"
#include "runtime/session.h"

namespace sluice::frontend {

namespace {

// The node a value stands for: a tensor's producer, an op, a handle.
std::pair<GraphContext *, ir::NodeId> nodeOf(const Value &v, const SourceLoc &loc) {
  if (v.is(Value::kTensor))
    return {v.asTensor().graph, v.asTensor().out.node};
  if (v.is(Value::kOp))
    return {v.asOp().graph, v.asOp().node};
  if (auto h = v.objectAs<HandleObject>())
    return {h->handleGraph(), h->handleOutput().node};
  throwError(Code::kTypeError,
             "assigned_device() needs a tensor, an operation or a resource, got " + v.typeName(),
             loc);
}

Value assignedDevice(EvaluatorImpl &ev, CallArgs &a) {
  checkKeywords(a, "assigned_device", {"x"});
  auto [g, id] = nodeOf(requireArg(a, 0, "x", "assigned_device"), a.loc);
  ThreadState &t = ev.ts();
  std::shared_ptr<SessionObject> sess;
  for (auto it = t.sessions.rbegin(); it != t.sessions.rend(); ++it)
    if ((*it)->graph == g && !(*it)->closed) {
      sess = *it;
      break;
    }
  if (sess) {
    auto placed = sess->session->placement();
    if (!placed.hasValue())
      throwStatus(placed.takeStatus(), a.loc);
    return Value::string((*placed)[id]);
  }
  std::unique_ptr<ir::Graph> clone;
  {
    std::shared_lock lock(g->mutex);
    clone = g->graph->clone();
  }
  passes::PlacementOptions po;
  po.devices = passes::localDevices(*clone, {});
  po.kernels = rt::kernelQueries(nullptr);
  Status s = passes::placeGraph(*clone, po, nullptr);
  if (!s.isOk())
    throwStatus(std::move(s), a.loc);
  return Value::string(clone->node(id).assignedDevice());
}

} // namespace

void installPlacerBuiltins(EvaluatorImpl &ev, Env &env) {
  (void)ev;
  env.set("assigned_device", Value::builtin("assigned_device", assignedDevice));
}

} // namespace sluice::frontend
