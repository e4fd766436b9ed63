// sluice/sluice.h: the public C++ API. Load a .sluice file (or source
// text) into a Program, open Sessions on it, feed host tensors and fetch
// results by name. Only standard headers and <sluice/...> are included;
// the compiler's internals stay behind the pimpl.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/host_tensor.h"
#include "sluice/status.h"

namespace sluice {

/// How a file is evaluated.
struct LoadOptions {
  /// Top-level statements always run and build the graph. Session blocks
  /// are skipped unless this is set (then they run as `sluice run` runs
  /// them, in sessions of their own that end with the block: their
  /// variables are not those of the Program's Sessions). Test blocks are
  /// skipped.
  bool runSessionBlocks = false;
  /// Globals bound before the file runs, as `sluice run --set NAME=VALUE`
  /// binds them: integers, floats, true/false/none keep their type, any
  /// other text is a string.
  std::map<std::string, std::string> globals;
  /// Where print() writes (null: standard output) and warnings go (null:
  /// standard error).
  std::ostream *out = nullptr;
  std::ostream *err = nullptr;
};

/// A graph tensor found by name.
struct TensorInfo {
  std::string node;  // the node's name: "batch"
  int index = 0;     // which output: 1 for "batch:1"
  DType dtype = DType::kInvalid; // kInvalid for resource and variant outputs
  /// The static shape; -1 for an unknown dimension. `rankKnown` false:
  /// nothing is known about the shape.
  std::vector<int64_t> shape;
  bool rankKnown = false;
};

/// TF's ConfigProto fields a test may want.
struct SessionOptions {
  int interOpThreads = 0; // 0: one per hardware thread
  int intraOpThreads = 0;
  /// Every run fails with deadline_exceeded after this long (0: no limit),
  /// so a test waiting on an empty queue fails instead of hanging.
  int64_t operationTimeoutMs = 0;
  int cpus = 1; // CPU devices (device_count: {"CPU": n})
  /// A run waiting on a queue that nothing can fill (no runner thread
  /// alive, no other run in flight) fails with failed_precondition "run
  /// stalled: ..." instead of hanging, as in `sluice run`.
  bool stallDetection = true;
};

class Session;

/// The graph a .sluice file builds. Copies share the graph; a Program
/// outlives nothing (sessions keep what they need alive).
///
/// Names: "x" or "x:1" is an output of the node named x (TF's names:
/// `name:` arguments, or the defaults such as `add_1`, `batch`). When no
/// node has that name, it is looked up among the file's top-level
/// variables: a tensor (`features, labels = batch(...)` makes "features"
/// and "labels"), an op (`init = global_variables_initializer()`, a
/// target) or a variable (fetching it reads its value).
class Program {
public:
  /// Evaluates a file; syntax and evaluation errors come back with their
  /// file:line:col. Relative paths in the graph (reader files) are
  /// relative to the working directory when the session runs.
  static Result<Program> load(const std::string &path, const LoadOptions &opts = {});
  /// Evaluates source text as if it were the file `path`.
  static Result<Program> fromString(const std::string &source, const LoadOptions &opts = {},
                                    const std::string &path = "<string>");

  /// The tensor a name stands for (see the class comment); not_found
  /// when nothing has that name.
  Result<TensorInfo> tensor(const std::string &name) const;
  /// Whether a node has this name.
  bool hasNode(const std::string &name) const;
  /// Every node name, in the order they were added.
  std::vector<std::string> nodeNames() const;
  /// The graph as textual IR (what `sluice compile --emit ir` prints
  /// before the passes).
  std::string graphText() const;

  /// A new session: fresh variables and queues.
  Result<Session> newSession(const SessionOptions &opts = {}) const;

  struct Impl;

private:
  explicit Program(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;
  friend class Session;
};

/// Feeds by name (see Program): {{"x", HostTensor::of<float>({1, 2})}}.
using Feeds = std::vector<std::pair<std::string, HostTensor>>;

/// TF1's Session over a Program's graph. Movable, not copyable; the
/// destructor stops the queue runners and closes the session.
class Session {
public:
  Session(Session &&) noexcept;
  Session &operator=(Session &&) noexcept;
  ~Session();

  /// Runs what `fetches` and `targets` need, with `feeds` replacing the
  /// fed tensors, and returns the fetched values in order.
  Result<std::vector<HostTensor>> run(const std::vector<std::string> &fetches,
                                      const Feeds &feeds = {},
                                      const std::vector<std::string> &targets = {});
  /// One fetch: fetch("y", {{"x", x}}).
  Result<HostTensor> fetch(const std::string &name, const Feeds &feeds = {});
  /// Runs targets only (ops such as an initializer or an enqueue).
  Result<void> runTargets(const std::vector<std::string> &targets, const Feeds &feeds = {});

  /// Runs the initializers of every global and local variable (TF's
  /// global_variables_initializer and local_variables_initializer, the
  /// latter needed by num_epochs).
  Result<void> initialize();
  /// TF's start_queue_runners: one thread per enqueue op of every queue
  /// runner the graph has (batch, string_input_producer, queue_runner...).
  /// A runner whose input is exhausted closes its queue, so a dequeue
  /// past the end fails with out_of_range; a runner that fails closes
  /// every runner's queue and its error is what the next failing run
  /// returns instead of out_of_range.
  Result<void> startQueueRunners();
  /// Cancels the runners' pending enqueues, waits for their threads, and
  /// returns the first error a runner had (ok if none). Also done by
  /// close() and the destructor.
  Result<void> stopQueueRunners();
  /// Cancels running steps and closes the session; later runs fail with
  /// cancelled.
  Result<void> close();

  struct Impl;

private:
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
  friend class Program;
};

} // namespace sluice
