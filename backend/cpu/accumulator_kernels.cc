// backend/cpu/accumulator_kernels.cc: the ConditionalAccumulator ops.
// take_gradient is an async kernel: it holds no thread while it waits for
// the other replicas' gradients.

#include "backend/conditional_accumulator.h"
#include "backend/handle_lookup.h"
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

constexpr const char *kPrivateContainer = "#private-accumulator";

class AccumulatorOpKernel : public OpKernel {
public:
  explicit AccumulatorOpKernel(const ir::Node &n)
      : OpKernel(n), dtype_(n.attr<ir::DType>("dtype")), shape_(n.attr<ir::Shape>("shape")),
        container_(n.attr<std::string>("container")),
        sharedName_(n.attr<std::string>("shared_name")) {
    std::string reduction = n.attr<std::string>("reduction_type");
    mean_ = reduction != "SUM";
    badReduction_ = reduction != "SUM" && reduction != "MEAN";
  }

  void compute(KernelContext &ctx) override {
    if (badReduction_)
      return ctx.fail(invalidArgument("reduction_type must be MEAN or SUM, got '" +
                                      node().attr<std::string>("reduction_type") + "'"));
    if (!ctx.resources())
      return ctx.fail(internalError("no resource manager in this step"));
    bool shared = !sharedName_.empty();
    std::string container = shared ? container_ : kPrivateContainer;
    std::string name = shared ? sharedName_ : node().name();
    auto acc = ctx.resources()->lookupOrCreate<ConditionalAccumulator>(
        container, name, [&]() -> Expected<std::shared_ptr<ConditionalAccumulator>> {
          return std::make_shared<ConditionalAccumulator>(dtype_, shape_, name, mean_);
        });
    if (!acc.hasValue())
      return ctx.fail(acc.takeStatus());
    // Re-opening a shared accumulator must ask for the same one.
    if ((*acc)->dtype() != dtype_ || !((*acc)->shape() == shape_) || (*acc)->mean() != mean_)
      return ctx.fail(invalidArgument(
          "Shared accumulator '" + name + "' holds " +
          std::string(ir::dtypeName((*acc)->dtype())) + " " + (*acc)->shape().str() +
          ", but this op asks for " + std::string(ir::dtypeName(dtype_)) + " " + shape_.str()));
    ir::Tensor &h = ctx.allocateOutput(0, ir::DType::kResource, {});
    h.strings()[0] = encodeResourceKey(container, name);
  }

private:
  ir::DType dtype_;
  ir::Shape shape_;
  std::string container_, sharedName_;
  bool mean_ = true, badReduction_ = false;
};

Expected<std::shared_ptr<ConditionalAccumulator>> accumulator(KernelContext &ctx) {
  return lookupHandle<ConditionalAccumulator>(ctx, 0, "accumulator");
}

Expected<int64_t> scalarInput(KernelContext &ctx, int i, const char *what) {
  const ir::Tensor &t = ctx.input(i);
  if (t.numElements() != 1 || t.rank() != 0)
    return invalidArgument(std::string(what) + " must be a scalar, got shape " +
                           ir::dimsString(t.dims()));
  return t.elementAsInt(0);
}

class ApplyGradientKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto acc = accumulator(ctx);
    if (!acc.hasValue())
      return ctx.fail(acc.takeStatus());
    auto step = scalarInput(ctx, 1, "local_step");
    if (!step.hasValue())
      return ctx.fail(step.takeStatus());
    if (Status s = (*acc)->applyGrad(*step, ctx.input(2)); !s.isOk())
      ctx.fail(std::move(s));
  }
};

class TakeGradientKernel : public AsyncOpKernel {
public:
  using AsyncOpKernel::AsyncOpKernel;
  void computeAsync(KernelContext &ctx, std::function<void()> done) override {
    auto acc = accumulator(ctx);
    if (!acc.hasValue()) {
      ctx.fail(acc.takeStatus());
      return done();
    }
    auto n = scalarInput(ctx, 1, "num_required");
    if (!n.hasValue()) {
      ctx.fail(n.takeStatus());
      return done();
    }
    (*acc)->tryTakeGrad(*n, ctx.cancellation(),
                        [&ctx, done = std::move(done)](Status s, ir::Tensor value) {
                          if (!s.isOk())
                            ctx.fail(std::move(s));
                          else
                            ctx.setOutput(0, std::move(value));
                          done();
                        });
  }
};

class NumAccumulatedKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto acc = accumulator(ctx);
    if (!acc.hasValue())
      return ctx.fail(acc.takeStatus());
    ctx.setOutput(0, ir::Tensor::scalar<int32_t>(static_cast<int32_t>((*acc)->numAccumulated())));
  }
};

class SetGlobalStepKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto acc = accumulator(ctx);
    if (!acc.hasValue())
      return ctx.fail(acc.takeStatus());
    auto step = scalarInput(ctx, 1, "new_global_step");
    if (!step.hasValue())
      return ctx.fail(step.takeStatus());
    (*acc)->setGlobalStep(*step);
  }
};

} // namespace

void registerAccumulatorKernels(KernelRegistry &reg) {
  reg.addSimple<AccumulatorOpKernel>("conditional_accumulator");
  reg.addSimple<ApplyGradientKernel>("accumulator_apply_gradient");
  reg.addSimple<TakeGradientKernel>("accumulator_take_gradient");
  reg.addSimple<NumAccumulatedKernel>("accumulator_num_accumulated");
  reg.addSimple<SetGlobalStepKernel>("accumulator_set_global_step");
}

} // namespace sluice::backend
