// ir/text/dot.cc: writes DOT directly; Boost's write_graphviz would need the
// BGL graph that ir/graph.cc keeps private, and gains nothing here.
#include "ir/text/dot.h"

#include <cstdio>
#include <map>

#include "ir/device_spec.h"

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

// ColorBrewer's Set3: light fills that keep black labels readable. Past
// twelve devices the colours repeat; the legend still tells them apart by
// name.
constexpr const char *kPalette[] = {"#8dd3c7", "#ffffb3", "#bebada", "#fb8072",
                                    "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
                                    "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"};

// "CPU:0" for a full device name (its box names the task); the whole name
// when it does not parse to a device type.
std::string shortDevice(const std::string &device) {
  auto d = DeviceSpec::parse(device);
  if (!d.hasValue() || !d->deviceType)
    return device;
  return *d->deviceType + ":" + (d->deviceIndex ? std::to_string(*d->deviceIndex) : "*");
}

bool validInput(const Graph &g, const Output &in) {
  return in.node >= 0 && in.node < g.numNodes() && in.index >= 0 &&
         in.index < g.node(in.node).numOutputs();
}

std::string nodeLine(const Graph &g, NodeId id, const DotOptions &opts,
                     const std::map<std::string, std::string> &colours) {
  const Node &n = g.node(id);
  std::string label = escape(n.name()) + "\\n" + escape(n.opName());
  std::string attrs;
  if (opts.byDevice && !n.assignedDevice().empty()) {
    label += "\\n" + escape(shortDevice(n.assignedDevice()));
    attrs = ", style=filled, fillcolor=\"" + colours.at(n.assignedDevice()) + "\"";
  } else {
    const std::string &device =
        n.assignedDevice().empty() ? n.requestedDevice() : n.assignedDevice();
    if (!device.empty())
      label += "\\n" + escape(device);
  }
  return "n" + std::to_string(id) + " [label=\"" + label + "\"" + attrs + "];\n";
}

// The clusters, one per task in name order, then the unplaced nodes and the
// legend.
std::string placedNodes(const Graph &g, const DotOptions &opts,
                        const std::map<std::string, std::string> &colours) {
  std::map<std::string, std::vector<NodeId>> byTask;
  std::vector<NodeId> loose;
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const std::string &device = g.node(id).assignedDevice();
    std::string task = device.empty() ? "" : taskOf(device);
    if (task.empty())
      loose.push_back(id);
    else
      byTask[task].push_back(id);
  }
  std::string out;
  int cluster = 0;
  for (const auto &[task, ids] : byTask) {
    out += "  subgraph cluster_" + std::to_string(cluster++) + " {\n";
    out += "    label=\"" + escape(task) + "\";\n";
    for (NodeId id : ids)
      out += "    " + nodeLine(g, id, opts, colours);
    out += "  }\n";
  }
  for (NodeId id : loose)
    out += "  " + nodeLine(g, id, opts, colours);
  if (colours.empty())
    return out;
  out += "  subgraph cluster_legend {\n    label=\"devices\";\n";
  int k = 0;
  for (const auto &[device, colour] : colours)
    out += "    legend_" + std::to_string(k++) + " [label=\"" + escape(device) +
           "\", style=filled, fillcolor=\"" + colour + "\"];\n";
  out += "    legend_edges [shape=plaintext, label=\"solid: data\\ndashed: data between "
         "devices\\ndotted: control\\nbold dotted: control between devices\"];\n";
  out += "  }\n";
  return out;
}

} // namespace

std::string writeDot(const Graph &g, const DotOptions &opts) {
  std::string out = "digraph sluice {\n";
  out += "  node [shape=box, fontname=\"monospace\"];\n";
  std::map<std::string, std::string> colours;
  if (opts.byDevice) {
    for (NodeId id = 0; id < g.numNodes(); ++id)
      if (!g.node(id).assignedDevice().empty())
        colours.emplace(g.node(id).assignedDevice(), "");
    size_t k = 0;
    for (auto &[device, colour] : colours)
      colour = kPalette[k++ % std::size(kPalette)];
    out += placedNodes(g, opts, colours);
  } else {
    for (NodeId id = 0; id < g.numNodes(); ++id)
      out += "  " + nodeLine(g, id, opts, colours);
  }
  // An edge crosses devices when both ends are placed, on different devices.
  auto crosses = [&](NodeId a, NodeId b) {
    const std::string &da = g.node(a).assignedDevice(), &db = g.node(b).assignedDevice();
    return opts.byDevice && !da.empty() && !db.empty() && da != db;
  };
  for (NodeId id = 0; id < g.numNodes(); ++id) {
    const Node &n = g.node(id);
    // Edges from missing nodes or outputs (a broken graph, which the
    // verifier reports) are left out rather than drawn wrong.
    for (const Output &in : n.inputs()) {
      if (!validInput(g, in))
        continue;
      const Node &src = g.node(in.node);
      std::string label;
      if (in.index > 0)
        label += ":" + std::to_string(in.index) + " ";
      label += std::string(dtypeName(src.outputType(in.index))) + " ";
      const Shape &s = src.outputShape(in.index);
      label += s.hasRank() ? s.str() : "?";
      out += "  n" + std::to_string(in.node) + " -> n" + std::to_string(id) + " [label=\"" +
             escape(label) + "\"" + (crosses(in.node, id) ? ", style=dashed" : "") + "];\n";
    }
    for (NodeId c : n.controlInputs())
      if (c >= 0 && c < g.numNodes())
        out += "  n" + std::to_string(c) + " -> n" + std::to_string(id) +
               (crosses(c, id) ? " [style=\"dotted,bold\"];\n" : " [style=dotted];\n");
  }
  return out + "}\n";
}

} // namespace sluice::ir
