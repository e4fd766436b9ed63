// backend/jit/cpu_codegen.cc: the CPU loop nest around emitElement. Only
// IRBuilder here; optimisation and machine code are in engine.cc.
#include "backend/jit/detail/codegen.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>

#include "backend/jit/detail/element_emitter.h"

namespace sluice::backend::jit {

namespace {

class NestEmitter {
public:
  NestEmitter(const ElementProgram &prog, const LoopNest &p, llvm::Module &m, llvm::Function *f)
      : prog_(prog), p_(p), m_(m), f_(f), b_(m.getContext()) {
    int n = static_cast<int>(prog.inputTypes.size() + prog.outputTypes.size());
    for (int i = 0; i < n; ++i)
      ptrs_.push_back(f->getArg(i));
    begin_ = f->getArg(n);
    end_ = f->getArg(n + 1);
    // Row-major output strides over the collapsed dims.
    outStrides_.assign(p.dims.size(), 1);
    for (int d = static_cast<int>(p.dims.size()) - 2; d >= 0; --d)
      outStrides_[d] = outStrides_[d + 1] * p.dims[d + 1];
  }

  void emit() {
    b_.SetInsertPoint(llvm::BasicBlock::Create(m_.getContext(), "entry", f_));
    std::vector<llvm::Value *> inOff(prog_.inputTypes.size(), b_.getInt64(0));
    level(0, inOff, b_.getInt64(0));
    b_.CreateRetVoid();
  }

private:
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
    std::vector<llvm::Value *> out = emitElement(b_, m_, p_, loaded);
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
  llvm::Value *begin_ = nullptr, *end_ = nullptr;
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
    std::vector<llvm::Type *> params(n, ptr);
    params.push_back(b.getInt64Ty());
    params.push_back(b.getInt64Ty());
    auto *loopsTy = llvm::FunctionType::get(b.getVoidTy(), params, false);
    auto *loops = llvm::Function::Create(loopsTy, llvm::GlobalValue::InternalLinkage,
                                         name + ".loops", *m);
    for (unsigned i = 0; i < n; ++i) {
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
    args.push_back(entry->getArg(1));
    args.push_back(entry->getArg(2));
    b.CreateCall(loops, args);
    b.CreateRetVoid();
  }
  return m;
}

} // namespace sluice::backend::jit
