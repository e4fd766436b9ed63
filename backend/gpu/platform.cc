// backend/gpu/platform.cc: GPU discovery, once per process (or per test
// reset), guarded by one mutex.
#include "backend/gpu/platform.h"

#include <mutex>

#include "backend/gpu/blas.h"
#include "ir/device_spec.h"

namespace sluice::backend::gpu {

namespace {

struct Platform {
  std::vector<std::shared_ptr<Device>> devices;
  std::string whyNone;
};

Platform discover(Expected<DriverApi> loaded) {
  Platform p;
  if (!loaded.hasValue()) {
    p.whyNone = loaded.status().message();
    return p;
  }
  auto api = std::make_shared<const DriverApi>(std::move(*loaded));
  Status s = check(*api, api->cuInit(0), "cuInit");
  int n = 0;
  if (s.isOk())
    s = check(*api, api->cuDeviceGetCount(&n), "cuDeviceGetCount");
  if (!s.isOk()) {
    p.whyNone = api->source + ": " + s.message();
    return p;
  }
  for (int i = 0; i < n; ++i) {
    auto d = Device::open(api, i);
    if (!d.hasValue()) {
      // Devices are numbered densely, as TF does: stop at the first bad one.
      p.whyNone = "GPU " + std::to_string(i) + ": " + d.status().message();
      break;
    }
    p.devices.push_back(*d);
  }
  if (p.devices.empty() && p.whyNone.empty())
    p.whyNone = api->source + " reports no CUDA devices";
  return p;
}

std::mutex mu;
// Never destroyed at exit (only replaced by tests): a context or buffer
// released from a static destructor could reach a driver that has already
// shut down, and the process is ending anyway.
Platform *current = nullptr; // guarded by mu

void replace(Platform p) {
  Platform *old = current;
  current = new Platform(std::move(p));
  delete old;
}

Platform &platform() {
  if (!current)
    current = new Platform(discover(loadDriver()));
  return *current;
}

} // namespace

int deviceCount() {
  std::lock_guard<std::mutex> lock(mu);
  return static_cast<int>(platform().devices.size());
}

std::string unavailableReason() {
  std::lock_guard<std::mutex> lock(mu);
  return platform().devices.empty() ? platform().whyNone : "";
}

Expected<std::shared_ptr<Device>> device(int ordinal) {
  std::lock_guard<std::mutex> lock(mu);
  Platform &p = platform();
  if (ordinal >= 0 && ordinal < static_cast<int>(p.devices.size()))
    return p.devices[static_cast<size_t>(ordinal)];
  std::string why = p.devices.empty() ? p.whyNone
                                      : "this process has " + std::to_string(p.devices.size()) +
                                            " GPU(s)";
  return Status(Code::kNotFound, "there is no GPU:" + std::to_string(ordinal) + " (" + why + ")");
}

Expected<std::shared_ptr<Device>> deviceOf(const std::string &assignedDevice) {
  auto spec = ir::DeviceSpec::parse(assignedDevice);
  if (!spec.hasValue())
    return spec.takeStatus();
  if (spec->deviceType != "GPU")
    return Status(Code::kInvalidArgument, "'" + assignedDevice + "' is not a GPU");
  return device(spec->deviceIndex.value_or(0));
}

std::string ptxArch(int cc, std::string *note) {
  // LLVM 16's NVPTX processors (NVPTX.td).
  static const int known[] = {20, 21, 30, 32, 35, 37, 50, 52, 53, 60, 61, 62,
                              70, 72, 75, 80, 86, 87, 89, 90};
  int best = known[0];
  for (int k : known)
    if (k <= cc)
      best = k;
  if (note) {
    note->clear();
    if (best != cc)
      *note = "compute capability " + std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
              " has no LLVM 16 target; using sm_" + std::to_string(best) +
              " PTX, which the driver compiles for the device";
  }
  return "sm_" + std::to_string(best);
}

void resetForTesting(const DriverApi &api) {
  std::lock_guard<std::mutex> lock(mu);
  replace(discover(api));
  setBlasForTesting(nullptr); // a fake driver has no cuBLAS unless a test gives one
}

void resetForTesting() {
  std::lock_guard<std::mutex> lock(mu);
  replace(discover(loadDriver()));
  resetBlasForTesting();
}

} // namespace sluice::backend::gpu
