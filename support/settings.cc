// support/settings.cc: the environment, read in one place.
#include "support/settings.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace sluice {

namespace {

std::string env(const char *name) {
  const char *v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

bool flag(const char *name) {
  std::string v = env(name);
  return !v.empty() && v != "0";
}

std::mutex mu;
std::shared_ptr<const Settings> current; // guarded by mu

} // namespace

Settings settingsFromEnvironment() {
  Settings s;
  s.jitLog = flag("SLUICE_JIT_LOG");
  s.gpuLog = flag("SLUICE_GPU_LOG");
  if (const char *dir = std::getenv("SLUICE_JIT_CACHE_DIR"))
    s.jitCacheDir = dir;
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty())
    s.cacheHome = xdg;
  else if (std::string home = env("HOME"); !home.empty())
    s.cacheHome = (std::filesystem::path(home) / ".cache").string();
  s.jitCacheMaxMb = env("SLUICE_JIT_CACHE_MAX_MB");
  s.libdevice = env("SLUICE_LIBDEVICE");
  for (const char *var : {"CUDA_HOME", "CUDA_PATH"})
    if (std::string root = env(var); !root.empty())
      s.cudaHomes.push_back(root);
  s.cudaDriver = env("SLUICE_CUDA_DRIVER");
  s.cublas = env("SLUICE_CUBLAS");
  return s;
}

std::shared_ptr<const Settings> settings() {
  std::lock_guard<std::mutex> lock(mu);
  if (!current)
    current = std::make_shared<const Settings>(settingsFromEnvironment());
  return current;
}

void setSettings(Settings s) {
  auto next = std::make_shared<const Settings>(std::move(s));
  std::lock_guard<std::mutex> lock(mu);
  current = std::move(next);
}

} // namespace sluice
