// backend/gpu/blas.cc: cuBLAS through dlopen, its handles per device.
#include "backend/gpu/blas.h"
#include "support/settings.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace sluice::backend::gpu {

namespace {

template <typename F> void resolve(void *lib, const char *name, F &slot, std::string &missing) {
  slot = reinterpret_cast<F>(::dlsym(lib, name));
  if (!slot && missing.empty())
    missing = name;
}

Expected<BlasApi> open(const std::string &path) {
  void *lib = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char *err = ::dlerror();
    return Status(Code::kNotFound, err ? err : path + ": cannot open");
  }
  BlasApi api;
  api.source = path;
  api.library = std::shared_ptr<void>(lib, [](void *h) { ::dlclose(h); });
  std::string missing;
  resolve(lib, "cublasCreate_v2", api.cublasCreate, missing);
  resolve(lib, "cublasDestroy_v2", api.cublasDestroy, missing);
  resolve(lib, "cublasSetStream_v2", api.cublasSetStream, missing);
  resolve(lib, "cublasSgemm_v2", api.cublasSgemm, missing);
  resolve(lib, "cublasDgemm_v2", api.cublasDgemm, missing);
  if (!missing.empty())
    return Status(Code::kNotFound, path + " has no entry point " + missing);
  return api;
}

Expected<BlasApi> load() {
  std::vector<std::string> paths;
  auto s = settings();
  if (!s->cublas.empty()) {
    paths.push_back(s->cublas);
  } else {
    paths = {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11"};
    for (const std::string &root : s->cudaHomes)
      paths.push_back(root + "/lib64/libcublas.so");
    paths.emplace_back("/usr/local/cuda/lib64/libcublas.so");
  }
  std::string why;
  for (const std::string &p : paths) {
    auto api = open(p);
    if (api.hasValue())
      return api;
    why = api.status().message(); // the last one's, the most specific
  }
  return Status(Code::kNotFound, "cannot open cuBLAS (" + why + ")");
}

struct State {
  bool tried = false;
  BlasApi api;
  std::string whyNone;
  std::map<Device *, CublasHandle> handles;
};

std::mutex mu;
// Never destroyed at exit, as the platform (backend/gpu/platform.cc).
State *state = new State; // guarded by mu

State &loaded() {
  if (!state->tried) {
    state->tried = true;
    auto api = load();
    if (api.hasValue())
      state->api = std::move(*api);
    else
      state->whyNone = api.status().message();
  }
  return *state;
}

} // namespace

bool blasAvailable() {
  std::lock_guard<std::mutex> lock(mu);
  return loaded().whyNone.empty();
}

std::string blasUnavailableReason() {
  std::lock_guard<std::mutex> lock(mu);
  return loaded().whyNone;
}

const BlasApi &blas() {
  std::lock_guard<std::mutex> lock(mu);
  return loaded().api;
}

Expected<CublasHandle> blasHandle(Device &dev) {
  std::lock_guard<std::mutex> lock(mu);
  State &s = loaded();
  if (!s.whyNone.empty())
    return Status(Code::kUnavailable, s.whyNone);
  auto it = s.handles.find(&dev);
  if (it != s.handles.end())
    return it->second;
  SLUICE_TRY(dev.makeCurrent());
  CublasHandle h = nullptr;
  if (int r = s.api.cublasCreate(&h); r != 0)
    return Status(Code::kInternal, "cublasCreate: cuBLAS status " + std::to_string(r));
  if (int r = s.api.cublasSetStream(h, dev.stream()); r != 0) {
    s.api.cublasDestroy(h);
    return Status(Code::kInternal, "cublasSetStream: cuBLAS status " + std::to_string(r));
  }
  s.handles[&dev] = h;
  return h;
}

void setBlasForTesting(const BlasApi *api) {
  std::lock_guard<std::mutex> lock(mu);
  // The old handles belong to devices a test may have replaced: dropped.
  *state = State();
  state->tried = true;
  if (api)
    state->api = *api;
  else
    state->whyNone = "no cuBLAS (tests)";
}

void resetBlasForTesting() {
  std::lock_guard<std::mutex> lock(mu);
  *state = State();
}

} // namespace sluice::backend::gpu
