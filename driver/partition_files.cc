// driver/partition_files.cc: one .sir text per partition, with file names
// derived from the device names.
#include "driver/partition_files.h"

#include <algorithm>
#include <set>

#include "ir/text/printer.h"

namespace sluice::driver {

std::string deviceFileStem(std::string_view device) {
  if (!device.empty() && device.front() == '/')
    device.remove_prefix(1);
  std::string stem;
  for (char c : device) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '.' || c == '-';
    stem += plain ? c : '_';
  }
  // "", "." and ".." would name no file or a directory.
  if (stem.find_first_not_of('.') == std::string::npos)
    stem = "device" + stem;
  return stem;
}

std::vector<PartitionFile> partitionFiles(const passes::PartitionedGraph &split) {
  std::vector<const passes::Partition *> parts;
  for (const passes::Partition &p : split.parts)
    parts.push_back(&p);
  std::sort(parts.begin(), parts.end(), [](const passes::Partition *a, const passes::Partition *b) {
    return a->device < b->device;
  });
  std::vector<PartitionFile> out;
  std::set<std::string> used;
  for (const passes::Partition *p : parts) {
    PartitionFile f;
    f.device = p->device;
    std::string stem = deviceFileStem(p->device);
    // Distinct devices can share a stem ("a:b" and "a_b"); the index line
    // tells which file holds which device.
    f.fileName = stem + ".sir";
    for (int k = 2; !used.insert(f.fileName).second; ++k)
      f.fileName = stem + "_" + std::to_string(k) + ".sir";
    f.text = ir::printGraph(*p->graph);
    f.nodes = p->graph->numNodes();
    for (ir::NodeId id = 0; id < p->graph->numNodes(); ++id) {
      f.sends += p->graph->node(id).opName() == "send";
      f.recvs += p->graph->node(id).opName() == "recv";
    }
    out.push_back(std::move(f));
  }
  return out;
}

} // namespace sluice::driver
