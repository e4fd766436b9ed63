// backend/gpu/blas.h: cuBLAS, opened at run time like the driver (no
// link-time CUDA), for matmul on a GPU: the few entry points it needs and
// one handle per device, bound to the device's stream.
#pragma once

#include <memory>
#include <string>

#include "backend/gpu/device.h"

namespace sluice::backend::gpu {

using CublasHandle = struct cublasContext *;
constexpr int kCublasOpN = 0, kCublasOpT = 1; // cublasOperation_t

struct BlasApi {
  int (*cublasCreate)(CublasHandle *h) = nullptr;
  int (*cublasDestroy)(CublasHandle h) = nullptr;
  int (*cublasSetStream)(CublasHandle h, CUstream s) = nullptr;
  // Column-major C = op(A) op(B), alpha and beta in host memory.
  int (*cublasSgemm)(CublasHandle h, int ta, int tb, int m, int n, int k, const float *alpha,
                     const float *a, int lda, const float *b, int ldb, const float *beta,
                     float *c, int ldc) = nullptr;
  int (*cublasDgemm)(CublasHandle h, int ta, int tb, int m, int n, int k, const double *alpha,
                     const double *a, int lda, const double *b, int ldb, const double *beta,
                     double *c, int ldc) = nullptr;
  std::string source;
  std::shared_ptr<void> library;
};

/// Whether cuBLAS could be opened ($SLUICE_CUBLAS, else libcublas.so.13,
/// .12, .11, or the toolkit's under $CUDA_HOME or /usr/local/cuda); the
/// first call tries. Without it matmul stays on the CPU.
bool blasAvailable();
/// Why it is not ("" when it is).
std::string blasUnavailableReason();

/// The device's cuBLAS handle (made on first use, on its stream).
Expected<CublasHandle> blasHandle(Device &dev);
/// The loaded table; only valid when blasAvailable().
const BlasApi &blas();

/// Tests: use `api` (a fake) from now on; without one, no cuBLAS.
void setBlasForTesting(const BlasApi *api);
/// Tests: forget the table and its handles, so the next call loads again.
void resetBlasForTesting();

} // namespace sluice::backend::gpu
