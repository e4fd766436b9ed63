// backend/function.h: how kernels call graph functions (the bodies of
// dataset map and filter). The runtime implements it with an executor per
// function; kernels see only this interface, so the backend stays below
// the runtime.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/tensor.h"
#include "support/cancellation.h"
#include "support/status.h"

namespace sluice::backend {

class ResourceMgr;

/// What a call runs against: the caller's resources (variables, queues)
/// and the cancellation that stops it.
struct CallFrame {
  ResourceMgr *resources = nullptr;
  CancellationManager *cancellation = nullptr;
};

/// An instantiated function, safe to call from several threads at once.
class Function {
public:
  virtual ~Function() = default;
  virtual const ir::FunctionDef &def() const = 0;
  /// Runs the body with `args` (checked against the parameters' dtypes)
  /// and returns its results. Errors name the failing node in the body.
  virtual Expected<std::vector<ir::Tensor>> call(const std::vector<ir::Tensor> &args,
                                                 const CallFrame &frame) const = 0;
};

class FunctionRuntime {
public:
  virtual ~FunctionRuntime() = default;
  /// The function `name` of the graph's library, ready to call; not_found
  /// when the library has none.
  virtual Expected<std::shared_ptr<const Function>> instantiate(const std::string &name) = 0;
  /// The definition of `name` without instantiating it (a fused node's
  /// body, which its kernel runs or compiles itself); null when the
  /// library has none.
  virtual std::shared_ptr<const ir::FunctionDef> lookup(const std::string &name) const = 0;
};

} // namespace sluice::backend
