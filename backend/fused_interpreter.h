// backend/fused_interpreter.h: runs a fused node's body op by op with the
// CPU kernels: the reference for every body (`--backend interp`) and the
// JIT's fallback for bodies it cannot compile.
#pragma once

#include <memory>
#include <vector>

#include "backend/kernel_registry.h"
#include "ir/function.h"

namespace sluice::backend {

class FusedInterpreter {
public:
  /// Creates a kernel for each body node; errors name the body node.
  static Expected<std::unique_ptr<FusedInterpreter>>
  create(std::shared_ptr<const ir::FunctionDef> def, const KernelRegistry &kernels);

  /// Runs the body on `ctx`'s inputs and sets its outputs; a body node's
  /// failure is reported on `ctx` naming that node and its location.
  void run(KernelContext &ctx) const;

  const ir::FunctionDef &def() const { return *def_; }

private:
  struct Step {
    const ir::Node *node;
    std::unique_ptr<OpKernel> kernel;
    std::vector<int> inputSlots;
    int outputStart;
  };
  std::shared_ptr<const ir::FunctionDef> def_;
  std::vector<Step> steps_;
  std::vector<int> argSlots_;    // slot of each parameter
  std::vector<int> resultSlots_; // slot of each result
  int numSlots_ = 0;
};

/// The body of `node` (a `fused` node) from the functions of `ctx`'s
/// graph; failed_precondition when there is none.
Expected<std::shared_ptr<const ir::FunctionDef>> fusedBody(const ir::Node &node,
                                                          const KernelContext &ctx);

} // namespace sluice::backend
