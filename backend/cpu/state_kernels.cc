// backend/cpu/state_kernels.cc: CPU kernels for variables: create the
// resource and output its handle, read, assign, assign_add/sub, and the
// initialized test. Messages follow TF's ref-variable kernels.
#include <type_traits>

#include "backend/kernel_registry.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {

std::string uninitializedMessage(const Variable &v) {
  return "Attempting to use uninitialized value " + v.name();
}

class VariableKernel : public OpKernel {
public:
  explicit VariableKernel(const ir::Node &n)
      : OpKernel(n), container_(n.attr<std::string>("container")),
        name_(n.attr<std::string>("shared_name")),
        dtype_(n.attr<ir::DType>("dtype")), shape_(n.attr<ir::Shape>("shape")) {
    if (name_.empty())
      name_ = n.name();
    key_ = encodeResourceKey(container_, name_);
  }

  void compute(KernelContext &ctx) override {
    if (!ctx.resources())
      return ctx.fail(internalError("no resource manager in this step"));
    auto var = ctx.resources()->lookupOrCreate<Variable>(
        container_, name_, [&]() -> Expected<std::shared_ptr<Variable>> {
          return std::make_shared<Variable>(name_, dtype_, shape_);
        });
    if (!var.hasValue())
      return ctx.fail(var.takeStatus());
    if ((*var)->dtype() != dtype_)
      return ctx.fail(invalidArgument(
          "Trying to share variable " + name_ + ", but specified dtype " +
          std::string(ir::dtypeName(dtype_)) + " and found dtype " +
          std::string(ir::dtypeName((*var)->dtype()))));
    ir::Tensor &h = ctx.allocateOutput(0, ir::DType::kResource, {});
    h.strings()[0] = key_;
  }

private:
  std::string container_, name_, key_;
  ir::DType dtype_;
  ir::Shape shape_;
};

class ReadVariableKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto var = lookupVariable(ctx, 0);
    if (!var.hasValue())
      return ctx.fail(var.takeStatus());
    Variable &v = **var;
    ir::DType want = node().attr<ir::DType>("dtype");
    if (v.dtype() != want)
      return ctx.fail(invalidArgument(
          "Trying to read variable with wrong dtype. Expected " +
          std::string(ir::dtypeName(v.dtype())) + " got " +
          std::string(ir::dtypeName(want))));
    std::lock_guard<std::mutex> lock(v.mu);
    if (!v.initialized)
      return ctx.fail(failedPrecondition(uninitializedMessage(v)));
    ctx.setOutput(0, v.value);
  }
};

Status checkValueDtype(const Variable &v, const ir::Tensor &value) {
  if (value.dtype() == v.dtype())
    return Status::ok();
  return invalidArgument("cannot assign a value of dtype " +
                         std::string(ir::dtypeName(value.dtype())) +
                         " to variable " + v.name() + " of dtype " +
                         std::string(ir::dtypeName(v.dtype())));
}

class AssignKernel : public OpKernel {
public:
  explicit AssignKernel(const ir::Node &n)
      : OpKernel(n), validateShape_(n.attr<bool>("validate_shape")) {}

  void compute(KernelContext &ctx) override {
    auto var = lookupVariable(ctx, 0);
    if (!var.hasValue())
      return ctx.fail(var.takeStatus());
    Variable &v = **var;
    const ir::Tensor &value = ctx.input(1);
    if (Status s = checkValueDtype(v, value); !s)
      return ctx.fail(std::move(s));
    std::lock_guard<std::mutex> lock(v.mu);
    if (validateShape_) {
      // TF compares with the current value once initialized, and with
      // the declared shape before that.
      bool same = v.initialized ? v.value.dims() == value.dims()
                                : v.declaredShape().isCompatibleWith(value.dims());
      if (!same) {
        std::string lhs = v.initialized ? ir::dimsString(v.value.dims())
                                        : v.declaredShape().str();
        return ctx.fail(invalidArgument(
            "Assign requires shapes of both tensors to match. lhs shape= " +
            lhs + " rhs shape= " + ir::dimsString(value.dims())));
      }
    }
    v.value = value;
    v.initialized = true;
    ctx.setOutput(0, v.value);
  }

private:
  bool validateShape_;
};

template <typename T>
void accumulate(T *dst, const T *src, int64_t n, bool subtract) {
  if constexpr (std::is_same_v<T, ir::Half>) {
    for (int64_t i = 0; i < n; ++i)
      dst[i] = ir::Half(subtract ? float(dst[i]) - float(src[i])
                                 : float(dst[i]) + float(src[i]));
  } else if constexpr (std::is_same_v<T, bool>) {
    (void)dst, (void)src, (void)n, (void)subtract; // excluded by the op row
  } else {
    if (subtract)
      for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<T>(dst[i] - src[i]);
    else
      for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<T>(dst[i] + src[i]);
  }
}

class AssignUpdateKernel : public OpKernel {
public:
  AssignUpdateKernel(const ir::Node &n, bool subtract)
      : OpKernel(n), subtract_(subtract) {}

  void compute(KernelContext &ctx) override {
    auto var = lookupVariable(ctx, 0);
    if (!var.hasValue())
      return ctx.fail(var.takeStatus());
    Variable &v = **var;
    const ir::Tensor &delta = ctx.input(1);
    if (Status s = checkValueDtype(v, delta); !s)
      return ctx.fail(std::move(s));
    std::lock_guard<std::mutex> lock(v.mu);
    if (!v.initialized)
      return ctx.fail(failedPrecondition(uninitializedMessage(v)));
    if (v.value.dims() != delta.dims())
      return ctx.fail(invalidArgument(
          "Parameters and update must be the same size. lhs shape= " +
          ir::dimsString(v.value.dims()) +
          " rhs shape= " + ir::dimsString(delta.dims())));
    // Copy-on-write: a step (or the caller) that read the old value keeps it.
    if (!v.value.isSoleOwner())
      v.value = v.value.deepCopy();
    ir::dispatchPod(v.value.dtype(), [&](auto tag) {
      using T = decltype(tag);
      accumulate<T>(v.value.template data<T>(), delta.template data<T>(),
                    delta.numElements(), subtract_);
    });
    ctx.setOutput(0, v.value);
  }

private:
  bool subtract_;
};

class IsInitializedKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto var = lookupVariable(ctx, 0);
    bool init = false;
    if (var.hasValue()) {
      std::lock_guard<std::mutex> lock((*var)->mu);
      init = (*var)->initialized;
    }
    ctx.setOutput(0, ir::Tensor::scalar<bool>(init));
  }
};

} // namespace

void registerStateKernels(KernelRegistry &reg) {
  reg.addSimple<VariableKernel>("variable");
  reg.addSimple<ReadVariableKernel>("read_variable");
  reg.addSimple<AssignKernel>("assign");
  reg.add("assign_add", "CPU",
          [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
            return std::unique_ptr<OpKernel>(
                std::make_unique<AssignUpdateKernel>(n, false));
          });
  reg.add("assign_sub", "CPU",
          [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
            return std::unique_ptr<OpKernel>(
                std::make_unique<AssignUpdateKernel>(n, true));
          });
  reg.addSimple<IsInitializedKernel>("is_variable_initialized");
}

} // namespace sluice::backend
