// backend/jit/detail/loop_emitter.h: the loops and reduction folds the CPU
// and GPU code generators share: counted loops, a reduction's identity,
// combine and final conversion, and the CPU kernel's fold of a reduced
// run (four interleaved partials, the tail into the first, then in
// order), which both targets copy so that their sums match the
// interpreter's bit for bit.
#pragma once

#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "backend/jit/element_program.h"
#include "ir/dtype.h"

namespace sluice::backend::jit {

class LoopEmitter {
public:
  LoopEmitter(llvm::IRBuilderBase &b, llvm::Function *f) : b_(b), f_(f) {}

  llvm::IRBuilderBase &builder() { return b_; }
  llvm::Function *function() { return f_; }

  /// A counted loop [lo, hi) by `step`; `body` gets the index and emits at
  /// the builder's point. It runs while i + step <= hi, so a step of 4
  /// never reads past the end; lastEnd() is where it stopped (where a tail
  /// starts). Leaves the builder after the loop.
  template <typename F>
  void loop(llvm::Value *lo, llvm::Value *hi, int64_t step, const std::string &name, F body) {
    llvm::LLVMContext &c = b_.getContext();
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    llvm::BasicBlock *head = llvm::BasicBlock::Create(c, name, f_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, name + ".exit", f_);
    auto more = [&](llvm::Value *i) {
      return b_.CreateICmpSLE(b_.CreateAdd(i, b_.getInt64(step)), hi);
    };
    b_.CreateCondBr(more(lo), head, exit);
    b_.SetInsertPoint(head);
    llvm::PHINode *i = b_.CreatePHI(b_.getInt64Ty(), 2, name + ".i");
    i->addIncoming(lo, pre);
    body(static_cast<llvm::Value *>(i));
    llvm::Value *next = b_.CreateAdd(i, b_.getInt64(step));
    llvm::BasicBlock *latch = b_.GetInsertBlock(); // the body may have added blocks
    i->addIncoming(next, latch);
    b_.CreateCondBr(more(next), head, exit);
    b_.SetInsertPoint(exit);
    llvm::PHINode *after = b_.CreatePHI(b_.getInt64Ty(), 2, name + ".end");
    after->addIncoming(lo, pre);
    after->addIncoming(next, latch);
    lastEnd_ = after;
  }
  llvm::Value *lastEnd() const { return lastEnd_; }

  static bool isFloat(ir::DType t) { return t == ir::DType::kF32 || t == ir::DType::kF64; }
  /// The accumulator: double for floats, int64 for ints (as the kernel).
  llvm::Type *accType(ir::DType t) { return isFloat(t) ? b_.getDoubleTy() : b_.getInt64Ty(); }
  llvm::Value *widen(ir::DType t, llvm::Value *v) {
    return isFloat(t) ? b_.CreateFPExt(v, b_.getDoubleTy()) : b_.CreateSExt(v, b_.getInt64Ty());
  }

  llvm::Value *identity(const std::string &op, ir::DType t) {
    if (op == "reduce_sum" || op == "reduce_mean")
      return isFloat(t) ? llvm::ConstantFP::get(b_.getDoubleTy(), 0.0) : b_.getInt64(0);
    bool isMax = op == "reduce_max";
    if (isFloat(t))
      return llvm::ConstantFP::getInfinity(b_.getDoubleTy(), isMax);
    bool wide = t == ir::DType::kI64;
    int64_t lo = wide ? INT64_MIN : INT32_MIN, hi = wide ? INT64_MAX : INT32_MAX;
    return b_.getInt64(static_cast<uint64_t>(isMax ? lo : hi));
  }

  llvm::Value *combine(const std::string &op, ir::DType t, llvm::Value *acc, llvm::Value *x) {
    bool f = isFloat(t);
    if (op == "reduce_sum" || op == "reduce_mean")
      return f ? b_.CreateFAdd(acc, x) : b_.CreateAdd(acc, x);
    bool isMax = op == "reduce_max";
    // if (x > acc || x is NaN) acc = x, as the kernel's MaxR/MinR.
    llvm::Value *better = f ? (isMax ? b_.CreateFCmpOGT(x, acc) : b_.CreateFCmpOLT(x, acc))
                            : (isMax ? b_.CreateICmpSGT(x, acc) : b_.CreateICmpSLT(x, acc));
    if (f)
      better = b_.CreateOr(better, b_.CreateFCmpUNO(x, x));
    return b_.CreateSelect(better, x, acc);
  }

  /// The accumulator as the reduction's result in register type (a mean
  /// divided by `count` first).
  llvm::Value *finish(const std::string &op, ir::DType t, llvm::Value *acc, int64_t count,
                      llvm::Type *resultType) {
    if (op == "reduce_mean") {
      if (isFloat(t))
        acc = b_.CreateFDiv(acc, llvm::ConstantFP::get(b_.getDoubleTy(), static_cast<double>(count)));
      else
        acc = count ? b_.CreateSDiv(acc, b_.getInt64(count)) : b_.getInt64(0);
    }
    return isFloat(t) ? b_.CreateFPTrunc(acc, resultType) : b_.CreateTrunc(acc, resultType);
  }

  /// Folds `n` values (value(i) emits the i-th, already widened) into
  /// `acc` as the kernel folds an innermost reduced run: four interleaved
  /// partials from the identity, the tail into the first, then the four
  /// into acc in order. Returns the new acc.
  template <typename F>
  llvm::Value *foldRun(const std::string &op, ir::DType t, llvm::Value *acc, llvm::Value *n,
                       F value) {
    llvm::IRBuilder<> entry(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    llvm::Type *ty = accType(t);
    llvm::Value *part[4];
    for (llvm::Value *&q : part)
      q = entry.CreateAlloca(ty); // promoted to registers by -O3
    for (llvm::Value *q : part)
      b_.CreateStore(identity(op, t), q);
    auto fold = [&](llvm::Value *q, llvm::Value *i) {
      llvm::Value *x = value(i);
      b_.CreateStore(combine(op, t, b_.CreateLoad(ty, q), x), q);
    };
    loop(b_.getInt64(0), n, 4, "quad", [&](llvm::Value *i) {
      for (int j = 0; j < 4; ++j)
        fold(part[j], b_.CreateAdd(i, b_.getInt64(j)));
    });
    loop(lastEnd_, n, 1, "tail", [&](llvm::Value *i) { fold(part[0], i); });
    for (llvm::Value *q : part)
      acc = combine(op, t, acc, b_.CreateLoad(ty, q));
    return acc;
  }

  /// Each input's offset at element i of run g of reduction r, from
  /// `inOff`: one stride, or (an input broadcasting inside the run) i's
  /// digits over the run's subdims.
  std::vector<llvm::Value *> runOffsets(const Reduction &r, size_t g,
                                        const std::vector<llvm::Value *> &inOff, llvm::Value *i) {
    std::vector<llvm::Value *> off(inOff.size());
    for (size_t k = 0; k < inOff.size(); ++k) {
      if (r.simple[g]) {
        off[k] = b_.CreateAdd(inOff[k], b_.CreateMul(i, b_.getInt64(r.inputStrides[k][g])));
        continue;
      }
      llvm::Value *o = inOff[k];
      int64_t below = 1;
      const std::vector<int64_t> &sub = r.subdims[g];
      for (int d = static_cast<int>(sub.size()) - 1; d >= 0; --d) {
        llvm::Value *digit =
            b_.CreateURem(b_.CreateUDiv(i, b_.getInt64(below)), b_.getInt64(sub[d]));
        o = b_.CreateAdd(o, b_.CreateMul(digit, b_.getInt64(r.subStrides[k][g][d])));
        below *= sub[d];
      }
      off[k] = o;
    }
    return off;
  }

  /// Adds to off[k] the row-major digits of `index` over `dims`, each
  /// times strides[k][d]: a flat index's offset in every input.
  void addDigitOffsets(llvm::Value *index, const std::vector<int64_t> &dims,
                       const std::vector<std::vector<int64_t>> &strides,
                       std::vector<llvm::Value *> &off) {
    llvm::Value *rest = index;
    for (size_t d = dims.size(); d-- > 0;) {
      llvm::Value *coord = d == 0 ? rest : b_.CreateURem(rest, b_.getInt64(dims[d]));
      if (d > 0)
        rest = b_.CreateUDiv(rest, b_.getInt64(dims[d]));
      for (size_t k = 0; k < off.size(); ++k)
        if (strides[k][d] != 0)
          off[k] = b_.CreateAdd(off[k], b_.CreateMul(coord, b_.getInt64(strides[k][d])));
    }
  }

private:
  llvm::IRBuilderBase &b_;
  llvm::Function *f_;
  llvm::Value *lastEnd_ = nullptr;
};

} // namespace sluice::backend::jit
