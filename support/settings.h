// support/settings.h: what the process takes from its environment
// (SLUICE_JIT_LOG, SLUICE_JIT_CACHE_DIR, SLUICE_CUDA_DRIVER, ...), read in
// one place instead of deep inside the JIT and the GPU code. The sluice
// tool reads them once at start (cli/main.cc); a program embedding the
// libraries may set its own, and gets the environment's on first use
// otherwise.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sluice {

struct Settings {
  bool jitLog = false;           // SLUICE_JIT_LOG: the JIT's decisions on stderr
  bool gpuLog = false;           // SLUICE_GPU_LOG: the GPU path's notes on stderr
  std::optional<std::string> jitCacheDir; // SLUICE_JIT_CACHE_DIR ("off" or "": no disk cache)
  std::string cacheHome;         // $XDG_CACHE_HOME, else $HOME/.cache; "" without either
  std::string jitCacheMaxMb;     // SLUICE_JIT_CACHE_MAX_MB as written (the cache checks it)
  std::string libdevice;         // SLUICE_LIBDEVICE: CUDA's libdevice.10.bc
  std::vector<std::string> cudaHomes; // $CUDA_HOME, $CUDA_PATH (toolkit roots)
  std::string cudaDriver;        // SLUICE_CUDA_DRIVER: the libcuda to open
  std::string cublas;            // SLUICE_CUBLAS: the cuBLAS to open
};

/// The environment's settings now.
Settings settingsFromEnvironment();

/// The process's settings: the last ones set, else the environment's as
/// first read. A snapshot: later changes do not alter it.
std::shared_ptr<const Settings> settings();
void setSettings(Settings s);

/// The process's settings with one field changed.
template <typename T, typename V> Settings withSetting(T Settings::*field, V value) {
  Settings s = *settings();
  s.*field = std::move(value);
  return s;
}

/// Sets settings for a scope and puts the previous ones back (tests).
class ScopedSettings {
public:
  explicit ScopedSettings(Settings s) : saved_(settings()) { setSettings(std::move(s)); }
  ~ScopedSettings() { setSettings(*saved_); }
  ScopedSettings(const ScopedSettings &) = delete;
  ScopedSettings &operator=(const ScopedSettings &) = delete;

private:
  std::shared_ptr<const Settings> saved_;
};

} // namespace sluice
