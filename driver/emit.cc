// driver/emit.cc: the --emit table.
#include "driver/emit.h"

#include <iterator>

namespace sluice::driver {

namespace {

constexpr EmitForm kForms[] = {
    {Emit::kIr, "ir", false, false, false, false, "the textual IR after the passes"},
    {Emit::kDot, "dot", true, false, false, false, "Graphviz DOT, one cluster per device"},
    {Emit::kPlacement, "placement", true, false, false, false,
     "node, op, requested and assigned device"},
    {Emit::kPartitions, "partitions", true, false, true, false,
     "one .sir per device joined by send/recv (-o DIR)"},
    {Emit::kCost, "cost", true, false, false, false, "bytes crossing devices per step"},
    {Emit::kFused, "fused", false, true, false, false, "the fusion clusters, then the IR"},
    {Emit::kLlvm, "llvm", false, true, false, false, "LLVM IR of the fused kernels"},
    {Emit::kPtx, "ptx", false, true, false, false, "PTX of the fused kernels (--gpu-arch)"},
    {Emit::kObj, "obj", false, true, false, true,
     "an object file with one C function (-o FILE.o --fetch NAME)"},
};

} // namespace

const EmitForm *findEmit(std::string_view name) {
  for (const EmitForm &f : kForms)
    if (name == f.name)
      return &f;
  return nullptr;
}

std::string emitNames() {
  std::string out;
  for (size_t i = 0; i < std::size(kForms); ++i) {
    if (i > 0)
      out += i + 1 == std::size(kForms) ? " or " : ", ";
    out += std::string("'") + kForms[i].name + "'";
  }
  return out;
}

std::string emitHelp() {
  std::string out;
  for (const EmitForm &f : kForms)
    out += std::string(out.empty() ? "" : ", ") + f.name + " (" + f.what + ")";
  return out;
}

} // namespace sluice::driver
