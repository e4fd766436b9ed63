// passes/prune.cc: TF-style pruning to the fetch/target set, producing a
// compact copy of the graph with fed outputs cut from their producers.
#include "passes/prune.h"

#include <functional>
#include <map>
#include <queue>

namespace sluice::passes {

namespace {

/// Per node, a bitmask-like list of which outputs are fed.
std::vector<std::vector<bool>> fedOutputs(const ir::Graph &g,
                                          const std::vector<ir::Output> &feeds) {
  std::vector<std::vector<bool>> fed(g.numNodes());
  for (const ir::Output &o : feeds) {
    auto &f = fed[o.node];
    if (f.empty())
      f.resize(g.node(o.node).numOutputs(), false);
    f[o.index] = true;
  }
  return fed;
}

bool isFed(const std::vector<std::vector<bool>> &fed, ir::Output o) {
  return !fed[o.node].empty() && fed[o.node][o.index];
}

bool allFed(const std::vector<std::vector<bool>> &fed, ir::NodeId n) {
  if (fed[n].empty())
    return false;
  for (bool b : fed[n])
    if (!b)
      return false;
  return true;
}

/// Kahn's order preferring the lowest id, so the pruned graph keeps the
/// original order wherever dependencies allow (stable printed IR).
std::vector<ir::NodeId> stableOrder(const ir::Graph &g) {
  std::vector<int> pending(g.numNodes());
  std::vector<std::vector<ir::NodeId>> out(g.numNodes());
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    for (const ir::Use &u : g.consumers(id)) {
      out[id].push_back(u.node);
      ++pending[u.node];
    }
  std::priority_queue<ir::NodeId, std::vector<ir::NodeId>, std::greater<>> ready;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    if (pending[id] == 0)
      ready.push(id);
  std::vector<ir::NodeId> order;
  while (!ready.empty()) {
    ir::NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (ir::NodeId c : out[id])
      if (--pending[c] == 0)
        ready.push(c);
  }
  return order;
}

ir::NodeSpec copySpec(const ir::Node &n) {
  ir::NodeSpec spec;
  spec.name = n.name();
  spec.op = n.opName();
  for (const auto &[k, v] : n.attrs())
    spec.attrs.emplace(k, v);
  spec.requestedDevice = n.requestedDevice();
  spec.colocateWith = n.colocateWith();
  spec.loc = n.loc();
  return spec;
}

class PrunePass : public Pass {
public:
  std::string_view name() const override { return "prune"; }
  Status run(ir::Graph &graph, PassContext &ctx) override;
};

Status PrunePass::run(ir::Graph &g, PassContext &ctx) {
  std::vector<bool> needed = neededNodes(g, ctx.feeds, ctx.fetches, ctx.targets);
  auto fed = fedOutputs(g, ctx.feeds);
  auto out = std::make_unique<ir::Graph>();
  std::vector<ir::NodeId> remap(g.numNodes(), ir::kNoNode);
  std::map<ir::Output, ir::Output> feedRemap;

  auto finishCopy = [&](const ir::Node &old, ir::Node &copy) {
    copy.setAssignedDevice(old.assignedDevice());
    // Keep shapes that earlier passes (or the builder) refined.
    for (int i = 0; i < old.numOutputs(); ++i)
      if (auto m = copy.outputShape(i).merge(old.outputShape(i)))
        copy.setOutputShape(i, *m);
    remap[old.id()] = copy.id();
  };

  // Sources of fed values first: they have no inputs.
  for (const ir::Output &o : ctx.feeds) {
    const ir::Node &p = g.node(o.node);
    if (needed[p.id()] || feedRemap.count(o))
      continue; // a running producer keeps its outputs; the executor serves the feed
    if (p.numInputs() == 0 && p.controlInputs().empty()) {
      if (remap[p.id()] == ir::kNoNode) {
        SLUICE_ASSIGN_OR_RETURN(ir::Node * c, out->addNode(copySpec(p)));
        finishCopy(p, *c);
      }
      feedRemap[o] = ir::Output{remap[p.id()], o.index};
      continue;
    }
    ir::NodeSpec spec;
    spec.name = g.uniqueName(p.name() + "/_feed_" + std::to_string(o.index));
    spec.op = "_feed";
    spec.attrs.emplace("dtype", p.outputType(o.index));
    spec.attrs.emplace("shape", p.outputShape(o.index));
    spec.requestedDevice = p.requestedDevice();
    spec.loc = p.loc();
    SLUICE_ASSIGN_OR_RETURN(ir::Node * c, out->addNode(std::move(spec)));
    c->setAssignedDevice(p.assignedDevice());
    feedRemap[o] = ir::Output{c->id(), 0};
  }

  auto mapOutput = [&](ir::Output o) {
    auto it = feedRemap.find(o);
    return it != feedRemap.end() ? it->second : ir::Output{remap[o.node], o.index};
  };

  std::vector<ir::NodeId> order = stableOrder(g);
  if (static_cast<int>(order.size()) != g.numNodes()) {
    auto cycle = g.topologicalOrder(); // names a node on the cycle
    return cycle.hasValue() ? internalError("inconsistent graph order")
                            : cycle.takeStatus();
  }
  for (ir::NodeId id : order) {
    if (!needed[id] || remap[id] != ir::kNoNode)
      continue;
    const ir::Node &n = g.node(id);
    ir::NodeSpec spec = copySpec(n);
    for (const ir::Output &in : n.inputs())
      spec.inputs.push_back(mapOutput(in));
    for (ir::NodeId c : n.controlInputs())
      if (remap[c] != ir::kNoNode)
        spec.controlInputs.push_back(remap[c]);
    SLUICE_ASSIGN_OR_RETURN(ir::Node * c, out->addNode(std::move(spec)));
    finishCopy(n, *c);
  }

  for (ir::Output &o : ctx.feeds)
    o = mapOutput(o);
  for (ir::Output &o : ctx.fetches)
    o = mapOutput(o);
  std::vector<ir::NodeId> targets;
  for (ir::NodeId t : ctx.targets)
    if (remap[t] != ir::kNoNode) // a fully fed target does not run
      targets.push_back(remap[t]);
  ctx.targets = std::move(targets);
  SLUICE_TRY(ir::copyReferencedFunctions(g.functions(), *out));
  ctx.replacement = std::move(out);
  return Status::ok();
}

} // namespace

std::vector<bool> neededNodes(const ir::Graph &g,
                              const std::vector<ir::Output> &feeds,
                              const std::vector<ir::Output> &fetches,
                              const std::vector<ir::NodeId> &targets) {
  auto fed = fedOutputs(g, feeds);
  std::vector<bool> needed(g.numNodes(), false);
  std::vector<ir::NodeId> work;
  auto mark = [&](ir::NodeId n) {
    if (!needed[n]) {
      needed[n] = true;
      work.push_back(n);
    }
  };
  for (const ir::Output &o : fetches)
    if (!isFed(fed, o))
      mark(o.node);
  for (ir::NodeId t : targets)
    if (!allFed(fed, t))
      mark(t);
  while (!work.empty()) {
    const ir::Node &n = g.node(work.back());
    work.pop_back();
    for (const ir::Output &in : n.inputs())
      if (!isFed(fed, in))
        mark(in.node);
    // A control dependency on a node whose every output is fed is met by
    // the feed (TF replaces such a node by its feeds).
    for (ir::NodeId c : n.controlInputs())
      if (!allFed(fed, c))
        mark(c);
  }
  return needed;
}

std::unique_ptr<Pass> createPrunePass() { return std::make_unique<PrunePass>(); }

} // namespace sluice::passes
