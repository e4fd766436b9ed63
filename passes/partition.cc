// passes/partition.cc: the partitioner: copies each node into its
// device's graph and cuts the edges between devices.
#include "passes/partition.h"

#include <map>

namespace sluice::passes {

namespace {

ir::NodeSpec copySpec(const ir::Node &n) {
  ir::NodeSpec s;
  s.name = n.name();
  s.op = n.opName();
  s.attrs = n.attrs();
  s.requestedDevice = n.requestedDevice();
  s.colocateWith = n.colocateWith();
  s.loc = n.loc();
  return s;
}

class Partitioner {
public:
  explicit Partitioner(const ir::Graph &g) : g_(g) {}

  Expected<PartitionedGraph> run() {
    SLUICE_ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, g_.topologicalOrder());
    out_.where.assign(g_.numNodes(), {-1, ir::kNoNode});
    for (ir::NodeId id : order) {
      const ir::Node &n = g_.node(id);
      if (n.assignedDevice().empty())
        return Status(Code::kInvalidArgument,
                      "node '" + n.name() + "' has no assigned device: place the graph first",
                      n.loc(), n.name());
      int part = partOf(n.assignedDevice());
      ir::NodeSpec spec = copySpec(n);
      for (const ir::Output &in : n.inputs()) {
        SLUICE_ASSIGN_OR_RETURN(ir::Output o, input(in, part));
        spec.inputs.push_back(o);
      }
      for (ir::NodeId c : n.controlInputs()) {
        SLUICE_ASSIGN_OR_RETURN(ir::NodeId cc, control(c, part));
        spec.controlInputs.push_back(cc);
      }
      SLUICE_ASSIGN_OR_RETURN(ir::Node * copy, add(part, std::move(spec)));
      for (int i = 0; i < n.numOutputs(); ++i)
        if (auto m = copy->outputShape(i).merge(n.outputShape(i)))
          copy->setOutputShape(i, *m);
      out_.where[id] = {part, copy->id()};
    }
    for (Partition &p : out_.parts)
      SLUICE_TRY(ir::copyReferencedFunctions(g_.functions(), *p.graph));
    return std::move(out_);
  }

private:
  int partOf(const std::string &device) {
    auto it = partIndex_.find(device);
    if (it != partIndex_.end())
      return it->second;
    int i = static_cast<int>(out_.parts.size());
    out_.parts.push_back(Partition{device, std::make_unique<ir::Graph>()});
    partIndex_[device] = i;
    return i;
  }

  Expected<ir::Node *> add(int part, ir::NodeSpec spec) {
    auto n = out_.parts[part].graph->addNode(std::move(spec));
    if (!n.hasValue())
      return n.takeStatus();
    (*n)->setAssignedDevice(out_.parts[part].device);
    return *n;
  }

  // The send/recv pair carrying `value` (an output of partition `from`)
  // into partition `to`; returns the recv's output.
  Expected<ir::Output> transfer(int from, ir::Output value, const std::string &tensorName,
                                const std::string &baseName, const SourceLoc &loc, int to) {
    const std::string &src = out_.parts[from].device;
    const std::string &dst = out_.parts[to].device;
    const ir::Node &producer = out_.parts[from].graph->node(value.node);
    ir::DType t = producer.outputType(value.index);
    ir::AttrMap endpoint{{"tensor_name", tensorName},
                         {"send_device", src},
                         {"send_device_incarnation", int64_t{1}},
                         {"recv_device", dst}};
    ir::NodeSpec send;
    send.name = out_.parts[from].graph->uniqueName(baseName + "/_send_to_" + std::to_string(to));
    send.op = "send";
    send.inputs = {value};
    send.attrs = endpoint;
    send.attrs["T"] = t;
    send.loc = loc;
    auto sent = add(from, std::move(send));
    if (!sent.hasValue())
      return sent.takeStatus();
    ir::NodeSpec recv;
    recv.name = out_.parts[to].graph->uniqueName(baseName + "/_recv_from_" + std::to_string(from));
    recv.op = "recv";
    recv.attrs = endpoint;
    recv.attrs["tensor_type"] = t;
    recv.attrs["shape"] = producer.outputShape(value.index);
    recv.loc = loc;
    SLUICE_ASSIGN_OR_RETURN(ir::Node * r, add(to, std::move(recv)));
    return ir::Output{r->id(), 0};
  }

  Expected<ir::Output> input(const ir::Output &in, int part) {
    auto [from, local] = out_.where[in.node];
    ir::Output o{local, in.index};
    if (from == part)
      return o;
    auto key = std::make_pair(in, part);
    auto it = recvs_.find(key);
    if (it != recvs_.end())
      return it->second;
    const ir::Node &src = g_.node(in.node);
    SLUICE_ASSIGN_OR_RETURN(ir::Output r, transfer(from, o, edgeName(src),
                                                   src.name() + "_" + std::to_string(in.index),
                                                   src.loc(), part));
    recvs_[key] = r;
    return r;
  }

  // TF's tensor_name, "edge_<id>_<source node>"; the id numbers the cut
  // edges in the order the partitioner meets them.
  std::string edgeName(const ir::Node &src) {
    return "edge_" + std::to_string(nextEdge_++) + "_" + src.name();
  }

  // As TF: a float constant of shape [0] that runs after the source is
  // sent across, and the Identity of its recv becomes the control input,
  // so the destination waits for the source without moving data.
  Expected<ir::NodeId> control(ir::NodeId c, int part) {
    auto [from, local] = out_.where[c];
    if (from == part)
      return local;
    auto key = std::make_pair(c, part);
    auto it = controlRecvs_.find(key);
    if (it != controlRecvs_.end())
      return it->second;
    const ir::Node &src = g_.node(c);
    ir::NodeSpec dummy;
    dummy.name = out_.parts[from].graph->uniqueName(src.name() + "/_control_const");
    dummy.op = "constant";
    dummy.attrs = {{"dtype", ir::DType::kF32},
                   {"value", ir::Tensor(ir::DType::kF32, ir::Dims{0})}};
    dummy.controlInputs = {local};
    dummy.loc = src.loc();
    SLUICE_ASSIGN_OR_RETURN(ir::Node * d, add(from, std::move(dummy)));
    SLUICE_ASSIGN_OR_RETURN(ir::Output r,
                            transfer(from, ir::Output{d->id(), 0}, edgeName(src),
                                     src.name() + "_control", src.loc(), part));
    ir::NodeSpec id;
    id.name = out_.parts[part].graph->uniqueName(src.name() + "/_control_identity");
    id.op = "identity";
    id.inputs = {r};
    id.loc = src.loc();
    SLUICE_ASSIGN_OR_RETURN(ir::Node * ident, add(part, std::move(id)));
    controlRecvs_[key] = ident->id();
    return ident->id();
  }

  const ir::Graph &g_;
  PartitionedGraph out_;
  std::map<std::string, int> partIndex_;
  std::map<std::pair<ir::Output, int>, ir::Output> recvs_;
  std::map<std::pair<ir::NodeId, int>, ir::NodeId> controlRecvs_;
  int nextEdge_ = 0;
};

} // namespace

Expected<PartitionedGraph> partitionGraph(const ir::Graph &g) { return Partitioner(g).run(); }

} // namespace sluice::passes
