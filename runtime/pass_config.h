// runtime/pass_config.h: the one configuration of the pass pipeline that
// sessions and `sluice compile` share: the devices to place on, what the
// kernels answer for the placer and constant folding, soft placement,
// folding and fusion switches.
#pragma once

#include <string>
#include <vector>

#include "backend/kernel_registry.h"
#include "passes/pass.h"
#include "runtime/session.h"

namespace sluice::rt {

/// What passes ask of `registry` (null: the built-in kernels): which
/// device types have a node's kernel, and (always with the built-in CPU
/// kernels) a node evaluated on the host.
passes::KernelQueries kernelQueries(const backend::KernelRegistry *registry);

/// The devices a session with `opts` places on: its cluster's, else this
/// process's (device_count caps them; the GPUs the driver reports).
std::vector<std::string> placementDevices(const SessionOptions &opts, const ir::Graph &g);

/// The pass options of `opts`, placing on `devices`. Asks nothing of this
/// machine's GPUs: `sluice compile` uses it, and its output must not
/// depend on them (nor its start-up open the CUDA driver).
passes::PassOptions passOptions(const SessionOptions &opts, std::vector<std::string> devices);

/// A session's pass options over `g`: placementDevices, and why this
/// process has no GPU for the messages about unmet GPU requests.
passes::PassOptions sessionPassOptions(const SessionOptions &opts, const ir::Graph &g);

} // namespace sluice::rt
