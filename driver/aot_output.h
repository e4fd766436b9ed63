// driver/aot_output.h: the front half of `sluice compile --emit obj`:
// which tensors --fetch names, what the C parameters are called, and
// writing the object and its header (backend/jit/aot.h does the code).
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "ir/graph.h"
#include "support/status.h"

namespace sluice::driver {

/// `--fetch NAME`: a top-level variable of the file (`vars`), else a node
/// name with an optional `:index`.
Expected<std::vector<ir::Output>> resolveFetches(const std::vector<std::string> &names,
                                                 const ir::Graph &g,
                                                 const std::map<std::string, ir::Output> &vars);

/// Compiles the fused graph `g` (its fetches `fetches`, named `fetchNames`)
/// and writes -o and the header; `varOfNode` names inputs after the
/// variables bound to their placeholders. False after reporting to `err`.
bool writeAotObject(const ir::Graph &g, const std::vector<ir::Output> &fetches,
                    const std::vector<std::string> &fetchNames,
                    const std::map<std::string, std::string> &varOfNode,
                    const CompileOptions &opts, std::ostream &err);

} // namespace sluice::driver
