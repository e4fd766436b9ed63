// backend/cpu/blas.h: OpenBLAS's gemm, loaded on the first matmul rather
// than linked. A linked OpenBLAS starts its thread pool when the process
// loads, and each idle pool thread spins in sched_yield for ~0.1 s: every
// sluice process and test paid that, most without one matmul. Loaded
// lazily, with a short spin (OPENBLAS_THREAD_TIMEOUT=4) unless the user
// set one, only processes that multiply matrices start it.
#pragma once

#include <cblas.h>

namespace sluice::backend {

struct Blas {
  decltype(&cblas_sgemm) sgemm = nullptr;
  decltype(&cblas_dgemm) dgemm = nullptr;
};

/// OpenBLAS (libopenblas.so.0) loaded once; null when it cannot be loaded,
/// and callers then use their plain loops.
const Blas *blas();

} // namespace sluice::backend
