// backend/gpu/platform.h: the GPUs of this process, found once: the driver
// is opened at run time, and a missing library or entry point, a failing
// cuInit or zero devices all mean "no GPU devices", with the reason kept
// for messages (the placer's note on an unmet /gpu:0 request).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/gpu/device.h"

namespace sluice::backend::gpu {

/// How many GPUs this process can use (0 without a working driver).
int deviceCount();
/// Why there is no GPU ("" when there is one): the driver's own words.
std::string unavailableReason();
/// GPU `ordinal`; not_found naming the reason when it does not exist.
Expected<std::shared_ptr<Device>> device(int ordinal);

/// The GPU a node's assigned device names ("/.../device:GPU:1" -> GPU 1).
Expected<std::shared_ptr<Device>> deviceOf(const std::string &assignedDevice);

/// The highest NVPTX target LLVM 16 knows that `computeCapability`
/// (major * 10 + minor) can run: its own, or sm_90 for newer GPUs (PTX
/// for an older target runs on later ones); `note` gets why it differs.
std::string ptxArch(int computeCapability, std::string *note = nullptr);

/// Tests: forget the devices found and discover again through `api`
/// (a fake driver, with no cuBLAS until setBlasForTesting gives one);
/// without an argument, through loadDriver() again (and cuBLAS too).
void resetForTesting(const DriverApi &api);
void resetForTesting();

} // namespace sluice::backend::gpu
