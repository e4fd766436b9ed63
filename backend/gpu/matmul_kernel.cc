// backend/gpu/matmul_kernel.cc: matmul of f32/f64 on a GPU through cuBLAS
// (backend/gpu/blas.h), queued on the device's stream. A row-major C =
// op(A) op(B) is the column-major C^T = op(B)^T op(A)^T, so cuBLAS gets B
// first, with the row lengths as leading dimensions.
#include <cstdint>
#include <mutex>

#include "backend/gpu/blas.h"
#include "backend/gpu/gpu_kernels.h"
#include "backend/gpu/host_kernel.h"
#include "backend/gpu/platform.h"

namespace sluice::backend::gpu {

namespace {

class MatMulKernel final : public OpKernel {
public:
  MatMulKernel(const ir::Node &n, std::shared_ptr<Device> dev, const KernelRegistry &host)
      : OpKernel(n), dev_(std::move(dev)), host_(host),
        ta_(n.attr<bool>("transpose_a") || n.attr<bool>("adjoint_a")),
        tb_(n.attr<bool>("transpose_b") || n.attr<bool>("adjoint_b")) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &a = ctx.input(0), &b = ctx.input(1);
    if (a.rank() != 2 || b.rank() != 2 || a.dtype() != b.dtype())
      return ctx.fail(invalidArgument("matmul on a GPU needs two matrices of one dtype, got " +
                                      ir::dimsString(a.dims()) + " and " +
                                      ir::dimsString(b.dims())));
    int64_t m = ta_ ? a.dim(1) : a.dim(0), k = ta_ ? a.dim(0) : a.dim(1);
    int64_t kb = tb_ ? b.dim(1) : b.dim(0), n = tb_ ? b.dim(0) : b.dim(1);
    if (k != kb)
      return ctx.fail(invalidArgument("Dimensions must be equal, but are " + std::to_string(k) +
                                      " and " + std::to_string(kb) + " for '" + node().name() +
                                      "' (op: 'matmul')"));
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
      return ctx.fail(unimplemented("matmul on a GPU takes dimensions below 2^31"));
    if (k == 0) { // gemm's leading-dimension rules reject empty inner dims
      auto z = dev_->upload(ir::Tensor(a.dtype(), {m, n}));
      return z.hasValue() ? ctx.setOutput(0, std::move(*z)) : ctx.fail(z.takeStatus());
    }
    auto da = dev_->place(a), db = dev_->place(b);
    if (!da.hasValue())
      return ctx.fail(da.takeStatus());
    if (!db.hasValue())
      return ctx.fail(db.takeStatus());
    auto c = dev_->allocateTensor(a.dtype(), {m, n});
    if (!c.hasValue())
      return ctx.fail(c.takeStatus());
    if (m > 0 && n > 0) {
      auto h = blasHandle(*dev_);
      if (!h.hasValue())
        return onHost(ctx, h.status()); // a cuBLAS too new for the driver, ...
      Status s = dev_->makeCurrent();
      if (!s.isOk())
        return ctx.fail(s);
      auto addr = [](const ir::Tensor &t) { return t.deviceMemory()->address(); };
      int opA = ta_ ? kCublasOpT : kCublasOpN, opB = tb_ ? kCublasOpT : kCublasOpN;
      int r;
      if (a.dtype() == ir::DType::kF32) {
        const float one = 1, zero = 0;
        r = blas().cublasSgemm(*h, opB, opA, int(n), int(m), int(k), &one,
                               reinterpret_cast<const float *>(addr(*db)), int(b.dim(1)),
                               reinterpret_cast<const float *>(addr(*da)), int(a.dim(1)), &zero,
                               reinterpret_cast<float *>(addr(*c)), int(n));
      } else {
        const double one = 1, zero = 0;
        r = blas().cublasDgemm(*h, opB, opA, int(n), int(m), int(k), &one,
                               reinterpret_cast<const double *>(addr(*db)), int(b.dim(1)),
                               reinterpret_cast<const double *>(addr(*da)), int(a.dim(1)),
                               &zero, reinterpret_cast<double *>(addr(*c)), int(n));
      }
      if (r != 0)
        return ctx.fail(internalError("cuBLAS gemm of '" + node().name() + "' failed: status " +
                                      std::to_string(r)));
      countLaunch();
    }
    ctx.setOutput(0, std::move(*c));
  }

private:
  // cuBLAS opened but cannot serve this device: the CPU's kernel runs the
  // product between copies, with a note, rather than failing the step.
  void onHost(KernelContext &ctx, const Status &why) {
    std::call_once(fallbackOnce_, [&] {
      auto k = host_.create(node(), "CPU");
      if (k.hasValue())
        fallback_ = std::make_unique<HostKernel>(node(), dev_, std::move(*k));
      else
        fallbackError_ = k.takeStatus();
      note("'" + node().name() + "' runs on the host between copies: " + why.message());
    });
    if (!fallback_)
      return ctx.fail(fallbackError_);
    fallback_->compute(ctx);
  }

  std::shared_ptr<Device> dev_;
  const KernelRegistry &host_;
  bool ta_, tb_;
  std::once_flag fallbackOnce_;
  std::unique_ptr<HostKernel> fallback_;
  Status fallbackError_;
};

// cuBLAS takes int dimensions; f32 and f64 only; shapes known, so that
// the placer does not send a product it cannot run.
bool gemmOnGpu(const ir::Node &n) {
  ir::DType t = n.outputType(0);
  const ir::Shape &s = n.outputShape(0);
  if ((t != ir::DType::kF32 && t != ir::DType::kF64) || !s.isFullyDefined() || s.rank() != 2)
    return false;
  for (int64_t d : s.dims())
    if (d > INT32_MAX)
      return false;
  return blasAvailable();
}

} // namespace

void registerMatMulKernel(KernelRegistry &reg, const KernelRegistry &host) {
  const KernelRegistry *h = &host;
  reg.add(
      "matmul", "GPU",
      [h](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
        SLUICE_ASSIGN_OR_RETURN(auto dev, deviceOf(n.assignedDevice()));
        return std::unique_ptr<OpKernel>(std::make_unique<MatMulKernel>(n, std::move(dev), *h));
      },
      gemmOnGpu);
}

} // namespace sluice::backend::gpu
