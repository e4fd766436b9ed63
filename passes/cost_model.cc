// passes/cost_model.cc: the static cost of one step of a placed graph:
// bytes per device pair, parameter bytes per task, FLOPs per device.
#include "passes/cost_model.h"

#include <algorithm>
#include <cstdio>
#include <set>
#include <string_view>

#include "ir/device_spec.h"

namespace sluice::passes {

namespace {

// What the partitioner sends for a control edge between devices: an
// empty float tensor (TF's dummy Const of shape [0]), no payload.
constexpr int64_t kControlBytes = 0;

SymbolicCount elements(const ir::Shape &s, int64_t factor) {
  if (!s.hasRank())
    return SymbolicCount::unsizedOne();
  int64_t c = factor;
  int degree = 0;
  for (int64_t d : s.dims()) {
    if (d < 0)
      ++degree;
    else if (__builtin_mul_overflow(c, d, &c))
      return SymbolicCount::unsizedOne();
  }
  return SymbolicCount::monomial(c, degree);
}

SymbolicCount valueBytes(ir::DType t, const ir::Shape &s) {
  size_t size = ir::dtypeSize(t);
  // Strings, handles and variants have no fixed byte size.
  if (size == 0)
    return SymbolicCount::unsizedOne();
  return elements(s, static_cast<int64_t>(size));
}

// The count with every `?` at 1: how transfers and variables are ranked.
int64_t atOne(const SymbolicCount &c) {
  int64_t sum = 0;
  for (const auto &[k, v] : c.terms)
    if (__builtin_add_overflow(sum, v, &sum))
      return INT64_MAX;
  return sum;
}

bool boolAttr(const ir::Node &n, std::string_view name) {
  auto it = n.attrs().find(name);
  return it != n.attrs().end() && std::holds_alternative<bool>(it->second) &&
         std::get<bool>(it->second);
}

const ir::Shape &inputShape(const ir::Graph &g, const ir::Node &n, int i) {
  const ir::Output &in = n.inputs()[i];
  return g.node(in.node).outputShape(in.index);
}

SymbolicCount matmulFlops(const ir::Graph &g, const ir::Node &n) {
  // A matmul input is rank 2 even when its static rank is unknown.
  auto dims = [](const ir::Shape &s, bool transposed) -> std::pair<int64_t, int64_t> {
    if (s.rank() != 2)
      return {-1, -1};
    return transposed ? std::make_pair(s.dim(1), s.dim(0)) : std::make_pair(s.dim(0), s.dim(1));
  };
  auto [m, ka] = dims(inputShape(g, n, 0), boolAttr(n, "transpose_a") || boolAttr(n, "adjoint_a"));
  auto [kb, cols] =
      dims(inputShape(g, n, 1), boolAttr(n, "transpose_b") || boolAttr(n, "adjoint_b"));
  int64_t k = ka >= 0 ? ka : kb;
  return elements(ir::Shape({m, cols, k}), 2);
}

bool isElementwise(std::string_view op) {
  static const std::set<std::string_view> kOps = {
      "add",           "subtract",    "multiply",   "divide",      "floor_div",
      "mod",           "pow",         "maximum",    "minimum",     "squared_difference",
      "equal",         "not_equal",   "less",       "less_equal",  "greater",
      "greater_equal", "logical_and", "logical_or", "logical_not", "negative",
      "abs",           "square",      "sqrt",       "rsqrt",       "exp",
      "log",           "sigmoid",     "tanh",       "relu",        "sign",
      "floor",         "ceil",        "round",      "cast",        "select"};
  return kOps.count(op) > 0;
}

bool isReduction(std::string_view op) {
  static const std::set<std::string_view> kOps = {"reduce_sum", "reduce_mean", "reduce_max",
                                                  "reduce_min", "reduce_prod", "reduce_any",
                                                  "reduce_all", "argmax",      "argmin"};
  return kOps.count(op) > 0;
}

bool isParameter(const ir::Node &n) {
  bool handle = std::find(n.outputTypes().begin(), n.outputTypes().end(), ir::DType::kResource) !=
                n.outputTypes().end();
  auto shape = n.attrs().find("shape");
  auto dtype = n.attrs().find("dtype");
  return handle && shape != n.attrs().end() && dtype != n.attrs().end() &&
         std::holds_alternative<ir::Shape>(shape->second) &&
         std::holds_alternative<ir::DType>(dtype->second);
}

std::string jobOf(const std::string &device) {
  auto d = ir::DeviceSpec::parse(device);
  return d.hasValue() && d->job ? *d->job : "";
}

// Tasks are grouped by their task name; a device that names none (not
// from the placer) stands for itself.
std::string taskKey(const std::string &device) {
  std::string t = ir::taskOf(device);
  return t.empty() ? device : t;
}

std::string percent(int64_t part, int64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%",
                100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

// The largest single transfer and the first node that reads it.
struct LargestTransfer {
  int64_t rank = -1;
  std::string value;
  SymbolicCount bytes;
  const ir::Node *reader = nullptr;
  std::string from, to;
};

class CostEstimator {
public:
  CostEstimator(const ir::Graph &g, const CostOptions &opts) : g_(g), opts_(opts) {}

  Expected<CostReport> run() {
    for (ir::NodeId id = 0; id < g_.numNodes(); ++id) {
      const ir::Node &n = g_.node(id);
      if (n.assignedDevice().empty())
        return Status(Code::kInvalidArgument,
                      "node '" + n.name() + "' has no assigned device: place the graph first",
                      n.loc(), n.name());
    }
    for (const std::string &d : opts_.devices)
      flops_[d];
    for (ir::NodeId id = 0; id < g_.numNodes(); ++id)
      visit(g_.node(id));
    collectParameters();
    for (auto &[key, t] : transfers_) {
      report_.totalBytes += t.bytes;
      report_.transfers.push_back(std::move(t));
    }
    for (auto &[device, f] : flops_) {
      report_.totalFlops += f;
      report_.compute.push_back(DeviceCompute{device, f});
    }
    checkPsBalance();
    checkTransferBound();
    return std::move(report_);
  }

private:
  void visit(const ir::Node &n) {
    const std::string &dst = n.assignedDevice();
    flops_[dst] += nodeFlops(g_, n);
    for (const ir::Output &in : n.inputs()) {
      const ir::Node &src = g_.node(in.node);
      if (src.assignedDevice() == dst || !sent_.insert({in, dst}).second)
        continue;
      cross(src, n, src.name() + ":" + std::to_string(in.index),
            valueBytes(src.outputType(in.index), src.outputShape(in.index)));
    }
    for (ir::NodeId c : n.controlInputs()) {
      const ir::Node &src = g_.node(c);
      if (src.assignedDevice() == dst || !sentControl_.insert({c, dst}).second)
        continue;
      cross(src, n, "^" + src.name(), SymbolicCount::monomial(kControlBytes, 0));
    }
  }

  void cross(const ir::Node &src, const ir::Node &reader, const std::string &value,
             const SymbolicCount &bytes) {
    DeviceTransfer &t = transfers_[{src.assignedDevice(), reader.assignedDevice()}];
    t.from = src.assignedDevice();
    t.to = reader.assignedDevice();
    ++t.tensors;
    t.bytes += bytes;
    if (atOne(bytes) > largest_.rank)
      largest_ = LargestTransfer{atOne(bytes), value, bytes, &reader, t.from, t.to};
  }

  void collectParameters() {
    std::map<std::string, TaskParameters> tasks;
    std::set<std::string> devices(opts_.devices.begin(), opts_.devices.end());
    for (ir::NodeId id = 0; id < g_.numNodes(); ++id)
      devices.insert(g_.node(id).assignedDevice());
    for (const std::string &d : devices)
      if (jobOf(d) == "ps")
        tasks[taskKey(d)].task = taskKey(d);
    for (ir::NodeId id = 0; id < g_.numNodes(); ++id) {
      const ir::Node &n = g_.node(id);
      if (!isParameter(n))
        continue;
      std::string key = taskKey(n.assignedDevice());
      TaskParameters &t = tasks[key];
      t.task = key;
      ++t.variables;
      SymbolicCount b = valueBytes(n.attr<ir::DType>("dtype"), n.attr<ir::Shape>("shape"));
      t.bytes += b;
      auto &big = largestVariable_[key];
      if (!big.first || atOne(b) > big.second)
        big = {&n, atOne(b)};
    }
    for (auto &[key, t] : tasks) {
      report_.totalParameters += t.bytes;
      report_.parameters.push_back(std::move(t));
    }
  }

  void checkPsBalance() {
    const TaskParameters *busiest = nullptr;
    __int128 total = 0;
    int n = 0;
    for (const TaskParameters &t : report_.parameters) {
      if (jobOf(t.task) != "ps")
        continue;
      ++n;
      total += t.bytes.known();
      if (!busiest || t.bytes.known() > busiest->bytes.known())
        busiest = &t;
    }
    if (n < 2 || total <= 0)
      return;
    __int128 most = busiest->bytes.known();
    if (2 * most <= total || 2 * n * most <= 3 * total)
      return;
    const ir::Node *var = largestVariable_[busiest->task].first;
    int64_t whole = static_cast<int64_t>(total);
    std::string msg = "ps task '" + busiest->task + "' holds " +
                      std::to_string(busiest->bytes.known()) + " of the " + std::to_string(whole) +
                      " parameter bytes on " + std::to_string(n) + " ps tasks (" +
                      percent(busiest->bytes.known(), whole) + ")";
    if (var)
      msg += "; its largest variable is '" + var->name() + "' (" +
             valueBytes(var->attr<ir::DType>("dtype"), var->attr<ir::Shape>("shape")).str() +
             " bytes)";
    msg += "; hint: more ps tasks, greedy_load_balancing_strategy, or partition the variable";
    report_.warnings.push_back(Status(Code::kFailedPrecondition, msg,
                                      var ? var->loc() : SourceLoc{},
                                      var ? var->name() : std::string()));
  }

  void checkTransferBound() {
    const SymbolicCount &bytes = report_.totalBytes, &flops = report_.totalFlops;
    if (!largest_.reader || flops.unsized > 0)
      return;
    std::set<int> degrees;
    for (const auto &[k, v] : bytes.terms)
      degrees.insert(k);
    for (const auto &[k, v] : flops.terms)
      degrees.insert(k);
    __int128 sum = 0;
    for (int k : degrees) {
      auto b = bytes.terms.find(k), f = flops.terms.find(k);
      __int128 diff = __int128(b == bytes.terms.end() ? 0 : b->second) -
                      (f == flops.terms.end() ? 0 : f->second);
      if (diff < 0)
        return;
      sum += diff;
    }
    if (sum <= 0)
      return;
    report_.warnings.push_back(Status(
        Code::kFailedPrecondition,
        bytes.str() + " bytes cross devices per step but the step computes only " + flops.str() +
            " FLOPs; the largest transfer is '" + largest_.value + "' (" + largest_.bytes.str() +
            " bytes, " + largest_.from + " -> " + largest_.to + "), read by '" +
            largest_.reader->name() +
            "'; hint: colocate the ops that exchange it, or add ps tasks to spread the traffic",
        largest_.reader->loc(), largest_.reader->name()));
  }

  const ir::Graph &g_;
  const CostOptions &opts_;
  CostReport report_;
  std::map<std::string, SymbolicCount> flops_;
  std::map<std::pair<std::string, std::string>, DeviceTransfer> transfers_;
  std::set<std::pair<ir::Output, std::string>> sent_;
  std::set<std::pair<ir::NodeId, std::string>> sentControl_;
  std::map<std::string, std::pair<const ir::Node *, int64_t>> largestVariable_;
  LargestTransfer largest_;
};

// Rows of cells, two spaces apart; the first `textColumns` columns are
// left-aligned, the rest (numbers) right-aligned.
std::string table(const std::vector<std::vector<std::string>> &rows, size_t textColumns) {
  std::vector<size_t> width;
  for (const auto &r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      width.resize(std::max(width.size(), r.size()));
      width[c] = std::max(width[c], r[c].size());
    }
  std::string out;
  for (const auto &r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      std::string pad(width[c] - r[c].size(), ' ');
      line += "  " + (c < textColumns ? r[c] + pad : pad + r[c]);
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  }
  return out;
}

} // namespace

SymbolicCount SymbolicCount::monomial(int64_t coefficient, int degree) {
  SymbolicCount c;
  if (coefficient < 0)
    c.unsized = 1;
  else if (coefficient > 0)
    c.terms[degree] = coefficient;
  return c;
}

SymbolicCount SymbolicCount::unsizedOne() {
  SymbolicCount c;
  c.unsized = 1;
  return c;
}

SymbolicCount &SymbolicCount::operator+=(const SymbolicCount &o) {
  for (const auto &[k, v] : o.terms) {
    int64_t &mine = terms[k];
    int64_t sum;
    if (__builtin_add_overflow(mine, v, &sum)) {
      ++unsized;
      continue;
    }
    mine = sum;
  }
  unsized += o.unsized;
  return *this;
}

int64_t SymbolicCount::known() const {
  auto it = terms.find(0);
  return it == terms.end() ? 0 : it->second;
}

bool SymbolicCount::isExact() const {
  return unsized == 0 && (terms.empty() || (terms.size() == 1 && terms.count(0)));
}

std::string SymbolicCount::str() const {
  std::string out;
  for (const auto &[k, v] : terms) {
    if (!out.empty())
      out += " + ";
    out += std::to_string(v);
    if (k > 0)
      out += "*?";
    if (k > 1)
      out += "^" + std::to_string(k);
  }
  if (unsized > 0)
    out += (out.empty() ? "" : " + ") + std::string("unsized(") + std::to_string(unsized) + ")";
  return out.empty() ? "0" : out;
}

SymbolicCount nodeFlops(const ir::Graph &g, const ir::Node &n) {
  const std::string &op = n.opName();
  if (op == "matmul" && n.numInputs() == 2)
    return matmulFlops(g, n);
  if (n.numOutputs() > 0 && isElementwise(op))
    return elements(n.outputShape(0), 1);
  if (op == "add_n" && n.numOutputs() > 0)
    return elements(n.outputShape(0), std::max(0, n.numInputs() - 1));
  if (isReduction(op) && n.numInputs() > 0)
    return elements(inputShape(g, n, 0), 1);
  if ((op == "softmax" || op == "log_softmax") && n.numOutputs() > 0)
    return elements(n.outputShape(0), 5);
  if ((op == "assign_add" || op == "assign_sub") && n.numInputs() > 1)
    return elements(inputShape(g, n, 1), 1);
  return {};
}

Expected<CostReport> estimateCost(const ir::Graph &g, const CostOptions &opts) {
  return CostEstimator(g, opts).run();
}

std::string formatCostReport(const CostReport &r) {
  std::string out;
  // Every row adds into its total, so a symbolic row makes its total one.
  bool symbolic =
      !r.totalBytes.isExact() || !r.totalParameters.isExact() || !r.totalFlops.isExact();
  if (r.transfers.empty()) {
    out += "bytes crossing devices per step: none\n";
  } else {
    out += "bytes crossing devices per step (one value per tensor and destination device):\n";
    std::vector<std::vector<std::string>> rows{{"from", "to", "tensors", "bytes"}};
    int tensors = 0;
    for (const DeviceTransfer &t : r.transfers) {
      rows.push_back({t.from, t.to, std::to_string(t.tensors), t.bytes.str()});
      tensors += t.tensors;
    }
    rows.push_back({"total", "", std::to_string(tensors), r.totalBytes.str()});
    out += table(rows, 2);
  }
  out += "\n";
  if (r.parameters.empty()) {
    out += "parameter bytes per task: none\n";
  } else {
    out += "parameter bytes per task (variables: elements * dtype size):\n";
    std::vector<std::vector<std::string>> rows{{"task", "variables", "bytes", "share"}};
    int variables = 0;
    int64_t whole = r.totalParameters.known();
    for (const TaskParameters &t : r.parameters) {
      rows.push_back({t.task, std::to_string(t.variables), t.bytes.str(),
                      whole > 0 ? percent(t.bytes.known(), whole) : "-"});
      variables += t.variables;
    }
    rows.push_back({"total", std::to_string(variables), r.totalParameters.str(), ""});
    out += table(rows, 1);
  }
  out += "\n";
  out += "FLOPs per device per step (matmul 2*M*N*K, elementwise 1 per element, reductions 1 "
         "per input element):\n";
  std::vector<std::vector<std::string>> rows{{"device", "flops"}};
  for (const DeviceCompute &c : r.compute)
    rows.push_back({c.device, c.flops.str()});
  rows.push_back({"total", r.totalFlops.str()});
  out += table(rows, 1);
  if (symbolic)
    out += "\nnotation: ? is an unknown dimension, every one taken as the same (usually the "
           "batch size), so 3136*? is 3136 per unit of it and ?^2 stands for two; unsized(n) "
           "counts n values or ops with no static size, left out of the sum\n";
  return out;
}

} // namespace sluice::passes
