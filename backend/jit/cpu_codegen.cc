// backend/jit/cpu_codegen.cc: the CPU loop nest around emitElement. Only
// IRBuilder here; optimisation and machine code are in engine.cc.
#include "backend/jit/detail/codegen.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>

#include "backend/jit/detail/element_emitter.h"
#include "backend/jit/detail/loop_emitter.h"
#include "backend/jit/detail/row_emitter.h"

namespace sluice::backend::jit {

namespace {

class NestEmitter {
public:
  NestEmitter(const ElementProgram &prog, const LoopNest &p, llvm::Module &m, llvm::Function *f)
      : prog_(prog), p_(p), m_(m), f_(f), b_(m.getContext()) {
    int n = static_cast<int>(prog.inputTypes.size() + prog.outputTypes.size());
    for (int i = 0; i < n; ++i)
      ptrs_.push_back(f->getArg(i));
    scratch_ = f->getArg(n);
    begin_ = f->getArg(n + 1);
    end_ = f->getArg(n + 2);
    // Row-major output strides over the collapsed dims.
    outStrides_.assign(p.dims.size(), 1);
    for (int d = static_cast<int>(p.dims.size()) - 2; d >= 0; --d)
      outStrides_[d] = outStrides_[d + 1] * p.dims[d + 1];
  }

  void emit() {
    b_.SetInsertPoint(llvm::BasicBlock::Create(m_.getContext(), "entry", f_));
    std::vector<llvm::Value *> inOff(prog_.inputTypes.size(), b_.getInt64(0));
    if (p_.rows)
      rows(*p_.rows);
    else if (p_.reduction)
      reduce(*p_.reduction);
    else
      level(0, inOff, b_.getInt64(0));
    b_.CreateRetVoid();
  }

private:
  template <typename F>
  void loop(llvm::Value *lo, llvm::Value *hi, int64_t step, const std::string &name, F body) {
    le_.loop(lo, hi, step, name, body);
  }

  // The element at input offsets `inOff`, reduced to the accumulator type.
  llvm::Value *reducedValue(const Reduction &r, const std::vector<llvm::Value *> &inOff) {
    return le_.widen(r.type, emitElement(b_, m_, p_, loads(inOff))[0]);
  }

  llvm::Value *combine(const Reduction &r, llvm::Value *acc, llvm::Value *x) {
    return le_.combine(r.op, r.type, acc, x);
  }
  llvm::Value *identity(const Reduction &r) { return le_.identity(r.op, r.type); }

  // The kernel's accumulate(): acc (scratch) starts at the identity; runs
  // are walked row-major; an innermost reduced run folds into four
  // interleaved partials (its tail into the first), then into acc in
  // order; an innermost kept run folds element by element. Then each
  // output is acc converted (divided by the count for a mean).
  void reduce(const Reduction &r) {
    llvm::Type *accTy = le_.accType(r.type);
    llvm::Value *acc = scratch_;
    loop(b_.getInt64(0), b_.getInt64(r.outElements), 1, "init", [&](llvm::Value *j) {
      b_.CreateStore(identity(r), b_.CreateInBoundsGEP(accTy, acc, j));
    });
    std::vector<llvm::Value *> inOff(prog_.inputTypes.size(), b_.getInt64(0));
    walk(r, 0, inOff, b_.getInt64(0), accTy);
    size_t out = prog_.inputTypes.size() + p_.outputs[0];
    llvm::Type *outTy = memoryType(b_, r.type);
    loop(b_.getInt64(0), b_.getInt64(r.outElements), 1, "store", [&](llvm::Value *j) {
      llvm::Value *a = b_.CreateLoad(accTy, b_.CreateInBoundsGEP(accTy, acc, j));
      b_.CreateStore(le_.finish(r.op, r.type, a, r.count, outTy),
                     b_.CreateInBoundsGEP(outTy, ptrs_[out], j));
    });
  }

  void walk(const Reduction &r, size_t g, std::vector<llvm::Value *> inOff, llvm::Value *outOff,
            llvm::Type *accTy) {
    size_t last = r.dims.size() - 1;
    auto at = [&](llvm::Value *i) { return le_.runOffsets(r, g, inOff, i); };
    llvm::Value *n = b_.getInt64(r.dims[g]);
    if (g < last) {
      loop(b_.getInt64(0), n, 1, "run" + std::to_string(g), [&](llvm::Value *i) {
        walk(r, g + 1, at(i), b_.CreateAdd(outOff, b_.CreateMul(i, b_.getInt64(r.outStrides[g]))),
             accTy);
      });
      return;
    }
    if (!r.reduced[g]) {
      loop(b_.getInt64(0), n, 1, "kept", [&](llvm::Value *i) {
        llvm::Value *slot = b_.CreateInBoundsGEP(accTy, scratch_, b_.CreateAdd(outOff, i));
        llvm::Value *x = reducedValue(r, at(i));
        b_.CreateStore(combine(r, b_.CreateLoad(accTy, slot), x), slot);
      });
      return;
    }
    llvm::Value *slot = b_.CreateInBoundsGEP(accTy, scratch_, outOff);
    llvm::Value *a = le_.foldRun(r.op, r.type, b_.CreateLoad(accTy, slot), n,
                                 [&](llvm::Value *i) { return reducedValue(r, at(i)); });
    b_.CreateStore(a, slot);
  }

  // A row program: rows [begin, end), each walked once per stage.
  void rows(const RowProgram &rp) {
    std::vector<llvm::Value *> buffers = allocateRowBuffers(le_, rp);
    loop(begin_, end_, 1, "row",
         [&](llvm::Value *r) { emitRow(le_, m_, prog_, rp, ptrs_, buffers, r); });
  }

  // Loads each input the nest reads at `inOff`, in register type.
  std::vector<llvm::Value *> loads(const std::vector<llvm::Value *> &inOff) {
    std::vector<llvm::Value *> loaded(prog_.inputTypes.size(), nullptr);
    for (const Instr &in : p_.instrs) {
      if (in.op != "load")
        continue;
      int k = in.input;
      ir::DType t = prog_.inputTypes[k];
      llvm::Type *mem = memoryType(b_, t);
      llvm::Value *v = b_.CreateLoad(mem, b_.CreateInBoundsGEP(mem, ptrs_[k], inOff[k]));
      if (t == ir::DType::kBool)
        v = b_.CreateICmpNE(v, b_.getInt8(0));
      loaded[k] = v;
    }
    return loaded;
  }

  // One loop of the nest, over dim d: [begin, end) for the outermost (the
  // caller's share), [0, dims[d]) inside.
  void level(size_t d, std::vector<llvm::Value *> inOff, llvm::Value *outOff) {
    llvm::LLVMContext &c = m_.getContext();
    llvm::Value *lo = d == 0 ? begin_ : b_.getInt64(0);
    llvm::Value *hi = d == 0 ? end_ : b_.getInt64(p_.dims[d]);
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(c, "loop" + std::to_string(d), f_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, "exit" + std::to_string(d), f_);
    b_.CreateCondBr(b_.CreateICmpSLT(lo, hi), loop, exit);
    b_.SetInsertPoint(loop);
    llvm::PHINode *i = b_.CreatePHI(b_.getInt64Ty(), 2, "i" + std::to_string(d));
    i->addIncoming(lo, pre);
    for (size_t k = 0; k < inOff.size(); ++k)
      inOff[k] = b_.CreateAdd(inOff[k], b_.CreateMul(i, b_.getInt64(p_.inputStrides[k][d])));
    outOff = b_.CreateAdd(outOff, b_.CreateMul(i, b_.getInt64(outStrides_[d])));
    if (d + 1 < p_.dims.size())
      level(d + 1, inOff, outOff);
    else
      element(inOff, outOff);
    llvm::Value *next = b_.CreateAdd(i, b_.getInt64(1));
    i->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(next, hi), loop, exit);
    b_.SetInsertPoint(exit);
  }

  void element(const std::vector<llvm::Value *> &inOff, llvm::Value *outOff) {
    std::vector<llvm::Value *> out = emitElement(b_, m_, p_, loads(inOff));
    size_t first = prog_.inputTypes.size();
    for (size_t k = 0; k < out.size(); ++k) {
      int o = p_.outputs[k];
      ir::DType t = prog_.outputTypes[o];
      llvm::Type *mem = memoryType(b_, t);
      llvm::Value *v = t == ir::DType::kBool ? b_.CreateZExt(out[k], b_.getInt8Ty()) : out[k];
      b_.CreateStore(v, b_.CreateInBoundsGEP(mem, ptrs_[first + o], outOff));
    }
  }

  const ElementProgram &prog_;
  const LoopNest &p_;
  llvm::Module &m_;
  llvm::Function *f_;
  llvm::IRBuilder<> b_;
  std::vector<llvm::Value *> ptrs_;
  llvm::Value *scratch_ = nullptr; // a reduction's accumulators
  llvm::Value *begin_ = nullptr, *end_ = nullptr;
  LoopEmitter le_{b_, f_};
  std::vector<int64_t> outStrides_;
};

} // namespace

std::string nestSymbol(const std::string &symbol, size_t k) {
  return symbol + "_nest" + std::to_string(k);
}

std::unique_ptr<llvm::Module> generateCpuModule(const ElementProgram &p,
                                                const std::string &symbol,
                                                llvm::LLVMContext &ctx) {
  auto m = std::make_unique<llvm::Module>(p.name, ctx);
  llvm::IRBuilder<> b(ctx);
  llvm::Type *ptr = b.getPtrTy();
  size_t n = p.inputTypes.size() + p.outputTypes.size();
  for (size_t k = 0; k < p.nests.size(); ++k) {
    std::string name = nestSymbol(symbol, k);
    // The loops take each buffer as its own noalias pointer (outputs are
    // fresh allocations), which lets the vectorizer skip alias checks.
    std::vector<llvm::Type *> params(n + 1, ptr); // buffers, then the scratch
    params.push_back(b.getInt64Ty());
    params.push_back(b.getInt64Ty());
    auto *loopsTy = llvm::FunctionType::get(b.getVoidTy(), params, false);
    auto *loops = llvm::Function::Create(loopsTy, llvm::GlobalValue::InternalLinkage,
                                         name + ".loops", *m);
    for (unsigned i = 0; i <= n; ++i) {
      loops->addParamAttr(i, llvm::Attribute::NoAlias);
      loops->addParamAttr(i, llvm::Attribute::NoCapture);
      if (i < p.inputTypes.size())
        loops->addParamAttr(i, llvm::Attribute::ReadOnly);
    }
    loops->addFnAttr(llvm::Attribute::AlwaysInline);
    loops->addFnAttr(llvm::Attribute::NoUnwind);
    NestEmitter(p, p.nests[k], *m, loops).emit();

    auto *entryTy =
        llvm::FunctionType::get(b.getVoidTy(), {ptr, b.getInt64Ty(), b.getInt64Ty()}, false);
    auto *entry = llvm::Function::Create(entryTy, llvm::GlobalValue::ExternalLinkage, name, *m);
    entry->addFnAttr(llvm::Attribute::NoUnwind);
    b.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", entry));
    std::vector<llvm::Value *> args;
    for (size_t i = 0; i < n; ++i)
      args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), i)));
    // Nest k's scratch follows the buffers (null unless it reduces).
    args.push_back(b.CreateLoad(ptr, b.CreateConstInBoundsGEP1_64(ptr, entry->getArg(0), n + k)));
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    b.CreateCall(loops, args);
    b.CreateRetVoid();
  }
  return m;
}

} // namespace sluice::backend::jit
