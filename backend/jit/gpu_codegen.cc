// backend/jit/gpu_codegen.cc: the GPU kernels around emitElement. Each
// loop nest becomes one `.entry` running a grid-stride loop over its work
// items (gpuWorkItems):
// - elementwise: an element; the thread turns its flat index into the
//   nest's coordinates and those into every input's offset;
// - a reduction ending the cluster: an output element, folded by one
//   thread in the CPU kernel's order (so results match it bit for bit,
//   given the same math);
// - a row program: a row, walked by one thread through every stage as the
//   CPU does, recomputing what the CPU keeps in row buffers.
// The host-simulation target emits the same kernels for the host, with
// the thread and block indices as parameters, so tests run them without
// a GPU.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include "backend/jit/detail/codegen.h"
#include "backend/jit/detail/element_emitter.h"
#include "backend/jit/detail/loop_emitter.h"
#include "backend/jit/detail/row_emitter.h"

namespace sluice::backend::jit {

namespace {

class KernelEmitter {
public:
  KernelEmitter(const ElementProgram &prog, const LoopNest &nest, llvm::Module &m,
                llvm::Function *f, GpuTarget target)
      : prog_(prog), nest_(nest), m_(m), f_(f), target_(target), b_(m.getContext()),
        le_(b_, f) {}

  void emit() {
    llvm::LLVMContext &c = m_.getContext();
    b_.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f_));
    size_t n = prog_.inputTypes.size() + prog_.outputTypes.size();
    unsigned next = 0;
    if (target_ == GpuTarget::kNvptx) {
      for (size_t k = 0; k < n; ++k)
        ptrs_.push_back(f_->getArg(next++));
    } else {
      llvm::Value *args = f_->getArg(next++);
      for (size_t k = 0; k < n; ++k)
        ptrs_.push_back(b_.CreateLoad(b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), args, k)));
    }
    llvm::Value *count = f_->getArg(next++);
    llvm::Value *thread, *width, *block, *grid;
    if (target_ == GpuTarget::kNvptx) {
      thread = special(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
      width = special(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
      block = special(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
      grid = special(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
    } else {
      thread = f_->getArg(next++);
      width = f_->getArg(next++);
      block = f_->getArg(next++);
      grid = f_->getArg(next++);
    }
    llvm::Value *first = b_.CreateAdd(b_.CreateMul(block, width), thread);
    llvm::Value *step = b_.CreateMul(grid, width);
    gridStride(first, step, count, [&](llvm::Value *i) {
      if (nest_.rows)
        emitRow(le_, m_, prog_, *nest_.rows, ptrs_, {}, i);
      else if (nest_.reduction)
        reduceOne(*nest_.reduction, i);
      else
        element(i);
    });
    b_.CreateRetVoid();
  }

private:
  llvm::Value *special(llvm::Intrinsic::ID id) {
    return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), b_.getInt64Ty());
  }

  // for (i = first; i < count; i += step) body(i)
  template <typename F>
  void gridStride(llvm::Value *first, llvm::Value *step, llvm::Value *count, F body) {
    llvm::LLVMContext &c = m_.getContext();
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(c, "item", f_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, "exit", f_);
    b_.CreateCondBr(b_.CreateICmpSLT(first, count), loop, exit);
    b_.SetInsertPoint(loop);
    llvm::PHINode *i = b_.CreatePHI(b_.getInt64Ty(), 2, "i");
    i->addIncoming(first, pre);
    body(static_cast<llvm::Value *>(i));
    llvm::Value *next = b_.CreateAdd(i, step);
    i->addIncoming(next, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpSLT(next, count), loop, exit);
    b_.SetInsertPoint(exit);
  }

  // The element of the nest's code at input offsets `off`.
  std::vector<llvm::Value *> compute(const std::vector<llvm::Value *> &off) {
    std::vector<llvm::Value *> loaded(prog_.inputTypes.size(), nullptr);
    for (const Instr &in : nest_.instrs) {
      if (in.op != "load")
        continue;
      ir::DType t = prog_.inputTypes[in.input];
      llvm::Type *mem = memoryType(b_, t);
      llvm::Value *v = b_.CreateLoad(mem, b_.CreateInBoundsGEP(mem, ptrs_[in.input], off[in.input]));
      if (t == ir::DType::kBool)
        v = b_.CreateICmpNE(v, b_.getInt8(0));
      loaded[in.input] = v;
    }
    return emitElement(b_, m_, nest_, loaded);
  }

  void store(int output, llvm::Value *v, llvm::Value *offset) {
    ir::DType t = prog_.outputTypes[output];
    llvm::Type *mem = memoryType(b_, t);
    if (t == ir::DType::kBool)
      v = b_.CreateZExt(v, b_.getInt8Ty());
    b_.CreateStore(v, b_.CreateInBoundsGEP(mem, ptrs_[prog_.inputTypes.size() + output], offset));
  }

  // Element i: coordinates innermost first; the output is row-major over
  // nest.dims, so its offset is i itself.
  void element(llvm::Value *i) {
    const size_t nIn = prog_.inputTypes.size();
    std::vector<llvm::Value *> off(nIn, b_.getInt64(0));
    le_.addDigitOffsets(i, nest_.dims, nest_.inputStrides, off);
    std::vector<llvm::Value *> out = compute(off);
    for (size_t k = 0; k < out.size(); ++k)
      store(nest_.outputs[k], out[k], i);
  }

  // Output element j of reduction r, folded as the CPU kernel's walk
  // reaches it: the reduced runs in row-major order, an innermost reduced
  // run in four interleaved partials, an innermost kept run one value at
  // a time.
  void reduceOne(const Reduction &r, llvm::Value *j) {
    llvm::IRBuilder<> entry(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    llvm::Type *accTy = le_.accType(r.type);
    acc_ = entry.CreateAlloca(accTy);
    b_.CreateStore(le_.identity(r.op, r.type), acc_);
    keptCoord_.assign(r.dims.size(), nullptr);
    for (size_t g = 0; g < r.dims.size(); ++g)
      if (!r.reduced[g])
        keptCoord_[g] = b_.CreateURem(b_.CreateUDiv(j, b_.getInt64(r.outStrides[g])),
                                      b_.getInt64(r.dims[g]));
    std::vector<llvm::Value *> off(prog_.inputTypes.size(), b_.getInt64(0));
    fold(r, 0, off);
    llvm::Value *a = le_.finish(r.op, r.type, b_.CreateLoad(accTy, acc_), r.count,
                                registerType(b_, r.type));
    store(nest_.outputs[0], a, j);
  }

  void fold(const Reduction &r, size_t g, const std::vector<llvm::Value *> &off) {
    llvm::Type *accTy = le_.accType(r.type);
    auto value = [&](const std::vector<llvm::Value *> &at) {
      return le_.widen(r.type, compute(at)[0]);
    };
    bool last = g + 1 == r.dims.size();
    if (!r.reduced[g]) {
      std::vector<llvm::Value *> at = le_.runOffsets(r, g, off, keptCoord_[g]);
      if (!last) {
        fold(r, g + 1, at);
        return;
      }
      b_.CreateStore(le_.combine(r.op, r.type, b_.CreateLoad(accTy, acc_), value(at)), acc_);
      return;
    }
    llvm::Value *n = b_.getInt64(r.dims[g]);
    if (!last) {
      le_.loop(b_.getInt64(0), n, 1, "run" + std::to_string(g),
               [&](llvm::Value *i) { fold(r, g + 1, le_.runOffsets(r, g, off, i)); });
      return;
    }
    llvm::Value *a = le_.foldRun(r.op, r.type, b_.CreateLoad(accTy, acc_), n, [&](llvm::Value *i) {
      return value(le_.runOffsets(r, g, off, i));
    });
    b_.CreateStore(a, acc_);
  }

  const ElementProgram &prog_;
  const LoopNest &nest_;
  llvm::Module &m_;
  llvm::Function *f_;
  GpuTarget target_;
  llvm::IRBuilder<> b_;
  LoopEmitter le_;
  std::vector<llvm::Value *> ptrs_;
  llvm::Value *acc_ = nullptr;
  std::vector<llvm::Value *> keptCoord_;
};

} // namespace

std::unique_ptr<llvm::Module> generateGpuModule(const ElementProgram &p, const std::string &symbol,
                                                llvm::LLVMContext &ctx, GpuTarget target) {
  auto m = std::make_unique<llvm::Module>(p.name, ctx);
  bool nvptx = target == GpuTarget::kNvptx;
  if (nvptx)
    m->setTargetTriple("nvptx64-nvidia-cuda");
  llvm::IRBuilder<> b(ctx);
  const size_t n = p.inputTypes.size() + p.outputTypes.size();
  llvm::NamedMDNode *annotations =
      nvptx ? m->getOrInsertNamedMetadata("nvvm.annotations") : nullptr;
  for (size_t k = 0; k < p.nests.size(); ++k) {
    std::vector<llvm::Type *> params;
    if (nvptx) {
      // Device memory is global (address space 1); the buffers never
      // alias (outputs are fresh allocations).
      params.assign(n, b.getPtrTy(1));
      params.push_back(b.getInt64Ty()); // the work items
    } else {
      // An array of the buffers, the work items, then thread, block width,
      // block and grid width.
      params = {b.getPtrTy(), b.getInt64Ty(), b.getInt64Ty(), b.getInt64Ty(), b.getInt64Ty(),
                b.getInt64Ty()};
    }
    auto *ty = llvm::FunctionType::get(b.getVoidTy(), params, false);
    auto *f = llvm::Function::Create(ty, llvm::GlobalValue::ExternalLinkage, nestSymbol(symbol, k),
                                     *m);
    if (nvptx)
      for (unsigned i = 0; i < n; ++i) {
        f->addParamAttr(i, llvm::Attribute::NoAlias);
        if (i < p.inputTypes.size())
          f->addParamAttr(i, llvm::Attribute::ReadOnly);
      }
    f->addFnAttr(llvm::Attribute::NoUnwind);
    KernelEmitter(p, p.nests[k], *m, f, target).emit();
    if (nvptx) {
      llvm::Metadata *md[] = {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx, "kernel"),
                              llvm::ValueAsMetadata::get(b.getInt32(1))};
      annotations->addOperand(llvm::MDNode::get(ctx, md));
    }
  }
  return m;
}

} // namespace sluice::backend::jit
