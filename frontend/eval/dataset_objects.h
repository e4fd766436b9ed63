// frontend/eval/dataset_objects.h: the language's tf.data values. A
// dataset is a variant tensor plus the element's structure, dtypes and
// shapes; its methods add transformation nodes. An iterator is a resource
// handle whose get_next() rebuilds the structure.
#pragma once

#include "frontend/eval/objects.h"
#include "frontend/eval/structure.h"

namespace sluice::frontend {

/// What every element of a dataset looks like.
struct ElementSpec {
  Structure structure;
  std::vector<ir::DType> types;
  std::vector<ir::Shape> shapes;
};

class DatasetObject : public Object {
public:
  std::string typeName() const override { return "dataset"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;

  GraphContext *graph = nullptr;
  ir::Output handle;
  ElementSpec spec;
};

class IteratorObject : public HandleObject {
public:
  GraphContext *handleGraph() const override { return graph; }
  ir::Output handleOutput() const override { return {handle, 0}; }
  std::string typeName() const override { return "iterator"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;

  GraphContext *graph = nullptr;
  ir::NodeId handle = -1;
  ir::NodeId initializer = -1; // make_iterator; -1 for one-shot iterators
  ElementSpec spec;
};

/// A user function traced into a graph function for map or filter.
struct TracedFunction {
  std::string name;
  std::vector<ir::Output> captured; // outer tensors passed after the element
  ElementSpec result;
};

/// Traces `fn` called on an element of `in` (a tuple element is passed as
/// separate arguments, as tf.data does) into a function of the current
/// graph's library named after `what` and the function.
TracedFunction traceFunction(EvaluatorImpl &ev, const Value &fn, const ElementSpec &in,
                             const std::string &what, const SourceLoc &loc);

/// The dtypes / shapes of a spec as the language shows them: a structure
/// of dtypes, or of shapes (lists of ints and none).
Value specTypes(const ElementSpec &s);
Value specShapes(const ElementSpec &s);

} // namespace sluice::frontend
