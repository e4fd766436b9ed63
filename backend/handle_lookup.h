// backend/handle_lookup.h: the resource a kernel's handle input names
// (readers, queues, ...), found in the step's resource manager.
#pragma once

#include <memory>
#include <string>

#include "backend/kernel.h"
#include "backend/resource_mgr.h"
#include "backend/variable.h" // encodeResourceKey / decodeResourceKey

namespace sluice::backend {

/// The resource of type T behind resource-handle input `input`;
/// invalid_argument for a non-handle, not_found naming the key if missing.
template <typename T>
Expected<std::shared_ptr<T>> lookupHandle(KernelContext &ctx, int input, const char *what) {
  const ir::Tensor &h = ctx.input(input);
  if (h.dtype() != ir::DType::kResource || h.numElements() != 1)
    return invalidArgument(std::string("expected a scalar ") + what + " handle");
  if (!ctx.resources())
    return internalError("no resource manager in this step");
  auto [container, name] = decodeResourceKey(h.strings()[0]);
  auto r = ctx.resources()->lookup<T>(container, name);
  if (!r)
    return notFound("Resource " + h.strings()[0] + " does not exist or is not a " + what);
  return r;
}

} // namespace sluice::backend
