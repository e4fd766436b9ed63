// passes/placer.cc: TF's Placer, simplified to what Sluice's devices need:
// colocation groups (union-find), merged requests, kernel availability,
// soft placement.
#include "passes/placer.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "ir/device_spec.h"

namespace sluice::passes {

namespace {

constexpr const char *kLocalTask = "/job:localhost/replica:0/task:0";

class UnionFind {
public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int x) {
    while (parent_[x] != x)
      x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void unite(int a, int b) {
    a = find(a), b = find(b);
    if (a != b)
      parent_[std::max(a, b)] = std::min(a, b); // the oldest node names the group
  }

private:
  std::vector<int> parent_;
};

std::string where(const ir::Node &n) {
  return "'" + n.name() + "'" + (n.loc().valid() ? " (" + n.loc().str() + ")" : "");
}

// One group's merged request and, per field, the node that set it (for
// conflict messages).
struct Request {
  ir::DeviceSpec spec;
  const ir::Node *jobFrom = nullptr, *replicaFrom = nullptr, *taskFrom = nullptr,
                 *typeFrom = nullptr, *indexFrom = nullptr;
};

template <typename T>
Status mergeField(std::optional<T> &into, const ir::Node *&from, const std::optional<T> &v,
                  const ir::Node &n, const char *field, const std::string &req) {
  if (!v)
    return Status::ok();
  if (into && *into != *v) {
    std::string fromReq = from->requestedDevice();
    return Status(Code::kInvalidArgument,
                  "Cannot colocate nodes " + where(*from) + " and " + where(n) + ": their " +
                      field + " differ ('" + fromReq + "' vs '" + req + "')",
                  n.loc(), n.name());
  }
  if (!into) {
    into = v;
    from = &n;
  }
  return Status::ok();
}

Status mergeRequest(Request &r, const ir::Node &n) {
  if (n.requestedDevice().empty())
    return Status::ok();
  auto spec = ir::DeviceSpec::parse(n.requestedDevice());
  if (!spec.hasValue()) {
    Status s = spec.takeStatus();
    return Status(Code::kInvalidArgument, "node " + where(n) + ": " + s.message(), n.loc(),
                  n.name());
  }
  const std::string &req = n.requestedDevice();
  SLUICE_TRY(mergeField(r.spec.job, r.jobFrom, spec->job, n, "jobs", req));
  SLUICE_TRY(mergeField(r.spec.replica, r.replicaFrom, spec->replica, n, "replicas", req));
  SLUICE_TRY(mergeField(r.spec.task, r.taskFrom, spec->task, n, "tasks", req));
  SLUICE_TRY(mergeField(r.spec.deviceType, r.typeFrom, spec->deviceType, n, "device types", req));
  SLUICE_TRY(mergeField(r.spec.deviceIndex, r.indexFrom, spec->deviceIndex, n, "device indices",
                        req));
  return Status::ok();
}

bool matches(const ir::DeviceSpec &want, const ir::DeviceSpec &have) {
  return (!want.job || want.job == have.job) && (!want.replica || want.replica == have.replica) &&
         (!want.task || want.task == have.task) &&
         (!want.deviceType || want.deviceType == have.deviceType) &&
         (!want.deviceIndex || want.deviceIndex == have.deviceIndex);
}

// TF's placer heuristic A: a constant nobody asked to place, read only by
// ops on one other device, goes there (no copy per step); with a GPU
// listed first, that keeps CPU-only constants off it.
void colocateGenerators(ir::Graph &g, const KernelQueries &kernels,
                        const std::vector<char> &alone) {
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    ir::Node &n = g.node(id);
    if (n.opName() != "constant" || !n.inputs().empty() || !n.controlInputs().empty() ||
        !n.requestedDevice().empty() || !alone[id])
      continue;
    std::string target;
    bool one = true;
    for (const ir::Use &u : g.consumers(id)) {
      const std::string &d = g.node(u.node).assignedDevice();
      if (target.empty())
        target = d;
      one = one && d == target;
    }
    if (!one || target.empty() || target == n.assignedDevice())
      continue;
    auto spec = ir::DeviceSpec::parse(target);
    if (spec.hasValue() && spec->deviceType && kernels.supports(n, *spec->deviceType))
      n.setAssignedDevice(target);
  }
}

class PlacerPass : public Pass {
public:
  std::string_view name() const override { return "placer"; }
  Status run(ir::Graph &g, PassContext &ctx) override {
    if (ctx.options.devices.empty())
      return Status::ok();
    PlacementOptions opts;
    opts.devices = ctx.options.devices;
    opts.allowSoftPlacement = ctx.options.allowSoftPlacement;
    opts.kernels = ctx.options.kernels;
    opts.noGpuReason = ctx.options.noGpuReason;
    return placeGraph(g, opts, &ctx.notes);
  }
};

} // namespace

std::vector<std::string> localDevices(const ir::Graph &g,
                                      const std::map<std::string, int> &deviceCount,
                                      int gpusPresent) {
  std::map<std::string, int> counts = deviceCount;
  if (!counts.count("CPU") || counts["CPU"] < 1)
    counts["CPU"] = 1;
  // Every task the graph asks for, as "/job:J/replica:R/task:T".
  std::set<std::string> tasks;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const std::string &req = g.node(id).requestedDevice();
    if (req.empty())
      continue;
    auto spec = ir::DeviceSpec::parse(req);
    if (!spec.hasValue() || !spec->job || *spec->job == "localhost")
      continue;
    tasks.insert("/job:" + *spec->job + "/replica:" + std::to_string(spec->replica.value_or(0)) +
                 "/task:" + std::to_string(spec->task.value_or(0)));
  }
  std::vector<std::string> out;
  // device_count caps the GPUs the driver reports ({"GPU": 0} hides them);
  // a count above what exists adds none, as in TF.
  int gpus = gpusPresent;
  if (auto it = deviceCount.find("GPU"); it != deviceCount.end())
    gpus = std::min(gpus, std::max(0, it->second));
  for (int i = 0; i < gpus; ++i)
    out.push_back(std::string(kLocalTask) + "/device:GPU:" + std::to_string(i));
  auto addTask = [&](const std::string &task) {
    // Other device types have no kernels in this process.
    for (int i = 0; i < counts["CPU"]; ++i)
      out.push_back(task + "/device:CPU:" + std::to_string(i));
  };
  addTask(kLocalTask);
  for (const std::string &t : tasks)
    addTask(t);
  return out;
}

Status placeGraph(ir::Graph &g, const PlacementOptions &opts, std::vector<Status> *notes) {
  const KernelQueries &kernels = opts.kernels;
  std::vector<ir::DeviceSpec> devices;
  for (const std::string &d : opts.devices) {
    auto spec = ir::DeviceSpec::parse(d);
    if (!spec.hasValue())
      return spec.takeStatus();
    devices.push_back(*spec);
  }
  if (devices.empty())
    return invalidArgument("no devices to place the graph on");
  std::set<std::string> deviceTypes;
  for (const ir::DeviceSpec &d : devices)
    deviceTypes.insert(*d.deviceType);
  std::string available;
  for (const std::string &d : opts.devices)
    available += (available.empty() ? "" : ", ") + d;

  int n = g.numNodes();
  UnionFind groups(n);
  for (ir::NodeId id = 0; id < n; ++id) {
    const ir::Node &node = g.node(id);
    for (const std::string &other : node.colocateWith()) {
      const ir::Node *o = g.findNode(other);
      if (!o)
        return Status(Code::kInvalidArgument,
                      "node " + where(node) + " is colocated with '" + other +
                          "', which is not in the graph",
                      node.loc(), node.name());
      groups.unite(id, o->id());
    }
    // An op using a resource runs where the resource lives.
    for (const ir::Output &in : node.inputs())
      if (g.node(in.node).outputType(in.index) == ir::DType::kResource)
        groups.unite(id, in.node);
  }

  std::map<int, std::vector<ir::NodeId>> members;
  for (ir::NodeId id = 0; id < n; ++id)
    members[groups.find(id)].push_back(id);

  for (const auto &[root, ids] : members) {
    Request req;
    for (ir::NodeId id : ids)
      SLUICE_TRY(mergeRequest(req, g.node(id)));
    // An op with no kernel on any device type here fails later, when its
    // kernel is made; it does not steer placement.
    auto hasKernels = [&](const ir::DeviceSpec &d) {
      for (ir::NodeId id : ids) {
        const ir::Node &node = g.node(id);
        if (kernels.supports(node, *d.deviceType))
          continue;
        for (const std::string &type : deviceTypes)
          if (kernels.supports(node, type))
            return false;
      }
      return true;
    };
    const ir::DeviceSpec *chosen = nullptr;
    bool anyMatch = false;
    for (const ir::DeviceSpec &d : devices)
      if (matches(req.spec, d)) {
        anyMatch = true;
        if (hasKernels(d)) {
          chosen = &d;
          break;
        }
      }
    const ir::Node &first = g.node(ids.front());
    // The node whose request could not be met, for the message.
    const ir::Node &asker = req.typeFrom    ? *req.typeFrom
                            : req.jobFrom   ? *req.jobFrom
                            : req.taskFrom  ? *req.taskFrom
                            : req.indexFrom ? *req.indexFrom
                                            : first;
    if (!chosen) {
      std::string request = req.spec.toString();
      std::string why = anyMatch ? "no supported kernel for " +
                                       req.spec.deviceType.value_or("the matching") +
                                       " devices is available"
                                 : "no devices matching that specification are registered in "
                                   "this process";
      if (req.spec.deviceType == "GPU" && !deviceTypes.count("GPU") && !opts.noGpuReason.empty())
        why += "; no GPU here: " + opts.noGpuReason;
      if (!opts.allowSoftPlacement)
        return Status(Code::kInvalidArgument,
                      "Cannot assign a device for operation " + where(asker) +
                          ": Could not satisfy explicit device specification '" + request +
                          "' because " + why + "; available devices: " + available,
                      asker.loc(), asker.name());
      // Soft placement: same type if any such device has the kernels, else
      // any device that has them.
      for (const ir::DeviceSpec &d : devices)
        if ((!req.spec.deviceType || d.deviceType == req.spec.deviceType) && hasKernels(d)) {
          chosen = &d;
          break;
        }
      if (!chosen)
        for (const ir::DeviceSpec &d : devices)
          if (hasKernels(d)) {
            chosen = &d;
            break;
          }
      if (!chosen)
        chosen = &devices.front();
      if (notes)
        notes->push_back(Status(Code::kOk,
                                "soft placement: " + where(asker) + " requested '" + request +
                                    "' (" + why + "); placed on " + chosen->toString(),
                                asker.loc(), asker.name()));
    }
    std::string name = chosen->toString();
    for (ir::NodeId id : ids)
      g.node(id).setAssignedDevice(name);
  }
  std::vector<char> alone(n, 0);
  for (const auto &[root, ids] : members)
    alone[ids.front()] = ids.size() == 1;
  colocateGenerators(g, kernels, alone);
  return Status::ok();
}

std::unique_ptr<Pass> createPlacerPass() { return std::make_unique<PlacerPass>(); }

} // namespace sluice::passes
