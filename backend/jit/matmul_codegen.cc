// backend/jit/matmul_codegen.cc: see detail/matmul_codegen.h.
#include "backend/jit/detail/matmul_codegen.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

#include "backend/jit/detail/element_emitter.h"

namespace sluice::backend::jit {

namespace {

// for (i = 0; i < n; ++i) body(i), at the builder's point; leaves the
// builder after the loop.
template <typename F>
void countedLoop(llvm::IRBuilder<> &b, llvm::Function *f, int64_t n, const char *name, F body) {
  llvm::LLVMContext &c = b.getContext();
  llvm::BasicBlock *pre = b.GetInsertBlock();
  llvm::BasicBlock *head = llvm::BasicBlock::Create(c, name, f);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, std::string(name) + ".exit", f);
  b.CreateCondBr(b.getInt1(n > 0), head, exit);
  b.SetInsertPoint(head);
  llvm::PHINode *i = b.CreatePHI(b.getInt64Ty(), 2, name);
  i->addIncoming(b.getInt64(0), pre);
  body(static_cast<llvm::Value *>(i));
  llvm::Value *next = b.CreateAdd(i, b.getInt64(1));
  i->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpSLT(next, b.getInt64(n)), head, exit);
  b.SetInsertPoint(exit);
}

bool attr(const ir::Node &n, const char *name) { return n.hasAttr(name) && n.attr<bool>(name); }

} // namespace

Expected<llvm::Function *> emitMatmul(llvm::Module &m, const std::string &name, const ir::Node &n,
                                      const std::vector<int64_t> &a,
                                      const std::vector<int64_t> &bDims) {
  ir::DType t = n.outputType(0);
  bool isFloat = t == ir::DType::kF32 || t == ir::DType::kF64;
  if (!isFloat && t != ir::DType::kI32 && t != ir::DType::kI64)
    return invalidArgument("matmul of " + std::string(ir::dtypeName(t)) +
                           " has no generated code (f32, f64, i32 and i64 do)");
  if (a.size() != 2 || bDims.size() != 2)
    return invalidArgument("only rank-2 matmul has generated code");
  bool ta = attr(n, "transpose_a") || attr(n, "adjoint_a");
  bool tb = attr(n, "transpose_b") || attr(n, "adjoint_b");
  int64_t rows = ta ? a[1] : a[0], inner = ta ? a[0] : a[1];
  int64_t cols = tb ? bDims[0] : bDims[1];
  if ((tb ? bDims[1] : bDims[0]) != inner)
    return invalidArgument("its operands' inner dims differ");

  llvm::LLVMContext &c = m.getContext();
  llvm::IRBuilder<> b(c);
  llvm::Type *ptr = b.getPtrTy();
  auto *fty = llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr}, false);
  auto *f = llvm::Function::Create(fty, llvm::GlobalValue::InternalLinkage, name, m);
  for (unsigned i = 0; i < 3; ++i) {
    f->addParamAttr(i, llvm::Attribute::NoAlias);
    f->addParamAttr(i, llvm::Attribute::NoCapture);
  }
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::Type *el = registerType(b, t);
  llvm::Value *A = f->getArg(0), *B = f->getArg(1), *C = f->getArg(2);
  b.SetInsertPoint(llvm::BasicBlock::Create(c, "entry", f));
  auto at = [&](llvm::Value *base, llvm::Value *r, llvm::Value *col, int64_t width) {
    return b.CreateInBoundsGEP(el, base, b.CreateAdd(b.CreateMul(r, b.getInt64(width)), col));
  };
  llvm::Value *zero = isFloat ? llvm::ConstantFP::get(el, 0.0) : llvm::ConstantInt::get(el, 0);
  countedLoop(b, f, rows, "i", [&](llvm::Value *i) {
    countedLoop(b, f, cols, "zero", [&](llvm::Value *j) { b.CreateStore(zero, at(C, i, j, cols)); });
    countedLoop(b, f, inner, "k", [&](llvm::Value *k) {
      llvm::Value *aik = b.CreateLoad(el, ta ? at(A, k, i, rows) : at(A, i, k, inner));
      countedLoop(b, f, cols, "j", [&](llvm::Value *j) {
        llvm::Value *bkj = b.CreateLoad(el, tb ? at(B, j, k, inner) : at(B, k, j, cols));
        llvm::Value *slot = at(C, i, j, cols);
        llvm::Value *prod = isFloat ? b.CreateFMul(aik, bkj) : b.CreateMul(aik, bkj);
        llvm::Value *old = b.CreateLoad(el, slot);
        b.CreateStore(isFloat ? b.CreateFAdd(old, prod) : b.CreateAdd(old, prod), slot);
      });
    });
  });
  b.CreateRetVoid();
  return f;
}

} // namespace sluice::backend::jit
