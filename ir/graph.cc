// ir/graph.cc: node storage, validation on insertion, and edge queries over
// a Boost.Graph adjacency_list.
#include "ir/graph.h"

#include <algorithm>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/topological_sort.hpp>

#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {
struct EdgeProp {
  int srcOutput = 0;
  int dstInput = -1; // -1: control edge
};
using BglGraph = boost::adjacency_list<boost::vecS, boost::vecS,
                                       boost::bidirectionalS,
                                       boost::no_property, EdgeProp>;
} // namespace

struct Graph::Edges {
  BglGraph g;
};

Graph::Graph() : edges_(std::make_unique<Edges>()) {}
Graph::~Graph() = default;

std::string Node::describe() const {
  std::string s = "node '" + name_ + "' (" + op_->name + ")";
  if (loc_.valid())
    s += " created at " + loc_.str();
  return s;
}

Node *Graph::findNode(std::string_view name) {
  auto it = byName_.find(std::string(name));
  return it == byName_.end() ? nullptr : nodes_[it->second].get();
}
const Node *Graph::findNode(std::string_view name) const {
  return const_cast<Graph *>(this)->findNode(name);
}
bool Graph::isNameUsed(std::string_view name) const {
  return byName_.count(std::string(name)) > 0;
}

std::string Graph::uniqueName(const std::string &base) const {
  if (!isNameUsed(base))
    return base;
  // Remember where the search for each base stopped (as TF's
  // unique_name does), so naming n nodes alike is linear, not quadratic.
  int &next = nextSuffix_[base];
  if (next == 0)
    next = 1;
  for (;; ++next) {
    std::string candidate = base + "_" + std::to_string(next);
    if (!isNameUsed(candidate))
      return candidate;
  }
}

namespace {

Status attrError(const NodeSpec &spec, std::string msg) {
  return Status(Code::kInvalidArgument, std::move(msg), spec.loc, spec.name);
}

bool typeAllowed(const AttrDef &def, DType t) {
  if (def.allowed.empty())
    return true;
  for (DType a : def.allowed)
    if (a == t)
      return true;
  return false;
}

std::string allowedList(const AttrDef &def) {
  std::string s;
  for (DType a : def.allowed) {
    if (!s.empty())
      s += ", ";
    s += dtypeName(a);
  }
  return s;
}

} // namespace

// Matches flat inputs to the op's argument list, binding type and number
// attrs as TF's op_def_library does, then fills defaults.
static Status bindInputs(const OpDef &op, NodeSpec &spec,
                         const std::vector<DType> &inputTypes) {
  int numFixed = 0, numListsUnsized = 0;
  for (const auto &arg : op.inputs) {
    if (!arg.isList())
      ++numFixed;
    else if (!arg.numberAttr.empty() && !spec.attrs.count(arg.numberAttr))
      ++numListsUnsized;
    else if (!arg.typeListAttr.empty() && !spec.attrs.count(arg.typeListAttr))
      ++numListsUnsized;
  }
  int sizedListTotal = 0;
  for (const auto &arg : op.inputs) {
    if (!arg.numberAttr.empty() && spec.attrs.count(arg.numberAttr))
      sizedListTotal += static_cast<int>(std::get<int64_t>(spec.attrs[arg.numberAttr]));
    else if (!arg.typeListAttr.empty() && spec.attrs.count(arg.typeListAttr))
      sizedListTotal += static_cast<int>(
          std::get<std::vector<DType>>(spec.attrs[arg.typeListAttr]).size());
  }
  int n = static_cast<int>(inputTypes.size());
  int free = n - numFixed - sizedListTotal;
  if (numListsUnsized > 1 || free < 0 || (numListsUnsized == 0 && free != 0)) {
    int expected = numFixed + sizedListTotal;
    return attrError(spec, op.name + " expects " + std::to_string(expected) +
                               " input" + (expected == 1 ? "" : "s") +
                               " but got " + std::to_string(n));
  }
  int pos = 0;
  for (const auto &arg : op.inputs) {
    int count = 1;
    if (!arg.numberAttr.empty()) {
      if (!spec.attrs.count(arg.numberAttr))
        spec.attrs[arg.numberAttr] = static_cast<int64_t>(free);
      count = static_cast<int>(std::get<int64_t>(spec.attrs[arg.numberAttr]));
    } else if (!arg.typeListAttr.empty()) {
      if (!spec.attrs.count(arg.typeListAttr))
        spec.attrs[arg.typeListAttr] = std::vector<DType>(
            inputTypes.begin() + pos, inputTypes.begin() + pos + free);
      const auto &types = std::get<std::vector<DType>>(spec.attrs[arg.typeListAttr]);
      for (size_t k = 0; k < types.size(); ++k)
        if (types[k] != inputTypes[pos + k])
          return attrError(spec, "input '" + arg.name + "' element " +
                                     std::to_string(k) + " of " + op.name +
                                     " has dtype " +
                                     std::string(dtypeName(inputTypes[pos + k])) +
                                     " but " +
                                     std::string(dtypeName(types[k])) +
                                     " was declared");
      pos += static_cast<int>(types.size());
      continue;
    }
    for (int k = 0; k < count; ++k, ++pos) {
      DType got = inputTypes[pos];
      std::string argName = arg.isList() ? arg.name + "[" + std::to_string(k) + "]" : arg.name;
      if (arg.fixedType != DType::kInvalid) {
        if (got != arg.fixedType)
          return attrError(spec, "input '" + argName + "' of " + op.name +
                                     " must be " +
                                     std::string(dtypeName(arg.fixedType)) +
                                     ", got " + std::string(dtypeName(got)));
        continue;
      }
      auto it = spec.attrs.find(arg.typeAttr);
      if (it == spec.attrs.end()) {
        spec.attrs[arg.typeAttr] = got;
      } else if (std::get<DType>(it->second) != got) {
        return attrError(spec, "input '" + argName + "' of " + op.name +
                                   " has dtype " + std::string(dtypeName(got)) +
                                   " that does not match dtype " +
                                   std::string(dtypeName(std::get<DType>(it->second))) +
                                   " of the other inputs");
      }
    }
  }
  return Status::ok();
}

static Status checkAttrs(const OpDef &op, NodeSpec &spec) {
  for (const auto &[name, value] : spec.attrs) {
    const AttrDef *def = op.findAttr(name);
    if (!def)
      return attrError(spec, "op " + op.name + " has no attribute '" + name + "'");
    if (attrTypeOf(value) != def->type)
      return attrError(spec, "attribute '" + name + "' of " + op.name +
                                 " must be " +
                                 std::string(attrTypeName(def->type)) +
                                 ", got " +
                                 std::string(attrTypeName(attrTypeOf(value))));
  }
  for (const auto &def : op.attrs) {
    auto it = spec.attrs.find(def.name);
    if (it == spec.attrs.end()) {
      if (def.optional)
        continue;
      if (!def.defaultValue)
        return attrError(spec, op.name + " needs attribute '" + def.name + "'");
      it = spec.attrs.emplace(def.name, *def.defaultValue).first;
    }
    if (def.type == AttrType::kType &&
        !typeAllowed(def, std::get<DType>(it->second)))
      return attrError(spec, op.name + " does not support dtype " +
                                 std::string(dtypeName(std::get<DType>(it->second))) +
                                 " (allowed: " + allowedList(def) + ")");
    if (def.minimum && def.type == AttrType::kInt &&
        std::get<int64_t>(it->second) < *def.minimum)
      return attrError(spec, "attribute '" + def.name + "' of " + op.name +
                                 " must be at least " +
                                 std::to_string(*def.minimum) + ", got " +
                                 std::to_string(std::get<int64_t>(it->second)));
  }
  return Status::ok();
}

static std::vector<DType> outputTypesOf(const OpDef &op, const NodeSpec &spec) {
  std::vector<DType> out;
  for (const auto &arg : op.outputs) {
    if (!arg.typeListAttr.empty()) {
      for (DType t : std::get<std::vector<DType>>(spec.attrs.find(arg.typeListAttr)->second))
        out.push_back(t);
      continue;
    }
    DType t = arg.fixedType != DType::kInvalid
                  ? arg.fixedType
                  : std::get<DType>(spec.attrs.find(arg.typeAttr)->second);
    int count = arg.numberAttr.empty()
                    ? 1
                    : static_cast<int>(std::get<int64_t>(spec.attrs.find(arg.numberAttr)->second));
    for (int k = 0; k < count; ++k)
      out.push_back(t);
  }
  return out;
}

Expected<Node *> Graph::addNode(NodeSpec spec) {
  if (finalized_)
    return Status(Code::kRuntimeError, "Graph is finalized and cannot be modified.",
                  spec.loc);
  const OpDef *op = opRegistry().find(spec.op);
  if (!op)
    return Status(Code::kInvalidArgument, "unknown op '" + spec.op + "'", spec.loc);
  if (spec.name.empty())
    spec.name = uniqueName(spec.op);
  if (isNameUsed(spec.name))
    return Status(Code::kInvalidArgument,
                  "duplicate node name '" + spec.name + "'", spec.loc);
  std::vector<DType> inputTypes;
  std::vector<Shape> inputShapes;
  for (const Output &in : spec.inputs) {
    if (in.node < 0 || in.node >= numNodes() ||
        in.index >= nodes_[in.node]->numOutputs() || in.index < 0)
      return attrError(spec, "input refers to a missing node output");
    inputTypes.push_back(nodes_[in.node]->outputType(in.index));
    inputShapes.push_back(nodes_[in.node]->outputShape(in.index));
  }
  for (NodeId c : spec.controlInputs)
    if (c < 0 || c >= numNodes())
      return attrError(spec, "control input refers to a missing node");

  SLUICE_TRY(bindInputs(*op, spec, inputTypes));
  if (op->attrFn) {
    Status s = op->attrFn(spec, inputShapes);
    if (!s.isOk())
      return Status(s.code(), s.message(), spec.loc, spec.name);
  }
  SLUICE_TRY(checkAttrs(*op, spec));
  // A count attr (num, num_split) decides how many outputs there are; an
  // absurd one from a bad file must be an error, not an allocation.
  constexpr int64_t kMaxOutputs = int64_t(1) << 16;
  for (const auto &arg : op->outputs)
    if (!arg.numberAttr.empty()) {
      auto it = spec.attrs.find(arg.numberAttr);
      if (it != spec.attrs.end() && std::holds_alternative<int64_t>(it->second) &&
          (std::get<int64_t>(it->second) < 0 || std::get<int64_t>(it->second) > kMaxOutputs))
        return attrError(spec, op->name + " would have " +
                                   std::to_string(std::get<int64_t>(it->second)) +
                                   " outputs (limit " + std::to_string(kMaxOutputs) + ")");
    }
  std::vector<DType> outTypes = outputTypesOf(*op, spec);
  std::vector<Shape> outShapes(outTypes.size());
  if (op->shapeFn) {
    InferenceContext ctx(*this, spec, *op, inputTypes, inputShapes, outTypes,
                         outShapes);
    Status s = op->shapeFn(ctx);
    if (!s.isOk())
      return Status(s.code(), s.message(), spec.loc, spec.name);
  }

  auto node = std::make_unique<Node>();
  node->id_ = static_cast<NodeId>(nodes_.size());
  node->name_ = std::move(spec.name);
  node->op_ = op;
  node->attrs_ = std::move(spec.attrs);
  node->inputs_ = std::move(spec.inputs);
  node->controlInputs_ = std::move(spec.controlInputs);
  node->outputTypes_ = std::move(outTypes);
  node->outputShapes_ = std::move(outShapes);
  node->requestedDevice_ = std::move(spec.requestedDevice);
  node->colocateWith_ = std::move(spec.colocateWith);
  node->loc_ = std::move(spec.loc);

  auto v = boost::add_vertex(edges_->g);
  (void)v;
  for (int i = 0; i < node->numInputs(); ++i)
    boost::add_edge(node->inputs_[i].node, node->id_,
                    EdgeProp{node->inputs_[i].index, i}, edges_->g);
  for (NodeId c : node->controlInputs_)
    boost::add_edge(c, node->id_, EdgeProp{0, -1}, edges_->g);
  byName_[node->name_] = node->id_;
  nodes_.push_back(std::move(node));
  return nodes_.back().get();
}

std::vector<Use> Graph::consumers(NodeId id) const {
  std::vector<Use> out;
  for (auto [it, end] = boost::out_edges(id, edges_->g); it != end; ++it) {
    const EdgeProp &p = edges_->g[*it];
    out.push_back(Use{static_cast<NodeId>(boost::target(*it, edges_->g)),
                      p.dstInput, p.srcOutput});
  }
  return out;
}

void Graph::replaceUses(Output from, Output to) {
  std::vector<std::pair<NodeId, int>> moved;
  for (auto [it, end] = boost::out_edges(from.node, edges_->g); it != end; ++it) {
    const EdgeProp &p = edges_->g[*it];
    if (p.dstInput >= 0 && p.srcOutput == from.index)
      moved.emplace_back(static_cast<NodeId>(boost::target(*it, edges_->g)),
                         p.dstInput);
  }
  for (auto [dst, input] : moved) {
    boost::remove_out_edge_if(
        from.node,
        [&](const auto &e) {
          const EdgeProp &p = edges_->g[e];
          return static_cast<NodeId>(boost::target(e, edges_->g)) == dst &&
                 p.dstInput == input;
        },
        edges_->g);
    boost::add_edge(to.node, dst, EdgeProp{to.index, input}, edges_->g);
    nodes_[dst]->inputs_[input] = to;
  }
}

void Graph::addControlInput(NodeId node, NodeId control) {
  for (NodeId c : nodes_[node]->controlInputs_)
    if (c == control)
      return;
  nodes_[node]->controlInputs_.push_back(control);
  boost::add_edge(control, node, EdgeProp{0, -1}, edges_->g);
}

void Graph::replaceControlUses(NodeId from, NodeId to) {
  std::vector<NodeId> moved;
  for (auto [it, end] = boost::out_edges(from, edges_->g); it != end; ++it)
    if (edges_->g[*it].dstInput < 0)
      moved.push_back(static_cast<NodeId>(boost::target(*it, edges_->g)));
  for (NodeId dst : moved) {
    boost::remove_out_edge_if(
        from,
        [&](const auto &e) {
          return static_cast<NodeId>(boost::target(e, edges_->g)) == dst &&
                 edges_->g[e].dstInput < 0;
        },
        edges_->g);
    auto &controls = nodes_[dst]->controlInputs_;
    controls.erase(std::remove(controls.begin(), controls.end(), from), controls.end());
    addControlInput(dst, to);
  }
}

Expected<std::vector<NodeId>> Graph::topologicalOrder() const {
  // Kahn's algorithm: iterative (deep chains must not recurse) and it names
  // a node on the cycle when there is one.
  std::vector<int> pending(nodes_.size(), 0);
  for (const auto &n : nodes_)
    pending[n->id()] = static_cast<int>(boost::in_degree(n->id(), edges_->g));
  std::vector<NodeId> order, ready;
  for (const auto &n : nodes_)
    if (pending[n->id()] == 0)
      ready.push_back(n->id());
  // Visit in id order where possible so the order is stable.
  std::reverse(ready.begin(), ready.end());
  while (!ready.empty()) {
    NodeId id = ready.back();
    ready.pop_back();
    order.push_back(id);
    for (auto [it, end] = boost::out_edges(id, edges_->g); it != end; ++it) {
      auto dst = boost::target(*it, edges_->g);
      if (--pending[dst] == 0)
        ready.push_back(static_cast<NodeId>(dst));
    }
  }
  if (order.size() != nodes_.size()) {
    for (const auto &n : nodes_)
      if (pending[n->id()] > 0)
        return Status(Code::kFailedPrecondition,
                      "graph has a cycle through " + n->describe(), n->loc(),
                      n->name());
  }
  return order;
}

Status Graph::reinfer(NodeId id) {
  Node &n = *nodes_[id];
  if (!n.op().shapeFn)
    return Status::ok();
  NodeSpec spec;
  spec.name = n.name_;
  spec.op = n.opName();
  spec.attrs = n.attrs_;
  spec.inputs = n.inputs_;
  spec.loc = n.loc_;
  std::vector<DType> inTypes;
  std::vector<Shape> inShapes;
  for (const Output &in : n.inputs_) {
    inTypes.push_back(nodes_[in.node]->outputType(in.index));
    inShapes.push_back(nodes_[in.node]->outputShape(in.index));
  }
  std::vector<DType> outTypes = n.outputTypes_;
  std::vector<Shape> outShapes(outTypes.size());
  InferenceContext ctx(*this, spec, n.op(), inTypes, inShapes, outTypes, outShapes);
  Status s = n.op().shapeFn(ctx);
  if (!s.isOk())
    return Status(s.code(), s.message(), n.loc_, n.name_);
  n.outputShapes_ = std::move(outShapes);
  return Status::ok();
}

std::unique_ptr<Graph> Graph::clone() const {
  auto g = std::make_unique<Graph>();
  for (const auto &n : nodes_) {
    auto copy = std::make_unique<Node>(*n);
    g->byName_[copy->name_] = copy->id_;
    g->nodes_.push_back(std::move(copy));
  }
  g->edges_->g = edges_->g;
  // A copy is a new graph that passes may rewrite; finalizing is about
  // the program adding nodes to this one (TF's Python Graph.finalize).
  g->functions_ = functions_; // bodies are immutable and shared
  return g;
}

void Graph::swap(Graph &other) {
  std::swap(nodes_, other.nodes_);
  std::swap(byName_, other.byName_);
  std::swap(nextSuffix_, other.nextSuffix_);
  std::swap(edges_, other.edges_);
  std::swap(finalized_, other.finalized_);
  std::swap(functions_, other.functions_);
}

} // namespace sluice::ir
