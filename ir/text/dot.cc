// ir/text/dot.cc: writes DOT directly; Boost's write_graphviz would need the
// BGL graph that ir/graph.cc keeps private, and gains nothing here.
#include "ir/text/dot.h"

#include <cstdio>

namespace sluice::ir {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 if the bytes there are
// not one (Graphviz rejects invalid UTF-8 input).
size_t utf8Length(const std::string &s, size_t i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = 0;
  if (c >= 0xc2 && c <= 0xdf)
    len = 2;
  else if (c >= 0xe0 && c <= 0xef)
    len = 3;
  else if (c >= 0xf0 && c <= 0xf4)
    len = 4;
  if (len == 0 || i + len > s.size())
    return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 0;
  return len;
}

// The inside of a DOT double-quoted string. A backslash is doubled so that
// Graphviz's escString codes (\N, \G, \l) in names stay literal.
std::string escape(const std::string &s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else if (size_t len = c >= 0x80 ? utf8Length(s, i) : 0) {
      out.append(s, i, len);
      i += len - 1;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

} // namespace

std::string writeDot(const Graph &g) {
  std::string out = "digraph sluice {\n";
  out += "  node [shape=box, fontname=\"monospace\"];\n";
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const Node &n = g.node(id);
    std::string label = escape(n.name()) + "\\n" + escape(n.opName());
    const std::string &device =
        n.assignedDevice().empty() ? n.requestedDevice() : n.assignedDevice();
    if (!device.empty())
      label += "\\n" + escape(device);
    out += "  n" + std::to_string(id) + " [label=\"" + label + "\"];\n";
  }
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const Node &n = g.node(id);
    // Edges from missing nodes or outputs (a broken graph, which the
    // verifier reports) are left out rather than drawn wrong.
    for (const Output &in : n.inputs()) {
      if (in.node < 0 || in.node >= g.numNodes() || in.index < 0 ||
          in.index >= g.node(in.node).numOutputs())
        continue;
      const Node &src = g.node(in.node);
      std::string label;
      if (in.index > 0)
        label += ":" + std::to_string(in.index) + " ";
      label += std::string(dtypeName(src.outputType(in.index))) + " ";
      const Shape &s = src.outputShape(in.index);
      label += s.hasRank() ? s.str() : "?";
      out += "  n" + std::to_string(in.node) + " -> n" + std::to_string(id) +
             " [label=\"" + escape(label) + "\"];\n";
    }
    for (NodeId c : n.controlInputs())
      if (c >= 0 && c < g.numNodes())
        out += "  n" + std::to_string(c) + " -> n" + std::to_string(id) +
               " [style=dashed];\n";
  }
  return out + "}\n";
}

} // namespace sluice::ir
