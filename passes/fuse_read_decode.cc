// passes/fuse_read_decode.cc: rewrites reader_read(_up_to) + decode_csv
// pairs into reader_read_csv (backend/cpu/read_csv_kernels.cc).
#include "passes/fuse_read_decode.h"

#include <algorithm>

namespace sluice::passes {

namespace {

bool isRead(const ir::Node &n) {
  return n.opName() == "reader_read" || n.opName() == "reader_read_up_to";
}

template <typename T> bool contains(const std::vector<T> &v, const T &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class FuseReadDecodePass : public Pass {
public:
  std::string_view name() const override { return "fuse-read-decode"; }

  Status run(ir::Graph &g, PassContext &ctx) override {
    if (!ctx.options.fuseReadDecode)
      return Status::ok();
    int n = g.numNodes(); // nodes added below are not candidates
    for (ir::NodeId id = 0; id < n; ++id) {
      const ir::Node &decode = g.node(id);
      if (decode.opName() != "decode_csv")
        continue;
      ir::Output records = decode.inputs()[0];
      if (records.index != 1 || !isRead(g.node(records.node)))
        continue;
      if (fusable(g, ctx, records.node, id))
        SLUICE_TRY(fuse(g, ctx, records.node, id));
    }
    return Status::ok();
  }

private:
  static bool fusable(const ir::Graph &g, const PassContext &ctx, ir::NodeId readId,
                      ir::NodeId decodeId) {
    const ir::Node &read = g.node(readId), &decode = g.node(decodeId);
    if (read.assignedDevice() != decode.assignedDevice())
      return false; // the parse would move to the reader's device
    for (int i = 0; i < 2; ++i)
      if (contains(ctx.feeds, ir::Output{readId, i}))
        return false;
    if (contains(ctx.fetches, ir::Output{readId, 1}))
      return false;
    for (int i = 0; i < decode.numOutputs(); ++i)
      if (contains(ctx.feeds, ir::Output{decodeId, i}))
        return false;
    // The values go to this decode_csv and nowhere else.
    for (const ir::Use &u : g.consumers(readId))
      if (u.inputIndex >= 0 && u.outputIndex == 1 && (u.node != decodeId || u.inputIndex != 0))
        return false;
    return true;
  }

  static Status fuse(ir::Graph &g, PassContext &ctx, ir::NodeId readId, ir::NodeId decodeId) {
    bool keysUsed = contains(ctx.fetches, ir::Output{readId, 0});
    for (const ir::Use &u : g.consumers(readId))
      keysUsed = keysUsed || (u.inputIndex >= 0 && u.outputIndex == 0);
    const ir::Node &read = g.node(readId), &decode = g.node(decodeId);
    bool upTo = read.opName() == "reader_read_up_to";

    ir::Output num;
    if (upTo) {
      num = read.inputs()[2];
    } else {
      ir::NodeSpec one;
      one.name = g.uniqueName(decode.name() + "/num_records");
      one.op = "constant";
      one.attrs = {{"dtype", ir::DType::kI64}, {"value", ir::Tensor::scalar<int64_t>(1)}};
      one.requestedDevice = read.requestedDevice();
      one.loc = read.loc();
      SLUICE_ASSIGN_OR_RETURN(ir::Node * c, g.addNode(std::move(one)));
      c->setAssignedDevice(g.node(readId).assignedDevice());
      num = ir::Output{c->id(), 0};
    }
    const ir::Node &r = g.node(readId), &d = g.node(decodeId); // addNode may move nodes
    ir::NodeSpec spec;
    // The fused node answers for decode_csv's errors: its name and line.
    spec.name = g.uniqueName(d.name() + "/read_csv");
    spec.op = "reader_read_csv";
    spec.inputs = {r.inputs()[0], r.inputs()[1], num};
    for (size_t i = 1; i < d.inputs().size(); ++i)
      spec.inputs.push_back(d.inputs()[i]);
    spec.attrs = d.attrs();
    spec.attrs["up_to"] = upTo;
    spec.attrs["emit_keys"] = keysUsed;
    spec.controlInputs = r.controlInputs();
    for (ir::NodeId c : d.controlInputs())
      if (!contains(spec.controlInputs, c))
        spec.controlInputs.push_back(c);
    spec.requestedDevice = r.requestedDevice();
    spec.colocateWith = r.colocateWith();
    spec.loc = d.loc();
    std::string device = r.assignedDevice();
    int numColumns = d.numOutputs();
    SLUICE_ASSIGN_OR_RETURN(ir::Node * fused, g.addNode(std::move(spec)));
    fused->setAssignedDevice(device);
    ir::NodeId f = fused->id();

    // Everything that read the pair reads the fused node.
    if (keysUsed)
      g.replaceUses(ir::Output{readId, 0}, ir::Output{f, 0});
    for (int i = 0; i < numColumns; ++i)
      g.replaceUses(ir::Output{decodeId, i}, ir::Output{f, 1 + i});
    g.replaceControlUses(readId, f);
    g.replaceControlUses(decodeId, f);
    for (ir::Output &o : ctx.fetches) {
      if (o.node == readId && o.index == 0)
        o = ir::Output{f, 0};
      else if (o.node == decodeId)
        o = ir::Output{f, 1 + o.index};
    }
    // A target read would read its records a second time: the fused node
    // runs instead.
    for (ir::NodeId &t : ctx.targets)
      if (t == readId || t == decodeId)
        t = f;
    std::sort(ctx.targets.begin(), ctx.targets.end());
    ctx.targets.erase(std::unique(ctx.targets.begin(), ctx.targets.end()), ctx.targets.end());
    return Status::ok();
  }
};

} // namespace

std::unique_ptr<Pass> createFuseReadDecodePass() { return std::make_unique<FuseReadDecodePass>(); }

} // namespace sluice::passes
