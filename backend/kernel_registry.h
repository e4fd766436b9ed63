// backend/kernel_registry.h: kernel factories keyed by (op, device type).
// Kernels dispatch on dtype themselves; a kernel that does not support a
// dtype fails at creation with a located unimplemented error.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/kernel.h"

namespace sluice::backend {

using KernelFactory =
    std::function<Expected<std::unique_ptr<OpKernel>>(const ir::Node &)>;
/// Which nodes of an op a kernel takes (a GPU kernel: the dtypes its code
/// exists for); the placer asks it. Null: every node.
using KernelSupport = std::function<bool(const ir::Node &)>;

class KernelRegistry {
public:
  void add(std::string op, std::string deviceType, KernelFactory factory,
           KernelSupport supports = nullptr);
  /// Creates the kernel for `node` on `deviceType` ("CPU", "GPU").
  Expected<std::unique_ptr<OpKernel>> create(const ir::Node &node,
                                             const std::string &deviceType) const;
  bool has(const std::string &op, const std::string &deviceType) const;
  /// The ops with a kernel on `deviceType`.
  std::vector<std::string> ops(const std::string &deviceType) const;
  /// Whether `deviceType` has a kernel for `node`'s op that takes it.
  bool supports(const ir::Node &node, const std::string &deviceType) const;

  /// Shorthand for kernels whose constructor cannot fail.
  template <typename K> void addSimple(std::string op, std::string dev = "CPU") {
    add(std::move(op), std::move(dev),
        [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
          return std::unique_ptr<OpKernel>(std::make_unique<K>(n));
        });
  }

private:
  struct Entry {
    KernelFactory factory;
    KernelSupport supports;
  };
  std::map<std::pair<std::string, std::string>, Entry> factories_;
};

/// The process-wide registry with every built-in kernel.
const KernelRegistry &kernelRegistry();
/// Adds every kernel family to `reg` (explicit, no static init).
void registerAllKernels(KernelRegistry &reg);

// One function per family, in backend/cpu/<family>_kernels.cc.
void registerMathKernels(KernelRegistry &reg);
void registerArrayKernels(KernelRegistry &reg);
void registerRandomKernels(KernelRegistry &reg);
void registerStateKernels(KernelRegistry &reg);
void registerStringKernels(KernelRegistry &reg);
void registerControlKernels(KernelRegistry &reg);
void registerDataFlowKernels(KernelRegistry &reg); // backend/cpu/data_flow_kernels.cc
void registerAccumulatorKernels(KernelRegistry &reg); // backend/cpu/accumulator_kernels.cc
void registerIoKernels(KernelRegistry &reg);      // backend/cpu/io_kernels.cc
void registerCheckpointKernels(KernelRegistry &reg); // backend/cpu/checkpoint_kernels.cc
void registerSummaryKernels(KernelRegistry &reg);    // backend/cpu/summary_kernels.cc
void registerParsingKernels(KernelRegistry &reg); // backend/cpu/parsing_kernels.cc
void registerPipelineKernels(KernelRegistry &reg);
void registerDatasetKernels(KernelRegistry &reg); // backend/cpu/dataset_kernels.cc
void registerTransferKernels(KernelRegistry &reg); // backend/cpu/transfer_kernels.cc
void registerReadCsvKernels(KernelRegistry &reg);  // backend/cpu/read_csv_kernels.cc
void registerGradientKernels(KernelRegistry &reg); // backend/cpu/gradient_kernels.cc
void registerTrainingKernels(KernelRegistry &reg); // backend/cpu/training_kernels.cc
void registerFusedKernels(KernelRegistry &reg);    // backend/cpu/fused_kernels.cc (interpreted)

} // namespace sluice::backend
