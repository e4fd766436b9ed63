// frontend/eval/reader_object.h: the language's reader value (TF1's
// ReaderBase in Python): its handle node and methods that build the reader
// ops (read, read_up_to, num_records_produced, ..., reset).
#pragma once

#include "frontend/eval/objects.h"

namespace sluice::frontend {

class ReaderObject : public HandleObject {
public:
  ReaderObject(GraphContext *g, ir::NodeId h, std::string kind)
      : graph(g), handle(h), kind(std::move(kind)) {}
  GraphContext *handleGraph() const override { return graph; }
  ir::Output handleOutput() const override { return {handle, 0}; }
  std::string typeName() const override { return "reader"; }
  std::optional<Value> getAttr(EvaluatorImpl &ev, const std::string &name) override;
  std::string repr() const override;

  GraphContext *graph;
  ir::NodeId handle;
  std::string kind; // "TextLineReader", ...
};

} // namespace sluice::frontend
