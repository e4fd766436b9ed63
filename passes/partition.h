// passes/partition.h: splits a placed graph into one graph per device
// (TF's graph partitioner). Every data edge between devices becomes a
// send in the producer's partition and a recv in the consumer's, keyed in
// the rendezvous by (source device, incarnation, destination device,
// tensor name, frame:iteration); one recv per (tensor, destination).
// A control edge between devices becomes a send of a constant that runs
// after the source and a recv the destination waits for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace sluice::passes {

struct Partition {
  std::string device;
  std::unique_ptr<ir::Graph> graph;
};

struct PartitionedGraph {
  std::vector<Partition> parts;
  /// For each node of the input graph: its partition and id there.
  std::vector<std::pair<int, ir::NodeId>> where;
  /// An output of the input graph in its partition.
  std::pair<int, ir::Output> locate(ir::Output o) const {
    return {where[o.node].first, ir::Output{where[o.node].second, o.index}};
  }
};

/// Fails (invalid_argument naming the node) if a node has no assigned
/// device. A graph on one device gives one partition, a plain copy.
Expected<PartitionedGraph> partitionGraph(const ir::Graph &g);

} // namespace sluice::passes
