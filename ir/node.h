// ir/node.h: one op instance in a Graph.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/attr.h"
#include "ir/op_def.h"
#include "support/source_loc.h"

namespace sluice::ir {

using NodeId = int32_t;
constexpr NodeId kNoNode = -1;

/// One output of one node: the value an edge carries.
struct Output {
  NodeId node = kNoNode;
  int index = 0;
  bool operator==(const Output &o) const {
    return node == o.node && index == o.index;
  }
  bool operator<(const Output &o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

class Node {
public:
  NodeId id() const { return id_; }
  const std::string &name() const { return name_; }
  const OpDef &op() const { return *op_; }
  const std::string &opName() const { return op_->name; }

  const AttrMap &attrs() const { return attrs_; }
  /// Typed access; the attr must exist with that type (filled with
  /// defaults when the node was added).
  template <typename T> const T &attr(std::string_view name) const {
    return std::get<T>(attrs_.find(name)->second);
  }
  bool hasAttr(std::string_view name) const { return attrs_.find(name) != attrs_.end(); }
  void setAttr(std::string name, AttrValue v) { attrs_[std::move(name)] = std::move(v); }

  const std::vector<Output> &inputs() const { return inputs_; }
  const std::vector<NodeId> &controlInputs() const { return controlInputs_; }
  int numInputs() const { return static_cast<int>(inputs_.size()); }
  int numOutputs() const { return static_cast<int>(outputTypes_.size()); }

  DType outputType(int i) const { return outputTypes_[i]; }
  const Shape &outputShape(int i) const { return outputShapes_[i]; }
  const std::vector<DType> &outputTypes() const { return outputTypes_; }
  const std::vector<Shape> &outputShapes() const { return outputShapes_; }
  void setOutputShape(int i, Shape s) { outputShapes_[i] = std::move(s); }

  /// The device asked for by scopes and device functions (TF's op.device).
  const std::string &requestedDevice() const { return requestedDevice_; }
  void setRequestedDevice(std::string d) { requestedDevice_ = std::move(d); }
  /// The device the placer chose; empty before placement.
  const std::string &assignedDevice() const { return assignedDevice_; }
  void setAssignedDevice(std::string d) { assignedDevice_ = std::move(d); }
  /// Names of nodes this one must be colocated with.
  const std::vector<std::string> &colocateWith() const { return colocateWith_; }
  void addColocation(std::string n) { colocateWith_.push_back(std::move(n)); }

  const SourceLoc &loc() const { return loc_; }
  /// "node 'name' (op) at file:line:col" for messages.
  std::string describe() const;

private:
  friend class Graph;
  NodeId id_ = kNoNode;
  std::string name_;
  const OpDef *op_ = nullptr;
  AttrMap attrs_;
  std::vector<Output> inputs_;
  std::vector<NodeId> controlInputs_;
  std::vector<DType> outputTypes_;
  std::vector<Shape> outputShapes_;
  std::string requestedDevice_;
  std::string assignedDevice_;
  std::vector<std::string> colocateWith_;
  SourceLoc loc_;
};

/// What a builder passes to Graph::addNode.
struct NodeSpec {
  std::string name;
  std::string op;
  AttrMap attrs;
  std::vector<Output> inputs;
  std::vector<NodeId> controlInputs;
  std::string requestedDevice;
  std::vector<std::string> colocateWith;
  SourceLoc loc;
};

} // namespace sluice::ir
