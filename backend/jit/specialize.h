// backend/jit/specialize.h: fused bodies whose shapes are known only at
// run time, re-typed for the shapes of one call so that they have
// generated code like static ones (each backend compiles once per
// distinct shape set, kept in a ShapeCache). Std-only: the GPU backend
// uses it too.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/function.h"
#include "support/status.h"

namespace sluice::backend::jit {

/// Whether every parameter's shape of `def` is fully known.
bool hasStaticShapes(const ir::FunctionDef &def);

/// `def` with parameter k of shape `argDims[k]` and every body shape
/// inferred again from them (merged with what the body knew). An error
/// names the body node whose shapes do not fit (the interpreter, run on
/// the same inputs, reports the same call).
Expected<std::shared_ptr<const ir::FunctionDef>> specializeBody(
    const ir::FunctionDef &def, const std::vector<ir::Dims> &argDims);

/// A node compiles at most this many shape sets; further ones fall back
/// (a pipeline whose batch size changes every step must not compile
/// every step).
constexpr size_t kMaxSpecializations = 32;

/// The code one fused node made for each set of call shapes, made on
/// first sight and shared by concurrent steps. `Code` is the backend's
/// (JIT entry points, a GPU module's kernels).
template <typename Code> class ShapeCache {
public:
  using Make = std::function<Expected<std::unique_ptr<Code>>(const ir::FunctionDef &)>;

  /// The code for `dims`, or null when this shape set falls back (the
  /// specialized body has no code, or the limit is reached). `why` is set
  /// when that was decided by this call (the caller logs it once).
  const Code *get(const ir::FunctionDef &def, const std::vector<ir::Dims> &dims, const Make &make,
                  Status *why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = codes_.find(dims); it != codes_.end())
      return it->second.get();
    if (codes_.size() >= kMaxSpecializations) {
      if (!warnedFull_)
        *why = unimplemented(std::to_string(kMaxSpecializations) +
                             " input shapes have code already; further ones fall back");
      warnedFull_ = true;
      return nullptr; // not remembered: the shapes may never repeat
    }
    std::unique_ptr<Code> code;
    if (auto body = specializeBody(def, dims); !body.hasValue()) {
      *why = body.takeStatus();
    } else if (auto made = make(**body); !made.hasValue()) {
      *why = made.takeStatus();
    } else {
      code = std::move(*made);
    }
    return (codes_[dims] = std::move(code)).get();
  }

private:
  std::mutex mu_;
  std::map<std::vector<ir::Dims>, std::unique_ptr<Code>> codes_; // null: falls back
  bool warnedFull_ = false;
};

/// "[8, 3], []": call shapes for messages.
std::string shapesText(const std::vector<ir::Dims> &dims);

} // namespace sluice::backend::jit
