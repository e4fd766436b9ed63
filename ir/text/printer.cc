// ir/text/printer.cc: writes a Graph as .sir text.
#include "ir/text/printer.h"

#include "ir/text/lexer.h"

namespace sluice::ir {

namespace {

std::string quote(const std::string &s) { return formatAttr(AttrValue(s)); }

bool isPlainName(const std::string &s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!detail::isNameChar(c))
      return false;
  return true;
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9'))
    return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  return true;
}

std::string ref(const Graph &g, NodeId id) {
  if (id < 0 || id >= g.numNodes())
    return "%\"<missing node " + std::to_string(id) + ">\"";
  const std::string &name = g.node(id).name();
  return "%" + (isPlainName(name) ? name : quote(name));
}

std::string shapeText(const Shape &s) { return s.hasRank() ? s.str() : "?"; }

// Id order is kept when it already puts producers first, because reparsing
// assigns ids in text order: printing the reparsed graph is then stable.
std::vector<NodeId> printOrder(const Graph &g) {
  bool idOrderOk = true;
  for (NodeId id = 0; id < g.numNodes() && idOrderOk; ++id) {
    const Node &n = g.node(id);
    for (const Output &in : n.inputs())
      idOrderOk &= in.node < id;
    for (NodeId c : n.controlInputs())
      idOrderOk &= c < id;
  }
  if (!idOrderOk) {
    auto topo = g.topologicalOrder();
    if (topo.hasValue())
      return std::move(*topo);
  }
  // A cyclic graph prints in id order; the parser reports the forward
  // reference.
  std::vector<NodeId> order(g.numNodes());
  for (NodeId id = 0; id < g.numNodes(); ++id)
    order[id] = id;
  return order;
}

} // namespace

std::string printNode(const Graph &g, const Node &n) {
  std::string out = ref(g, n.id()) + " = " + n.opName() + "(";
  for (int i = 0; i < n.numInputs(); ++i) {
    if (i)
      out += ", ";
    out +=
        ref(g, n.inputs()[i].node) + ":" + std::to_string(n.inputs()[i].index);
  }
  out += ")";
  for (NodeId c : n.controlInputs())
    out += " ^" + ref(g, c);
  if (!n.attrs().empty()) {
    out += " {";
    bool first = true;
    for (const auto &[name, value] : n.attrs()) {
      if (!first)
        out += ", ";
      first = false;
      out += isIdentifier(name) ? name : quote(name);
      const AttrDef *def = n.op().findAttr(name);
      if (!def || def->type != attrTypeOf(value))
        out += ": " + std::string(attrTypeName(attrTypeOf(value)));
      out += " = " + formatAttr(value);
    }
    out += "}";
  }
  out += " : (";
  for (int i = 0; i < n.numOutputs(); ++i) {
    if (i)
      out += ", ";
    out += std::string(dtypeName(n.outputType(i))) + " ";
    out += i < static_cast<int>(n.outputShapes().size())
               ? shapeText(n.outputShape(i))
               : "?";
  }
  out += ")";
  if (!n.requestedDevice().empty())
    out += " @" + quote(n.requestedDevice());
  if (!n.assignedDevice().empty())
    out += " assigned " + quote(n.assignedDevice());
  if (!n.colocateWith().empty())
    out += " colocate " + formatAttr(AttrValue(n.colocateWith()));
  if (n.loc().valid())
    out += " loc(" + quote(*n.loc().file) + ":" + std::to_string(n.loc().line) +
           ":" + std::to_string(n.loc().col) + ")";
  return out;
}

std::string printGraph(const Graph &g) {
  std::string out = "# sluice ir v1\n";
  for (NodeId id : printOrder(g)) {
    out += printNode(g, g.node(id));
    out += '\n';
  }
  for (const auto &[name, f] : g.functions().all()) {
    out += "\nfunc " + quote(name) + " {\n";
    for (NodeId id : printOrder(*f->body))
      out += "  " + printNode(*f->body, f->body->node(id)) + "\n";
    out += "  return";
    for (size_t i = 0; i < f->rets.size(); ++i)
      out += (i ? ", " : " ") + ref(*f->body, f->rets[i].node) + ":" +
             std::to_string(f->rets[i].index);
    out += "\n}\n";
  }
  return out;
}

} // namespace sluice::ir
