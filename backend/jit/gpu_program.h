// backend/jit/gpu_program.h: a fused body as GPU code, for the GPU
// backend (backend/gpu) to load and launch: the PTX module, its kernels
// (one per loop nest) and what each is launched over. Std-only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/jit/element_program.h"

namespace sluice::backend::jit {

struct GpuProgram {
  /// The body's element program: input/output dtypes and dims.
  ElementProgram program;
  std::string ptx;
  /// Per loop nest: its kernel's `.entry` name and its work items
  /// (gpuWorkItems: elements, a reduction's outputs, a row program's
  /// rows). Each kernel takes every input pointer, then every output
  /// pointer (device addresses), then that count (int64).
  std::vector<std::string> entries;
  std::vector<int64_t> counts;
};

/// `body` compiled for `arch` (sm_90, ...) under names starting with
/// `symbol` (an identifier); unimplemented when the body has no GPU code
/// (an op, dtype or shape the element program lacks, a math call without
/// libdevice).
Expected<GpuProgram> compileGpuProgram(const ir::FunctionDef &body, const std::string &symbol,
                                       const std::string &arch);

/// `s` with every character that may not appear in a PTX identifier
/// turned into '_' (node names hold '/').
std::string ptxIdentifier(const std::string &s);

} // namespace sluice::backend::jit
