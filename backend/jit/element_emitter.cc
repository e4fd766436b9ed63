// backend/jit/element_emitter.cc: one element of a fused body in LLVM IR.
// Each op follows its CPU kernel (backend/cpu/math_*kernels.cc) exactly:
// no fast-math, NaN rules and integer wrapping as there, so the JIT and
// the interpreter agree bit for bit except in libm's own functions.
#include "backend/jit/detail/element_emitter.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>

namespace sluice::backend::jit {

namespace {

using ir::DType;

bool isFloat(DType t) { return t == DType::kF32 || t == DType::kF64; }
bool isUnsigned(DType t) { return t == DType::kU8 || t == DType::kBool; }

class Emitter {
public:
  Emitter(llvm::IRBuilderBase &b, llvm::Module &m) : b_(b), m_(m) {}

  llvm::Value *intrinsic(llvm::Intrinsic::ID id, llvm::Value *x) {
    return b_.CreateUnaryIntrinsic(id, x);
  }
  // A libm function the element calls; the JIT resolves it in the process
  // (a GPU target would map these names to its own library).
  llvm::Value *libm(const char *f32Name, const char *f64Name, DType t,
                    std::vector<llvm::Value *> args) {
    llvm::Type *ty = registerType(b_, t);
    std::vector<llvm::Type *> params(args.size(), ty);
    auto callee = m_.getOrInsertFunction(t == DType::kF32 ? f32Name : f64Name,
                                         llvm::FunctionType::get(ty, params, false));
    if (auto *f = llvm::dyn_cast<llvm::Function>(callee.getCallee())) {
      f->setDoesNotThrow();
      f->setOnlyAccessesInaccessibleMemory();
    }
    return b_.CreateCall(callee, args);
  }
  llvm::Value *zero(DType t) { return llvm::Constant::getNullValue(registerType(b_, t)); }
  llvm::Value *constant(DType t, double v) {
    llvm::Type *ty = registerType(b_, t);
    return isFloat(t) ? llvm::ConstantFP::get(ty, v)
                      : llvm::ConstantInt::get(ty, static_cast<uint64_t>(static_cast<int64_t>(v)),
                                               !isUnsigned(t));
  }
  llvm::Value *lessThan(DType t, llvm::Value *a, llvm::Value *c) {
    if (isFloat(t))
      return b_.CreateFCmpOLT(a, c);
    return isUnsigned(t) ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c);
  }
  llvm::Value *greaterThan(DType t, llvm::Value *a, llvm::Value *c) {
    if (isFloat(t))
      return b_.CreateFCmpOGT(a, c);
    return isUnsigned(t) ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c);
  }

  llvm::Value *unary(const Instr &in, llvm::Value *a) {
    DType t = in.operandType;
    const std::string &op = in.op;
    bool f = isFloat(t);
    if (op == "negative")
      return f ? b_.CreateFNeg(a) : b_.CreateSub(zero(t), a);
    if (op == "abs") {
      if (f)
        return intrinsic(llvm::Intrinsic::fabs, a);
      if (isUnsigned(t))
        return a;
      return b_.CreateSelect(lessThan(t, a, zero(t)), b_.CreateSub(zero(t), a), a);
    }
    if (op == "square")
      return f ? b_.CreateFMul(a, a) : b_.CreateMul(a, a);
    if (op == "sqrt")
      return intrinsic(llvm::Intrinsic::sqrt, a);
    if (op == "rsqrt")
      return b_.CreateFDiv(constant(t, 1), intrinsic(llvm::Intrinsic::sqrt, a));
    if (op == "exp")
      return intrinsic(llvm::Intrinsic::exp, a);
    if (op == "log")
      return intrinsic(llvm::Intrinsic::log, a);
    if (op == "tanh")
      return libm("tanhf", "tanh", t, {a});
    if (op == "sigmoid") {
      // The kernel's two branches both need exp(-|a|): 1/(1+e) for a >= 0,
      // e/(1+e) below (and for NaN), so one exp serves both.
      llvm::Value *e = intrinsic(llvm::Intrinsic::exp,
                                 b_.CreateFNeg(intrinsic(llvm::Intrinsic::fabs, a)));
      llvm::Value *den = b_.CreateFAdd(constant(t, 1), e);
      return b_.CreateSelect(b_.CreateFCmpOGE(a, zero(t)), b_.CreateFDiv(constant(t, 1), den),
                             b_.CreateFDiv(e, den));
    }
    if (op == "relu") // NaN passes, as in TF
      return b_.CreateSelect(lessThan(t, a, zero(t)), zero(t), a);
    if (op == "sign") {
      llvm::Value *s = b_.CreateSelect(greaterThan(t, a, zero(t)), constant(t, 1),
                                       b_.CreateSelect(lessThan(t, a, zero(t)),
                                                       constant(t, -1), zero(t)));
      return f ? b_.CreateSelect(b_.CreateFCmpUNO(a, a), a, s) : s;
    }
    if (op == "floor")
      return intrinsic(llvm::Intrinsic::floor, a);
    if (op == "ceil")
      return intrinsic(llvm::Intrinsic::ceil, a);
    if (op == "round") // half to even, as nearbyint
      return f ? intrinsic(llvm::Intrinsic::nearbyint, a) : a;
    if (op == "logical_not")
      return b_.CreateNot(a);
    if (op == "broadcast_to") // the broadcast is in the loads' strides
      return a;
    return nullptr;
  }

  llvm::Value *minMax(DType t, llvm::Value *a, llvm::Value *c, bool isMax) {
    llvm::Value *pick = isMax ? b_.CreateSelect(lessThan(t, a, c), c, a)
                              : b_.CreateSelect(lessThan(t, c, a), c, a);
    if (!isFloat(t))
      return pick;
    // NaN propagates: the NaN operand (a's when both are).
    llvm::Value *nanA = b_.CreateFCmpUNO(a, a), *nanC = b_.CreateFCmpUNO(c, c);
    return b_.CreateSelect(nanA, a, b_.CreateSelect(nanC, c, pick));
  }

  llvm::Value *compare(const std::string &op, DType t, llvm::Value *a, llvm::Value *c) {
    if (isFloat(t)) {
      if (op == "equal") return b_.CreateFCmpOEQ(a, c);
      if (op == "not_equal") return b_.CreateFCmpUNE(a, c);
      if (op == "less") return b_.CreateFCmpOLT(a, c);
      if (op == "less_equal") return b_.CreateFCmpOLE(a, c);
      if (op == "greater") return b_.CreateFCmpOGT(a, c);
      if (op == "greater_equal") return b_.CreateFCmpOGE(a, c);
      return nullptr;
    }
    bool u = isUnsigned(t);
    if (op == "equal") return b_.CreateICmpEQ(a, c);
    if (op == "not_equal") return b_.CreateICmpNE(a, c);
    if (op == "less") return u ? b_.CreateICmpULT(a, c) : b_.CreateICmpSLT(a, c);
    if (op == "less_equal") return u ? b_.CreateICmpULE(a, c) : b_.CreateICmpSLE(a, c);
    if (op == "greater") return u ? b_.CreateICmpUGT(a, c) : b_.CreateICmpSGT(a, c);
    if (op == "greater_equal") return u ? b_.CreateICmpUGE(a, c) : b_.CreateICmpSGE(a, c);
    return nullptr;
  }

  llvm::Value *binary(const Instr &in, llvm::Value *a, llvm::Value *c) {
    DType t = in.operandType;
    const std::string &op = in.op;
    bool f = isFloat(t);
    if (op == "add")
      return f ? b_.CreateFAdd(a, c) : b_.CreateAdd(a, c); // ints wrap (no nsw)
    if (op == "subtract")
      return f ? b_.CreateFSub(a, c) : b_.CreateSub(a, c);
    if (op == "multiply")
      return f ? b_.CreateFMul(a, c) : b_.CreateMul(a, c);
    if (op == "squared_difference") {
      llvm::Value *d = f ? b_.CreateFSub(a, c) : b_.CreateSub(a, c);
      return f ? b_.CreateFMul(d, d) : b_.CreateMul(d, d);
    }
    if (op == "divide") {
      if (f)
        return b_.CreateFDiv(a, c);
      // TF1's truediv: ints become floats (in.type says which).
      llvm::Type *r = registerType(b_, in.type);
      auto conv = [&](llvm::Value *v) {
        return isUnsigned(t) ? b_.CreateUIToFP(v, r) : b_.CreateSIToFP(v, r);
      };
      return b_.CreateFDiv(conv(a), conv(c));
    }
    if (op == "pow")
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, a, c);
    if (op == "maximum" || op == "minimum")
      return minMax(t, a, c, op == "maximum");
    if (op == "logical_and")
      return b_.CreateAnd(a, c);
    if (op == "logical_or")
      return b_.CreateOr(a, c);
    return compare(op, t, a, c);
  }

  // castValue in math_unary_kernels.cc: float to int truncates and
  // saturates, NaN gives 0 (exactly fptosi.sat's rules).
  llvm::Value *cast(DType from, DType to, llvm::Value *a) {
    llvm::Type *r = registerType(b_, to);
    if (from == to)
      return a;
    if (to == DType::kBool)
      return isFloat(from) ? b_.CreateFCmpUNE(a, zero(from)) : b_.CreateICmpNE(a, zero(from));
    if (isFloat(from) && isFloat(to))
      return b_.CreateFPCast(a, r);
    if (isFloat(from))
      return b_.CreateIntrinsic(isUnsigned(to) ? llvm::Intrinsic::fptoui_sat
                                               : llvm::Intrinsic::fptosi_sat,
                                {r, a->getType()}, {a});
    if (isFloat(to))
      return isUnsigned(from) ? b_.CreateUIToFP(a, r) : b_.CreateSIToFP(a, r);
    return b_.CreateIntCast(a, r, !isUnsigned(from));
  }

private:
  llvm::IRBuilderBase &b_;
  llvm::Module &m_;
};

} // namespace

llvm::Type *registerType(llvm::IRBuilderBase &b, ir::DType t) {
  switch (t) {
  case DType::kF32: return b.getFloatTy();
  case DType::kF64: return b.getDoubleTy();
  case DType::kI8:
  case DType::kU8: return b.getInt8Ty();
  case DType::kI16: return b.getInt16Ty();
  case DType::kI32: return b.getInt32Ty();
  case DType::kI64: return b.getInt64Ty();
  case DType::kBool: return b.getInt1Ty();
  default: return nullptr;
  }
}

llvm::Type *memoryType(llvm::IRBuilderBase &b, ir::DType t) {
  return t == DType::kBool ? b.getInt8Ty() : registerType(b, t);
}

std::vector<llvm::Value *> emitElement(llvm::IRBuilderBase &b, llvm::Module &m,
                                       const LoopNest &p,
                                       const std::vector<llvm::Value *> &loadedInputs) {
  return emitInstrs(b, m, p.instrs, p.results,
                    [&](const Instr &in) { return loadedInputs[in.input]; });
}

std::vector<llvm::Value *> emitInstrs(llvm::IRBuilderBase &b, llvm::Module &m,
                                      const std::vector<Instr> &instrs,
                                      const std::vector<int> &results,
                                      const std::function<llvm::Value *(const Instr &)> &leaf) {
  Emitter e(b, m);
  std::vector<llvm::Value *> v(instrs.size(), nullptr);
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instr &in = instrs[i];
    auto arg = [&](int k) { return v[in.operands[k]]; };
    if (in.op == "load" || in.op == "row" || in.op == "buffer")
      v[i] = leaf(in);
    else if (in.op == "cast")
      v[i] = e.cast(in.operandType, in.type, arg(0));
    else if (in.op == "select")
      v[i] = b.CreateSelect(arg(0), arg(1), arg(2));
    else if (in.op == "add_n") {
      llvm::Value *acc = arg(0);
      for (size_t k = 1; k < in.operands.size(); ++k)
        acc = isFloat(in.type) ? b.CreateFAdd(acc, arg(static_cast<int>(k)))
                               : b.CreateAdd(acc, arg(static_cast<int>(k)));
      v[i] = acc;
    } else if (in.operands.size() == 1)
      v[i] = e.unary(in, arg(0));
    else
      v[i] = e.binary(in, arg(0), arg(1));
    // buildElementProgram admits only ops handled above.
    assert(v[i] && "an op without generated code passed buildElementProgram");
  }
  std::vector<llvm::Value *> out;
  for (int o : results)
    out.push_back(v[o]);
  return out;
}

} // namespace sluice::backend::jit
