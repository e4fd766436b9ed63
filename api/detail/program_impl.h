// api/detail/program_impl.h: what a loaded Program keeps (the graph the
// file built, its initializers, queue runners and top-level names) and
// the conversions between the public and the internal types. Private to
// api/.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "sluice/sluice.h"
#include "support/status.h"
#include "tflib/input/queue_runner.h"

namespace sluice {

/// A name resolved to a graph output, or to a node run as a target.
struct NamedRef {
  ir::Output out;
  bool isOp = false; // a node with no fetchable output (a target)
};

struct Program::Impl {
  std::string path;
  std::unique_ptr<ir::Graph> graph;
  std::vector<ir::NodeId> initializers; // global, then local variables
  std::vector<tflib::QueueRunnerDef> queueRunners;
  std::map<std::string, NamedRef> globals; // top-level bindings of the file

  /// "x", "x:1", or a top-level name; not_found otherwise.
  Expected<NamedRef> resolve(const std::string &name) const;
};

namespace api {

/// An internal Status (not ok) as a public Error; `text` is the formatted
/// diagnostics when known.
Error toError(const Status &s, std::string text = {});
/// Copies out of / into the runtime's tensors; resource and variant
/// tensors cannot leave the graph (invalid_argument).
Expected<HostTensor> toHost(const ir::Tensor &t);
ir::Tensor toInternal(const HostTensor &t);
ir::DType toInternal(DType t);
DType toPublic(ir::DType t); // kInvalid for resource and variant

} // namespace api
} // namespace sluice
