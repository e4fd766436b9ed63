// backend/jit/gpu_codegen.cc: the NVPTX kernel around emitElement. Each
// loop nest becomes one `.entry`: a grid-stride loop over the nest's
// elements, each thread turning its flat index into the nest's
// coordinates and those into every input's offset (broadcast strides),
// then the same per-element code the CPU loop runs.
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>

#include "backend/jit/detail/codegen.h"
#include "backend/jit/detail/element_emitter.h"

namespace sluice::backend::jit {

namespace {

llvm::Value *special(llvm::IRBuilderBase &b, llvm::Intrinsic::ID id) {
  return b.CreateZExt(b.CreateIntrinsic(id, {}, {}), b.getInt64Ty());
}

void emitKernel(const ElementProgram &prog, const LoopNest &nest, llvm::Module &m,
                llvm::Function *f) {
  llvm::LLVMContext &c = m.getContext();
  llvm::IRBuilder<> b(c);
  const size_t nIn = prog.inputTypes.size();
  llvm::Value *count = f->getArg(static_cast<unsigned>(nIn + prog.outputTypes.size()));
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(c, "entry", f);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(c, "loop", f);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, "exit", f);
  b.SetInsertPoint(entry);
  llvm::Value *block = special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *width = special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value *thread = special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *grid = special(b, llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *first = b.CreateAdd(b.CreateMul(block, width), thread);
  llvm::Value *step = b.CreateMul(grid, width);
  b.CreateCondBr(b.CreateICmpSLT(first, count), loop, exit);

  b.SetInsertPoint(loop);
  llvm::PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(first, entry);
  // Coordinates, innermost first; the output is row-major over nest.dims,
  // so its offset is the flat index itself.
  std::vector<llvm::Value *> inOff(nIn, b.getInt64(0));
  llvm::Value *rest = i;
  for (size_t d = nest.dims.size(); d-- > 0;) {
    llvm::Value *coord = d == 0 ? rest : b.CreateURem(rest, b.getInt64(nest.dims[d]));
    if (d > 0)
      rest = b.CreateUDiv(rest, b.getInt64(nest.dims[d]));
    for (size_t k = 0; k < nIn; ++k)
      if (nest.inputStrides[k][d] != 0)
        inOff[k] = b.CreateAdd(inOff[k], b.CreateMul(coord, b.getInt64(nest.inputStrides[k][d])));
  }
  std::vector<llvm::Value *> loaded(nIn, nullptr);
  for (const Instr &in : nest.instrs) {
    if (in.op != "load")
      continue;
    ir::DType t = prog.inputTypes[in.input];
    llvm::Type *mem = memoryType(b, t);
    llvm::Value *v =
        b.CreateLoad(mem, b.CreateInBoundsGEP(mem, f->getArg(in.input), inOff[in.input]));
    if (t == ir::DType::kBool)
      v = b.CreateICmpNE(v, b.getInt8(0));
    loaded[in.input] = v;
  }
  std::vector<llvm::Value *> out = emitElement(b, m, nest, loaded);
  for (size_t k = 0; k < out.size(); ++k) {
    int o = nest.outputs[k];
    ir::DType t = prog.outputTypes[o];
    llvm::Type *mem = memoryType(b, t);
    llvm::Value *v = t == ir::DType::kBool ? b.CreateZExt(out[k], b.getInt8Ty()) : out[k];
    b.CreateStore(v, b.CreateInBoundsGEP(mem, f->getArg(static_cast<unsigned>(nIn + o)), i));
  }
  llvm::Value *next = b.CreateAdd(i, step);
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, count), loop, exit);
  b.SetInsertPoint(exit);
  b.CreateRetVoid();
}

} // namespace

std::unique_ptr<llvm::Module> generateGpuModule(const ElementProgram &p, const std::string &symbol,
                                                llvm::LLVMContext &ctx) {
  auto m = std::make_unique<llvm::Module>(p.name, ctx);
  m->setTargetTriple("nvptx64-nvidia-cuda");
  llvm::IRBuilder<> b(ctx);
  const size_t n = p.inputTypes.size() + p.outputTypes.size();
  llvm::NamedMDNode *annotations = m->getOrInsertNamedMetadata("nvvm.annotations");
  for (size_t k = 0; k < p.nests.size(); ++k) {
    // Device memory is global (address space 1); the buffers never alias
    // (outputs are fresh allocations).
    std::vector<llvm::Type *> params(n, b.getPtrTy(1));
    params.push_back(b.getInt64Ty()); // the nest's element count
    auto *ty = llvm::FunctionType::get(b.getVoidTy(), params, false);
    auto *f = llvm::Function::Create(ty, llvm::GlobalValue::ExternalLinkage, nestSymbol(symbol, k),
                                     *m);
    for (unsigned i = 0; i < n; ++i) {
      f->addParamAttr(i, llvm::Attribute::NoAlias);
      if (i < p.inputTypes.size())
        f->addParamAttr(i, llvm::Attribute::ReadOnly);
    }
    f->addFnAttr(llvm::Attribute::NoUnwind);
    emitKernel(p, p.nests[k], *m, f);
    llvm::Metadata *md[] = {llvm::ValueAsMetadata::get(f), llvm::MDString::get(ctx, "kernel"),
                            llvm::ValueAsMetadata::get(b.getInt32(1))};
    annotations->addOperand(llvm::MDNode::get(ctx, md));
  }
  return m;
}

} // namespace sluice::backend::jit
