// passes/fusion.cc: clusters connected elementwise ops into `fused` nodes
// whose bodies are graph functions (passes/fusion.h).
#include "passes/fusion.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_set>

#include "ir/function.h"
#include "ir/row_reduction.h"

namespace sluice::passes {

namespace {

const std::set<std::string, std::less<>> kElementwise = {
    // unary
    "negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sigmoid", "tanh", "relu",
    "sign", "floor", "ceil", "round", "logical_not",
    // binary (numpy broadcasting)
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
    "pow", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or",
    // others
    "cast", "select", "add_n", "broadcast_to"};

// A reduction may end a cluster: it joins the cluster its input comes
// from, and nothing joins after it (its consumers see a smaller shape).
// A row reduction (ir/row_reduction.h) need not end it: its result
// broadcasts back over the rows, so the ops reading it join too, and the
// kernel walks each row once per reduction (softmax in one kernel).
const std::set<std::string, std::less<>> kReductions = {"reduce_sum", "reduce_mean",
                                                        "reduce_max", "reduce_min"};

bool isReduction(const ir::Node &n) { return kReductions.count(n.opName()) > 0; }

// f16 computes through float in the interpreter; keeping it out keeps the
// JIT's rounding equal to the interpreter's. Strings have no elementwise
// code.
bool fusibleType(ir::DType t) { return ir::isPod(t) && t != ir::DType::kF16; }

std::string deviceKey(const ir::Node &n) {
  return n.assignedDevice().empty() ? "req:" + n.requestedDevice() : n.assignedDevice();
}

// Each cycle check walks at most this many nodes; past it the pass
// assumes a cycle (never wrong, only a missed fusion), which keeps huge
// graphs from costing a walk of everything downstream per node.
constexpr size_t kMaxSearch = 20000;

template <typename T> bool contains(const std::vector<T> &v, const T &x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

class FusionPass : public Pass {
public:
  std::string_view name() const override { return "fusion"; }

  Status run(ir::Graph &g, PassContext &ctx) override {
    g_ = &g;
    ctx_ = &ctx;
    SLUICE_ASSIGN_OR_RETURN(auto order, g.topologicalOrder());
    int n = g.numNodes();
    clusterOf_.assign(n, -1);
    consumers_.assign(n, {});
    for (ir::NodeId id = 0; id < n; ++id)
      for (const ir::Use &u : g.consumers(id))
        consumers_[id].push_back(u.node);
    for (ir::NodeId id : order) {
      if (!candidate(id))
        continue;
      bool reduction = isReduction(g.node(id));
      int joined = -1;
      for (const ir::Output &in : g.node(id).inputs()) {
        int c = clusterOf_[in.node];
        if (c < 0 || joined == c || closed_[c] ||
            deviceKey(g.node(clusters_[c][0])) != deviceKey(g.node(id)))
          continue;
        // A row cluster takes only what fits its rows; a reduction that
        // does not keep it open cannot end it either.
        if (rows_[c] && !(reduction ? rowsAllow(c, id) : fitsRows(id, *rows_[c])))
          continue;
        if (canJoin(c, id)) {
          joined = c;
          break;
        }
      }
      if (auto row = ir::rowReduction(g, g.node(id))) {
        // It keeps its cluster open, or starts one when its input's
        // cluster cannot take it (a placeholder's rows: softmax's max).
        if (joined >= 0 && rowsAllow(joined, id)) {
          clusters_[joined].push_back(id);
          clusterOf_[id] = joined;
          rows_[joined] = row;
          continue;
        }
        if (joined < 0) {
          clusterOf_[id] = static_cast<int>(clusters_.size());
          clusters_.push_back({id});
          closed_.push_back(0);
          rows_.push_back(row);
          continue;
        }
      }
      if (reduction) {
        // Never a cluster of its own; it closes the one it ends. When the
        // value it reduces is read elsewhere too (softmax's exp), the
        // kernel would compute it twice: the reduction stays out.
        const ir::Output &in = g.node(id).inputs()[0];
        bool shared = contains(ctx_->fetches, in);
        for (const ir::Use &u : g.consumers(in.node))
          shared = shared || (u.outputIndex == in.index && u.node != id);
        if (joined >= 0 && !shared) {
          clusters_[joined].push_back(id);
          clusterOf_[id] = joined;
          closed_[joined] = 1;
        }
        continue;
      }
      if (joined < 0) {
        joined = static_cast<int>(clusters_.size());
        clusters_.emplace_back();
        closed_.push_back(0);
        rows_.emplace_back();
      }
      clusters_[joined].push_back(id);
      clusterOf_[id] = joined;
      // The node may join clusters: x*2 + exp(x) has {multiply} and {exp}
      // meeting at the add.
      for (const ir::Output &in : g.node(id).inputs()) {
        int d = clusterOf_[in.node];
        if (d < 0 || d == joined || closed_[d] ||
            deviceKey(g.node(clusters_[d][0])) != deviceKey(g.node(id)))
          continue;
        std::optional<ir::RowReduction> merged = rows_[joined] ? rows_[joined] : rows_[d];
        if (merged && !(clusterFitsRows(joined, *merged) && clusterFitsRows(d, *merged)))
          continue;
        if (!pathBetween(joined, d) && !pathBetween(d, joined)) {
          rows_[joined] = merged;
          rows_[d].reset();
          for (ir::NodeId m : clusters_[d])
            clusterOf_[m] = joined;
          clusters_[joined].insert(clusters_[joined].end(), clusters_[d].begin(),
                                   clusters_[d].end());
          clusters_[d].clear();
        }
      }
    }
    std::vector<int> position(n, 0);
    for (size_t i = 0; i < order.size(); ++i)
      position[order[i]] = static_cast<int>(i);
    for (auto &members : clusters_) {
      // One op gains nothing from fusing, unless everything must be code
      // (ahead of time; on a GPU, where generated code is its kernel).
      if (members.size() < 2 && !ctx_->options.fuseSingleOps &&
          g.node(members.front()).assignedDevice().find("/device:GPU:") == std::string::npos)
        continue;
      std::sort(members.begin(), members.end(),
                [&](ir::NodeId a, ir::NodeId b) { return position[a] < position[b]; });
      SLUICE_TRY(replace(members));
    }
    return Status::ok();
  }

private:
  // Whether `id` (a value of the rows' shape or of their reduced shape,
  // reading only values readable along the rows) can be in a cluster
  // walking rows `r`.
  bool fitsRows(ir::NodeId id, const ir::RowReduction &r) const {
    const ir::Node &n = g_->node(id);
    if (n.numOutputs() != 1)
      return false;
    if (auto own = ir::rowReduction(*g_, n); own && !(*own == r))
      return false;
    const std::vector<int64_t> &dims = n.outputShape(0).dims();
    if (dims != r.input && dims != r.rowDims())
      return false;
    for (const ir::Output &in : n.inputs())
      if (!ir::readableAlongRows(g_->node(in.node).outputShape(in.index).dims(), r))
        return false;
    return true;
  }

  bool clusterFitsRows(int c, const ir::RowReduction &r) const {
    if (rows_[c])
      return *rows_[c] == r;
    for (ir::NodeId m : clusters_[c])
      if (!fitsRows(m, r))
        return false;
    return true;
  }

  // Whether row reduction `id` may join cluster c (which holds its input)
  // and leave it open.
  bool rowsAllow(int c, ir::NodeId id) const {
    auto r = ir::rowReduction(*g_, g_->node(id));
    return r && !closed_[c] && clusterFitsRows(c, *r) && fitsRows(id, *r);
  }

  bool candidate(ir::NodeId id) const {
    const ir::Node &n = g_->node(id);
    if (!isFusibleOp(n) || !n.controlInputs().empty())
      return false;
    // Dims known only at run time are fine (the JIT compiles the body per
    // call shapes); an unknown rank is not (numpy broadcasting needs it).
    for (int i = 0; i < n.numOutputs(); ++i)
      if (!n.outputShape(i).hasRank() || contains(ctx_->feeds, ir::Output{id, i}))
        return false;
    for (const ir::Output &in : n.inputs())
      if (!g_->node(in.node).outputShape(in.index).hasRank())
        return false;
    // broadcast_to's shape is a value: compiling per call shapes could not
    // recover it, so it fuses only when the graph knows it.
    if (n.opName() == "broadcast_to" && !n.outputShape(0).isFullyDefined())
      return false;
    // TF1's select takes a vector condition over the first dim, which is
    // not numpy broadcasting; only the numpy cases fuse.
    if (n.opName() == "select") {
      const ir::Output &c = n.inputs()[0];
      if (g_->node(c.node).outputShape(c.index).rank() == 1 && n.outputShape(0).rank() > 1)
        return false;
    }
    return true;
  }

  // Contracting cluster c with `id` (a consumer of c) makes a cycle exactly
  // when another producer of `id` can be reached from c; paths may run
  // through other clusters, which count as one node each.
  bool canJoin(int c, ir::NodeId id) const {
    std::unordered_set<ir::NodeId> producers;
    for (const ir::Output &in : g_->node(id).inputs())
      if (clusterOf_[in.node] != c)
        producers.insert(in.node);
    if (producers.empty())
      return true;
    Marks seen(*this);
    std::deque<ir::NodeId> work;
    auto pushConsumersOf = [&](ir::NodeId m) {
      for (ir::NodeId u : consumers_[m])
        if (clusterOf_[u] != c && u != id && seen.node(u))
          work.push_back(u);
    };
    for (ir::NodeId m : clusters_[c])
      pushConsumersOf(m);
    size_t visited = 0;
    while (!work.empty()) {
      if (++visited > kMaxSearch)
        return false;
      ir::NodeId v = work.front();
      work.pop_front();
      if (producers.count(v))
        return false;
      int d = clusterOf_[v];
      if (d >= 0) {
        if (!seen.cluster(d))
          continue;
        for (ir::NodeId m : clusters_[d]) {
          if (producers.count(m))
            return false;
          pushConsumersOf(m);
        }
      } else {
        pushConsumersOf(v);
      }
    }
    return true;
  }

  // Whether a path leaves cluster `from` and reaches cluster `to` through
  // at least one node outside both (a direct edge contracts fine).
  bool pathBetween(int from, int to) const {
    Marks seen(*this);
    std::deque<ir::NodeId> work;
    auto pushConsumersOf = [&](ir::NodeId m, bool first) {
      for (ir::NodeId u : consumers_[m]) {
        int c = clusterOf_[u];
        if (c == from || (first && c == to) || !seen.node(u))
          continue;
        work.push_back(u);
      }
    };
    for (ir::NodeId m : clusters_[from])
      pushConsumersOf(m, true);
    size_t visited = 0;
    while (!work.empty()) {
      if (++visited > kMaxSearch)
        return true;
      ir::NodeId v = work.front();
      work.pop_front();
      int d = clusterOf_[v];
      if (d == to)
        return true;
      if (d >= 0) {
        if (!seen.cluster(d))
          continue;
        for (ir::NodeId m : clusters_[d])
          pushConsumersOf(m, false);
      } else {
        pushConsumersOf(v, false);
      }
    }
    return false;
  }

  Status replace(const std::vector<ir::NodeId> &members) {
    ir::Graph &g = *g_;
    std::unordered_set<ir::NodeId> inCluster(members.begin(), members.end());
    auto body = std::make_shared<ir::Graph>();
    auto def = std::make_shared<ir::FunctionDef>();
    std::vector<ir::Output> inputs;            // outer values the body reads
    std::map<ir::Output, ir::Output> inBody;   // outer value -> body value
    for (ir::NodeId id : members) {
      const ir::Node &n = g.node(id);
      for (const ir::Output &in : n.inputs()) {
        if (inCluster.count(in.node) || inBody.count(in))
          continue;
        const ir::Node &p = g.node(in.node);
        ir::NodeSpec arg;
        arg.name = "arg_" + std::to_string(inputs.size());
        arg.op = "function_arg";
        arg.attrs = {{"T", p.outputType(in.index)},
                     {"index", static_cast<int64_t>(inputs.size())},
                     {"shape", p.outputShape(in.index)}};
        arg.loc = n.loc();
        SLUICE_ASSIGN_OR_RETURN(ir::Node * a, body->addNode(std::move(arg)));
        def->args.push_back(a->id());
        inBody[in] = ir::Output{a->id(), 0};
        inputs.push_back(in);
      }
    }
    for (ir::NodeId id : members) {
      const ir::Node &n = g.node(id);
      ir::NodeSpec spec;
      spec.name = body->isNameUsed(n.name()) ? body->uniqueName(n.name()) : n.name();
      spec.op = n.opName();
      spec.attrs = n.attrs();
      for (const ir::Output &in : n.inputs())
        spec.inputs.push_back(inBody.at(in));
      spec.loc = n.loc();
      SLUICE_ASSIGN_OR_RETURN(ir::Node * b, body->addNode(std::move(spec)));
      // The body re-infers from parameters, which lose what constant
      // inputs told (broadcast_to's shape): keep the outer static shapes.
      for (int i = 0; i < n.numOutputs(); ++i) {
        b->setOutputShape(i, n.outputShape(i));
        inBody[ir::Output{id, i}] = ir::Output{b->id(), i};
      }
    }
    // Results: every member value read outside the cluster, fetched, or
    // of a target.
    std::vector<ir::Output> results;
    for (ir::NodeId id : members) {
      std::vector<char> used(g.node(id).numOutputs(), 0);
      for (const ir::Use &u : g.consumers(id))
        if (u.inputIndex >= 0 && !inCluster.count(u.node))
          used[u.outputIndex] = 1;
      for (const ir::Output &f : ctx_->fetches)
        if (f.node == id)
          used[f.index] = 1;
      // A target's values are what running it means (compile's sinks).
      if (contains(ctx_->targets, id))
        used.assign(used.size(), 1);
      for (int i = 0; i < static_cast<int>(used.size()); ++i)
        if (used[i])
          results.push_back(ir::Output{id, i});
    }
    const ir::Node &last = g.node(members.back());
    std::vector<ir::DType> tout;
    std::vector<ir::Shape> shapes;
    for (const ir::Output &r : results) {
      def->rets.push_back(inBody.at(r));
      tout.push_back(g.node(r.node).outputType(r.index));
      shapes.push_back(g.node(r.node).outputShape(r.index));
    }
    def->name = g.functions().uniqueName("fused_" + last.name());
    def->loc = last.loc();
    def->body = body;
    SLUICE_TRY(g.functions().add(def));

    ir::NodeSpec spec;
    spec.name = g.uniqueName(last.name() + "/fused");
    spec.op = "fused";
    spec.inputs = inputs;
    spec.attrs = {{"f", def->name}, {"Tout", tout}, {"output_shapes", shapes}};
    spec.requestedDevice = g.node(members.front()).requestedDevice();
    spec.loc = last.loc();
    std::string device = last.assignedDevice();
    SLUICE_ASSIGN_OR_RETURN(ir::Node * fusedNode, g.addNode(std::move(spec)));
    fusedNode->setAssignedDevice(device);
    ir::NodeId f = fusedNode->id();
    for (size_t k = 0; k < results.size(); ++k) {
      ir::Output to{f, static_cast<int>(k)};
      g.replaceUses(results[k], to);
      for (ir::Output &o : ctx_->fetches)
        if (o == results[k])
          o = to;
    }
    for (ir::NodeId id : members)
      g.replaceControlUses(id, f);
    for (ir::NodeId &t : ctx_->targets)
      if (inCluster.count(t))
        t = f;
    std::sort(ctx_->targets.begin(), ctx_->targets.end());
    ctx_->targets.erase(std::unique(ctx_->targets.begin(), ctx_->targets.end()),
                        ctx_->targets.end());
    return Status::ok();
  }

  // Visited marks for one walk, cleared in O(1) by a new epoch (a walk
  // per node must not cost a pass over the whole graph).
  class Marks {
  public:
    explicit Marks(const FusionPass &p) : p_(p) {
      if (++p_.epoch_ == 0) {
        std::fill(p_.nodeMark_.begin(), p_.nodeMark_.end(), 0);
        std::fill(p_.clusterMark_.begin(), p_.clusterMark_.end(), 0);
        p_.epoch_ = 1;
      }
      p_.nodeMark_.resize(p_.g_->numNodes(), 0);
      p_.clusterMark_.resize(p_.clusters_.size(), 0);
    }
    /// True the first time `id` is marked in this walk.
    bool node(ir::NodeId id) { return mark(p_.nodeMark_[id]); }
    bool cluster(int c) { return mark(p_.clusterMark_[c]); }

  private:
    bool mark(uint32_t &m) {
      if (m == p_.epoch_)
        return false;
      m = p_.epoch_;
      return true;
    }
    const FusionPass &p_;
  };

  mutable uint32_t epoch_ = 0;
  mutable std::vector<uint32_t> nodeMark_, clusterMark_;
  ir::Graph *g_ = nullptr;
  PassContext *ctx_ = nullptr;
  std::vector<int> clusterOf_;
  std::vector<std::vector<ir::NodeId>> consumers_;
  std::vector<std::vector<ir::NodeId>> clusters_;
  std::vector<char> closed_; // ends in a reduction: nothing more joins
  std::vector<std::optional<ir::RowReduction>> rows_; // walks rows: only their shapes join
};

std::string valueText(const ir::Graph &g, const ir::Output &o) {
  const ir::Node &n = g.node(o.node);
  return "%" + n.name() + ":" + std::to_string(o.index) + " " +
         std::string(ir::dtypeName(n.outputType(o.index))) + n.outputShape(o.index).str();
}

} // namespace

bool isFusibleOpType(std::string_view op, ir::DType t) {
  if (kReductions.count(op))
    return t == ir::DType::kF32 || t == ir::DType::kF64 || t == ir::DType::kI32 ||
           t == ir::DType::kI64;
  if (!kElementwise.count(op) || !fusibleType(t))
    return false;
  if (op == "pow" && !ir::isFloating(t))
    return false; // integer pow fails on negative exponents
  return true;
}

bool isFusibleOp(const ir::Node &n) {
  if (isReduction(n))
    return isFusibleOpType(n.opName(), n.outputType(0));
  if (n.op().stateful || n.numOutputs() == 0)
    return false;
  for (ir::DType t : n.outputTypes())
    if (!isFusibleOpType(n.opName(), t))
      return false;
  return true;
}

std::unique_ptr<Pass> createFusionPass() { return std::make_unique<FusionPass>(); }

std::string describeClusters(const ir::Graph &g) {
  std::string out;
  int count = 0;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const ir::Node &n = g.node(id);
    if (n.opName() != "fused" || !n.hasAttr("f"))
      continue;
    auto f = g.functions().find(n.attr<std::string>("f"));
    if (!f)
      continue;
    ++count;
    const ir::Graph &b = *f->body;
    int ops = 0;
    std::string nodes;
    for (ir::NodeId k = 0; k < b.numNodes(); ++k) {
      const ir::Node &m = b.node(k);
      if (m.opName() == "function_arg")
        continue;
      ++ops;
      nodes += (nodes.empty() ? "" : ", ") + m.name() + " (" + m.opName() + ") " +
               std::string(ir::dtypeName(m.outputType(0))) + m.outputShape(0).str();
    }
    out += "# cluster %" + n.name() + " (function \"" + f->name + "\")";
    if (!n.assignedDevice().empty())
      out += " on " + n.assignedDevice();
    out += ": " + std::to_string(ops) + " ops\n";
    out += "#   nodes: " + nodes + "\n";
    out += "#   inputs:";
    for (size_t i = 0; i < n.inputs().size(); ++i)
      out += (i ? ", " : " ") + valueText(g, n.inputs()[i]);
    out += "\n#   outputs:";
    for (size_t i = 0; i < f->rets.size(); ++i)
      out += (i ? ", " : " ") + valueText(b, f->rets[i]);
    out += "\n";
  }
  return "# " + std::to_string(count) + (count == 1 ? " cluster\n" : " clusters\n") + out;
}

} // namespace sluice::passes
