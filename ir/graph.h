// ir/graph.h: the dataflow graph. Nodes live in a vector indexed by NodeId;
// edges are kept in a Boost.Graph adjacency_list (private to ir/) that
// answers consumer and ordering queries.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/node.h"
#include "support/status.h"

namespace sluice::ir {

/// A consumer of some node: which node, which of its inputs (-1 = control).
struct Use {
  NodeId node;
  int inputIndex;
  int outputIndex; // the producer's output index (unused for control)
};

class Graph {
public:
  Graph();
  ~Graph();
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  /// A deep copy (nodes, edges, attrs), not finalized.
  std::unique_ptr<Graph> clone() const;
  /// Exchanges the whole contents (nodes, edges, functions, finalized)
  /// with `other`: restores a clone taken earlier in place, so that
  /// pointers to this Graph (a session's) stay valid.
  void swap(Graph &other);

  /// Validates `spec` against its OpDef (arity, attrs, dtypes), fills
  /// default attrs, infers output dtypes and static shapes, and adds it.
  /// Errors carry spec.loc and name the node.
  Expected<Node *> addNode(NodeSpec spec);

  int numNodes() const { return static_cast<int>(nodes_.size()); }
  Node &node(NodeId id) { return *nodes_[id]; }
  const Node &node(NodeId id) const { return *nodes_[id]; }
  Node *findNode(std::string_view name);
  const Node *findNode(std::string_view name) const;

  /// `base` if unused, else `base_1`, `base_2`, ... (TF's unique_name).
  std::string uniqueName(const std::string &base) const;
  bool isNameUsed(std::string_view name) const;

  /// Every use of `id`'s outputs (data) and of `id` as a control input.
  std::vector<Use> consumers(NodeId id) const;
  /// Rewires every data use of `from` to read `to` instead.
  void replaceUses(Output from, Output to);
  void addControlInput(NodeId node, NodeId control);
  /// Every node waiting on `from` (a control input) waits on `to` instead.
  void replaceControlUses(NodeId from, NodeId to);

  /// Nodes in an order where producers come before consumers;
  /// failed_precondition naming a node on a cycle if there is one.
  Expected<std::vector<NodeId>> topologicalOrder() const;

  /// Once finalized, addNode fails (TF's Graph.finalize()).
  void finalize() { finalized_ = true; }
  bool isFinalized() const { return finalized_; }

  /// Re-runs dtype/shape inference on one node (after its inputs changed).
  Status reinfer(NodeId id);

  /// The functions this graph's nodes name (map and filter bodies).
  FunctionLibrary &functions() { return functions_; }
  const FunctionLibrary &functions() const { return functions_; }

private:
  struct Edges;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, NodeId> byName_;
  mutable std::unordered_map<std::string, int> nextSuffix_;
  std::unique_ptr<Edges> edges_;
  bool finalized_ = false;
  FunctionLibrary functions_;
};

} // namespace sluice::ir
