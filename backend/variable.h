// backend/variable.h: the Variable resource and the resource-handle key
// format shared by the state kernels.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "backend/kernel.h"
#include "backend/resource_mgr.h"
#include "ir/shape.h"
#include "ir/tensor.h"

namespace sluice::backend {

/// A mutable tensor shared by every step of a session. Kernels hold `mu`
/// while they read or update `value`; updates write in place only when no
/// step still holds the old buffer (copy-on-write), so a value a step has
/// read never changes under it.
class Variable : public Resource {
public:
  Variable(std::string name, ir::DType dtype, ir::Shape shape)
      : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)) {}
  std::string kind() const override { return "Variable"; }

  /// The name used in messages: the shared_name, or the variable node's.
  const std::string &name() const { return name_; }
  ir::DType dtype() const { return dtype_; }
  /// The shape declared by the `variable` op (may be partial).
  const ir::Shape &declaredShape() const { return shape_; }

  std::mutex mu;
  ir::Tensor value;          // guarded by mu
  bool initialized = false;  // guarded by mu

private:
  std::string name_;
  ir::DType dtype_;
  ir::Shape shape_;
};

/// A handle tensor's string: "name", or "container:name" when a container
/// is given (TF node names cannot hold ':').
inline std::string encodeResourceKey(const std::string &container,
                                     const std::string &name) {
  return container.empty() ? name : container + ":" + name;
}
inline std::pair<std::string, std::string>
decodeResourceKey(const std::string &key) {
  auto colon = key.find(':');
  if (colon == std::string::npos)
    return {std::string(), key};
  return {key.substr(0, colon), key.substr(colon + 1)};
}

/// The variable named by handle input `input` of the running kernel.
inline Expected<std::shared_ptr<Variable>> lookupVariable(KernelContext &ctx,
                                                          int input) {
  const ir::Tensor &h = ctx.input(input);
  if (h.dtype() != ir::DType::kResource || h.numElements() != 1)
    return invalidArgument("expected a scalar resource handle");
  if (!ctx.resources())
    return internalError("no resource manager in this step");
  auto [container, name] = decodeResourceKey(h.strings()[0]);
  auto var = ctx.resources()->lookup<Variable>(container, name);
  if (!var)
    return notFound("Resource " + h.strings()[0] +
                    " does not exist or is not a variable");
  return var;
}

} // namespace sluice::backend
