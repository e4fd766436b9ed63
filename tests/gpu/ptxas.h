// tests/gpu/ptxas.h: CUDA's ptxas as a check of the PTX the GPU backend
// hands the driver, on machines without a GPU.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace sluice::gputest {

/// ptxas's verdict on `ptx` for `arch` ("" when it assembled); nullopt
/// without ptxas ($SLUICE_PTXAS, else the toolkit's).
inline std::optional<std::string> assemblePtx(const std::string &ptx, const std::string &arch) {
  namespace fs = std::filesystem;
  const char *env = std::getenv("SLUICE_PTXAS");
  std::string ptxas = env && *env ? env : "/usr/local/cuda/bin/ptxas";
  if (!fs::exists(ptxas))
    return std::nullopt;
  fs::path dir = fs::temp_directory_path() / ("sluice_gpu_ptx_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  { std::ofstream(dir / "k.ptx") << ptx; }
  std::string cmd = "'" + ptxas + "' -arch=" + arch + " -o '" + (dir / "k.cubin").string() +
                    "' '" + (dir / "k.ptx").string() + "' > '" + (dir / "log").string() + "' 2>&1";
  int rc = std::system(cmd.c_str());
  std::ifstream log(dir / "log");
  std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  fs::remove_all(dir);
  return rc == 0 ? "" : "ptxas failed (" + std::to_string(rc) + "): " + text;
}

} // namespace sluice::gputest
