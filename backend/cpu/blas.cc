// backend/cpu/blas.cc: dlopen of OpenBLAS with its environment set first.
#include "backend/cpu/blas.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace sluice::backend {

const Blas *blas() {
  static Blas loaded;
  static const Blas *result = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    // OpenBLAS reads these when it loads; the user's own settings win.
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", /*overwrite=*/0);
    // One thread: the matmul kernel splits big products itself, by
    // intra_op_parallelism_threads (math_matmul_kernels.cc).
    setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
    void *lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      return;
    loaded.sgemm = reinterpret_cast<decltype(loaded.sgemm)>(dlsym(lib, "cblas_sgemm"));
    loaded.dgemm = reinterpret_cast<decltype(loaded.dgemm)>(dlsym(lib, "cblas_dgemm"));
    if (loaded.sgemm && loaded.dgemm)
      result = &loaded;
  });
  return result;
}

} // namespace sluice::backend
