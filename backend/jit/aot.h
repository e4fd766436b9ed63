// backend/jit/aot.h: ahead-of-time objects (TF1's tfcompile idea): a graph
// of pure ops with fixed shapes, after fusion, becomes one C function in
// an object file, plus a header declaring it. Std-only, like jit.h.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "support/status.h"

namespace sluice::backend::jit {

struct AotSignature {
  std::string function;                   // the C function's name
  std::vector<ir::Output> inputs;         // placeholders, in parameter order
  std::vector<std::string> inputNames;    // C identifiers
  std::vector<ir::Output> outputs;        // what it computes, in parameter order
  std::vector<std::string> outputNames;   // C identifiers
};

struct AotObject {
  std::string object; // an ELF relocatable for the host (PIC)
  std::string header; // C declarations, element counts and shapes
};

/// Compiles `g` (fused; every node a placeholder among `inputs`, a
/// constant, an identity, a rank-2 matmul or a fused cluster with
/// generated code) into
/// `int function(const T *in..., T *out...)`, returning 0. Anything else is
/// invalid_argument naming the node, its op and location.
Expected<AotObject> compileAheadOfTime(const ir::Graph &g, const AotSignature &sig,
                                       const std::string &headerName);

} // namespace sluice::backend::jit
