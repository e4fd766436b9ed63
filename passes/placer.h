// passes/placer.h: assigns every node a full device name (TF's Placer).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "passes/pass.h"

namespace sluice::passes {

struct PlacementOptions {
  /// Full names of the devices ops may run on, in preference order
  /// ("/job:localhost/replica:0/task:0/device:CPU:0", ...).
  std::vector<std::string> devices;
  /// A request no device satisfies goes to a device of the same type, else
  /// the first device, with a note, instead of failing.
  bool allowSoftPlacement = false;
  /// Which device types have a kernel for an op.
  KernelQueries kernels;
  /// Why there are no GPU devices (PassOptions::noGpuReason), for the
  /// messages about unmet GPU requests.
  std::string noGpuReason;
};

/// The devices of a session in this process: `/job:localhost/replica:0/
/// task:0/device:T:i` for each {"T": n} of `deviceCount` (CPU: 1 when
/// absent), plus the CPUs again for every other job/task the graph's nodes
/// request, so a ps/worker graph runs with its tasks hosted in-process.
/// GPUs: the local task gets `gpusPresent` of them (what the driver
/// reports), at most deviceCount["GPU"] when given (TF's cap), listed
/// first: as in TF, an op with a GPU kernel and no request prefers a GPU.
std::vector<std::string> localDevices(const ir::Graph &g,
                                      const std::map<std::string, int> &deviceCount,
                                      int gpusPresent = 0);

/// Places `g`: nodes joined by colocation (colocate_with, and every op
/// using a resource with the op that makes it) form groups whose requested
/// devices merge; each group goes to the first device matching the merged
/// request with kernels for all its ops. Conflicting requests in a group,
/// and a request no device satisfies (without soft placement), are located
/// errors naming the nodes. Soft placements are returned as notes. As
/// TF's placer (its generator heuristic), an unrequested constant whose
/// consumers all sit on one other device that has its kernel moves there,
/// so a constant read only by CPU ops is not placed on a GPU.
Status placeGraph(ir::Graph &g, const PlacementOptions &opts, std::vector<Status> *notes);

/// The pass form ("placer"): places with PassContext::options.placement
/// when it lists devices; leaves the graph alone otherwise.
std::unique_ptr<Pass> createPlacerPass();

} // namespace sluice::passes
