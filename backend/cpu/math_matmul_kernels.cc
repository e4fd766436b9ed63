// backend/cpu/math_matmul_kernels.cc: the CPU matmul kernel: OpenBLAS gemm
// for f32/f64, a plain loop for the other numeric types.
#include <algorithm>
#include <memory>
#include <thread>
#include <vector>

#include "backend/cpu/blas.h"
#include "backend/cpu/math_util.h"

namespace sluice::backend {

namespace {

using math::kIsFloat;
using math::kIsInt;

struct GemmDims {
  int64_t m, k, n;
  bool ta, tb;
};

/// A plain i-k-j loop: B's rows are read contiguously when not transposed.
/// Ints accumulate as int64 (wrapping exactly like T on store), f16 as float.
template <typename T>
void loopGemm(const T *a, const T *b, T *c, const GemmDims &d, int64_t lda,
              int64_t ldb) {
  using A = std::conditional_t<kIsInt<T>, int64_t, math::Compute<T>>;
  std::vector<A> row(d.n);
  for (int64_t i = 0; i < d.m; ++i) {
    std::fill(row.begin(), row.end(), A(0));
    for (int64_t p = 0; p < d.k; ++p) {
      A aik = static_cast<A>(math::load(d.ta ? a[p * lda + i] : a[i * lda + p]));
      for (int64_t j = 0; j < d.n; ++j) {
        A bkj = static_cast<A>(math::load(d.tb ? b[j * ldb + p] : b[p * ldb + j]));
        if constexpr (kIsInt<T>)
          row[j] = math::wrapAdd(row[j], math::wrapMul(aik, bkj));
        else
          row[j] += aik * bkj;
      }
    }
    for (int64_t j = 0; j < d.n; ++j)
      c[i * d.n + j] = math::store<T>(row[j]);
  }
}

class MatMulKernel final : public OpKernel {
public:
  explicit MatMulKernel(const ir::Node &n)
      : OpKernel(n),
        ta_(n.attr<bool>("transpose_a") || n.attr<bool>("adjoint_a")),
        tb_(n.attr<bool>("transpose_b") || n.attr<bool>("adjoint_b")) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &a = ctx.input(0), &b = ctx.input(1);
    // Same text as the static check, so an error reads the same wherever
    // it is found.
    std::string suffix = " for '" + node().name() +
                         "' (op: 'matmul') with input shapes: " +
                         ir::dimsString(a.dims()) + ", " +
                         ir::dimsString(b.dims());
    for (const ir::Tensor *t : {&a, &b})
      if (t->rank() != 2) {
        ctx.fail(invalidArgument("Shape must be rank 2 but is rank " +
                                 std::to_string(t->rank()) + suffix));
        return;
      }
    GemmDims d{ta_ ? a.dim(1) : a.dim(0), ta_ ? a.dim(0) : a.dim(1),
               tb_ ? b.dim(0) : b.dim(1), ta_, tb_};
    int64_t kb = tb_ ? b.dim(1) : b.dim(0);
    if (d.k != kb) {
      ctx.fail(invalidArgument("Dimensions must be equal, but are " +
                               std::to_string(d.k) + " and " +
                               std::to_string(kb) + suffix));
      return;
    }
    if (a.dtype() != b.dtype()) {
      ctx.fail(invalidArgument("matmul inputs differ in dtype"));
      return;
    }
    ir::Tensor &c = ctx.allocateOutput(0, a.dtype(), {d.m, d.n});
    if (d.m == 0 || d.n == 0)
      return;
    if (d.k == 0) { // gemm's leading-dimension rules reject empty inner dims
      c = ir::Tensor(a.dtype(), {d.m, d.n});
      return;
    }
    bool handled = false;
    ir::dispatchPod(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (kIsFloat<T> || kIsInt<T>) {
        handled = true;
        parallelGemm(a.data<T>(), b.data<T>(), c.data<T>(), d, a.dim(1), b.dim(1),
                     ctx.intraOpThreads());
      }
    });
    if (!handled)
      ctx.fail(unimplemented("matmul does not support dtype " +
                             std::string(ir::dtypeName(a.dtype()))));
  }

private:
  // Big products split their rows over intra_op_parallelism_threads, each
  // block a single-threaded gemm: OpenBLAS's own pool is kept at one
  // thread (backend/cpu/blas.cc), because for the small products most
  // steps have it costs more than it saves.
  template <typename T>
  static void parallelGemm(const T *a, const T *b, T *c, const GemmDims &d, int64_t lda,
                           int64_t ldb, int threads) {
    constexpr double kMinFlopsPerThread = 1 << 22;
    double flops = 2.0 * static_cast<double>(d.m) * static_cast<double>(d.n) *
                   static_cast<double>(d.k);
    int n = static_cast<int>(std::min<double>(
        {static_cast<double>(threads), flops / kMinFlopsPerThread, static_cast<double>(d.m)}));
    if (n <= 1)
      return gemm(a, b, c, d, lda, ldb);
    std::vector<std::thread> workers;
    int64_t rows = (d.m + n - 1) / n;
    for (int t = 0; t < n; ++t) {
      int64_t r0 = t * rows, r1 = std::min(d.m, r0 + rows);
      if (r0 >= r1)
        break;
      GemmDims part = d;
      part.m = r1 - r0;
      // Rows of C are rows of A, or columns of A when it is transposed.
      const T *ap = d.ta ? a + r0 : a + r0 * lda;
      T *cp = c + r0 * d.n;
      auto run = [=] { gemm(ap, b, cp, part, lda, ldb); };
      if (t + 1 == n)
        run(); // the caller takes the last block
      else
        workers.emplace_back(run);
    }
    for (std::thread &w : workers)
      w.join();
  }

  template <typename T>
  static void gemm(const T *a, const T *b, T *c, const GemmDims &d,
                   int64_t lda, int64_t ldb) {
    auto ta = d.ta ? CblasTrans : CblasNoTrans;
    auto tb = d.tb ? CblasTrans : CblasNoTrans;
    const Blas *b3 = blas();
    if constexpr (std::is_same_v<T, float>) {
      if (b3)
        return b3->sgemm(CblasRowMajor, ta, tb, d.m, d.n, d.k, 1.0f, a, lda, b, ldb, 0.0f, c,
                         d.n);
    } else if constexpr (std::is_same_v<T, double>) {
      if (b3)
        return b3->dgemm(CblasRowMajor, ta, tb, d.m, d.n, d.k, 1.0, a, lda, b, ldb, 0.0, c,
                         d.n);
    }
    loopGemm(a, b, c, d, lda, ldb);
  }

  bool ta_, tb_;
};

} // namespace

void registerMathMatmulKernels(KernelRegistry &reg) {
  reg.addSimple<MatMulKernel>("matmul");
}

} // namespace sluice::backend
