// backend/cpu/training_kernels.cc: the optimizers' update kernels (TF's
// training_ops.cc): each locks its variables, checks them, and updates
// them in place (copy-on-write when a step still holds the old value).
#include <algorithm>
#include <cmath>

#include "backend/cpu/math_util.h"
#include "backend/kernel_registry.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {

using ir::Tensor;

// The variables of handle inputs [0, n), locked together (std::lock avoids
// deadlocks between updates sharing a slot), checked and made writable.
class LockedVariables {
public:
  Status acquire(KernelContext &ctx, int n, int gradIndex) {
    for (int i = 0; i < n; ++i) {
      SLUICE_ASSIGN_OR_RETURN(auto v, lookupVariable(ctx, i));
      vars_.push_back(std::move(v));
    }
    std::vector<std::mutex *> mus;
    for (auto &v : vars_)
      if (std::find(mus.begin(), mus.end(), &v->mu) == mus.end())
        mus.push_back(&v->mu);
    for (std::mutex *m : mus)
      locks_.emplace_back(*m, std::defer_lock);
    lockAll();
    const Tensor &grad = ctx.input(gradIndex);
    for (auto &v : vars_) {
      if (!v->initialized)
        return failedPrecondition("Attempting to use uninitialized value " + v->name());
      if (v->value.dtype() != grad.dtype())
        return invalidArgument("variable " + v->name() + " is " +
                               std::string(ir::dtypeName(v->value.dtype())) +
                               " but the gradient is " + std::string(ir::dtypeName(grad.dtype())));
      if (v->value.dims() != grad.dims())
        return invalidArgument("var and grad do not have the same shape: " +
                               ir::dimsString(v->value.dims()) + " " +
                               ir::dimsString(grad.dims()) + " (variable " + v->name() + ")");
      if (!v->value.isSoleOwner())
        v->value = v->value.deepCopy();
    }
    return Status::ok();
  }
  Tensor &value(int i) { return vars_[static_cast<size_t>(i)]->value; }

private:
  void lockAll() {
    switch (locks_.size()) {
    case 1: locks_[0].lock(); break;
    case 2: std::lock(locks_[0], locks_[1]); break;
    case 3: std::lock(locks_[0], locks_[1], locks_[2]); break;
    default:
      for (auto &l : locks_)
        l.lock();
    }
  }
  std::vector<std::shared_ptr<Variable>> vars_;
  std::vector<std::unique_lock<std::mutex>> locks_;
};

// A scalar hyper-parameter input as the compute type.
template <typename C> Expected<C> scalarAt(KernelContext &ctx, int i, const char *what) {
  const Tensor &t = ctx.input(i);
  if (t.numElements() != 1)
    return invalidArgument(std::string(what) + " is not a scalar: " + ir::dimsString(t.dims()));
  return static_cast<C>(t.elementAsDouble(0));
}

// Runs update(tag, variables, grad) for the float dtype of the gradient
// (input `gradIndex`).
template <int Handles, typename F> void run(KernelContext &ctx, int gradIndex, F &&update) {
  LockedVariables vars;
  if (Status s = vars.acquire(ctx, Handles, gradIndex); !s.isOk())
    return ctx.fail(std::move(s));
  const Tensor &grad = ctx.input(gradIndex);
  bool ok = ir::dispatchPod(grad.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if constexpr (math::kIsFloat<T>) {
      Status s = update(tag, vars, grad);
      if (!s.isOk())
        ctx.fail(std::move(s));
    } else {
      ctx.fail(invalidArgument("optimizers update float variables only"));
    }
  });
  if (!ok)
    ctx.fail(invalidArgument("optimizers update float variables only"));
}

#define SLUICE_SCALAR(name, index)                                                             \
  auto name##Or = scalarAt<C>(ctx, index, #name);                                              \
  if (!name##Or.hasValue())                                                                    \
    return name##Or.takeStatus();                                                              \
  const C name = *name##Or;

class ApplyGradientDescent : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    run<1>(ctx, 2, [&](auto tag, LockedVariables &v, const Tensor &grad) -> Status {
      using T = decltype(tag);
      using C = math::Compute<T>;
      SLUICE_SCALAR(alpha, 1)
      T *var = v.value(0).template data<T>();
      const T *g = grad.data<T>();
      for (int64_t i = 0; i < grad.numElements(); ++i)
        var[i] = math::store<T>(C(math::load(var[i])) - alpha * C(math::load(g[i])));
      return Status::ok();
    });
  }
};

class ApplyMomentum : public OpKernel {
public:
  explicit ApplyMomentum(const ir::Node &n)
      : OpKernel(n), nesterov_(n.attr<bool>("use_nesterov")) {}
  void compute(KernelContext &ctx) override {
    run<2>(ctx, 3, [&](auto tag, LockedVariables &v, const Tensor &grad) -> Status {
      using T = decltype(tag);
      using C = math::Compute<T>;
      SLUICE_SCALAR(lr, 2)
      SLUICE_SCALAR(momentum, 4)
      T *var = v.value(0).template data<T>(), *accum = v.value(1).template data<T>();
      const T *g = grad.data<T>();
      for (int64_t i = 0; i < grad.numElements(); ++i) {
        C gi = math::load(g[i]);
        C a = C(math::load(accum[i])) * momentum + gi;
        accum[i] = math::store<T>(a);
        C step = nesterov_ ? (gi + momentum * a) * lr : a * lr;
        var[i] = math::store<T>(C(math::load(var[i])) - step);
      }
      return Status::ok();
    });
  }

private:
  bool nesterov_;
};

class ApplyAdagrad : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    run<2>(ctx, 3, [&](auto tag, LockedVariables &v, const Tensor &grad) -> Status {
      using T = decltype(tag);
      using C = math::Compute<T>;
      SLUICE_SCALAR(lr, 2)
      T *var = v.value(0).template data<T>(), *accum = v.value(1).template data<T>();
      const T *g = grad.data<T>();
      for (int64_t i = 0; i < grad.numElements(); ++i) {
        C gi = math::load(g[i]);
        C a = C(math::load(accum[i])) + gi * gi;
        accum[i] = math::store<T>(a);
        var[i] = math::store<T>(C(math::load(var[i])) - lr * gi / std::sqrt(a));
      }
      return Status::ok();
    });
  }
};

class ApplyRmsProp : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    run<3>(ctx, 7, [&](auto tag, LockedVariables &v, const Tensor &grad) -> Status {
      using T = decltype(tag);
      using C = math::Compute<T>;
      SLUICE_SCALAR(lr, 3)
      SLUICE_SCALAR(rho, 4)
      SLUICE_SCALAR(momentum, 5)
      SLUICE_SCALAR(epsilon, 6)
      T *var = v.value(0).template data<T>(), *ms = v.value(1).template data<T>(),
        *mom = v.value(2).template data<T>();
      const T *g = grad.data<T>();
      for (int64_t i = 0; i < grad.numElements(); ++i) {
        C gi = math::load(g[i]);
        C m = C(math::load(ms[i])) * rho + gi * gi * (C(1) - rho);
        ms[i] = math::store<T>(m);
        C mo = C(math::load(mom[i])) * momentum + lr * gi / std::sqrt(m + epsilon);
        mom[i] = math::store<T>(mo);
        var[i] = math::store<T>(C(math::load(var[i])) - mo);
      }
      return Status::ok();
    });
  }
};

class ApplyAdam : public OpKernel {
public:
  explicit ApplyAdam(const ir::Node &n) : OpKernel(n), nesterov_(n.attr<bool>("use_nesterov")) {}
  void compute(KernelContext &ctx) override {
    run<3>(ctx, 9, [&](auto tag, LockedVariables &v, const Tensor &grad) -> Status {
      using T = decltype(tag);
      using C = math::Compute<T>;
      SLUICE_SCALAR(beta1Power, 3)
      SLUICE_SCALAR(beta2Power, 4)
      SLUICE_SCALAR(lr, 5)
      SLUICE_SCALAR(beta1, 6)
      SLUICE_SCALAR(beta2, 7)
      SLUICE_SCALAR(epsilon, 8)
      const C alpha = lr * std::sqrt(C(1) - beta2Power) / (C(1) - beta1Power);
      T *var = v.value(0).template data<T>(), *m = v.value(1).template data<T>(),
        *vv = v.value(2).template data<T>();
      const T *g = grad.data<T>();
      for (int64_t i = 0; i < grad.numElements(); ++i) {
        C gi = math::load(g[i]);
        C mi = C(math::load(m[i])) + (gi - C(math::load(m[i]))) * (C(1) - beta1);
        C vi = C(math::load(vv[i])) + (gi * gi - C(math::load(vv[i]))) * (C(1) - beta2);
        m[i] = math::store<T>(mi);
        vv[i] = math::store<T>(vi);
        C num = nesterov_ ? mi * beta1 + (C(1) - beta1) * gi : mi;
        var[i] = math::store<T>(C(math::load(var[i])) - alpha * num / (std::sqrt(vi) + epsilon));
      }
      return Status::ok();
    });
  }

private:
  bool nesterov_;
};

#undef SLUICE_SCALAR

} // namespace

void registerTrainingKernels(KernelRegistry &reg) {
  reg.addSimple<ApplyGradientDescent>("apply_gradient_descent");
  reg.addSimple<ApplyMomentum>("apply_momentum");
  reg.addSimple<ApplyAdagrad>("apply_adagrad");
  reg.addSimple<ApplyRmsProp>("apply_rms_prop");
  reg.addSimple<ApplyAdam>("apply_adam");
}

} // namespace sluice::backend
