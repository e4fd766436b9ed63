// backend/jit/row_emitter.cc: see detail/row_emitter.h.
#include "backend/jit/detail/row_emitter.h"

#include <llvm/IR/Module.h>

#include "backend/jit/detail/element_emitter.h"

namespace sluice::backend::jit {

namespace {

class RowEmitter {
public:
  RowEmitter(LoopEmitter &le, llvm::Module &m, const ElementProgram &prog, const RowProgram &rp,
             const std::vector<llvm::Value *> &ptrs, const std::vector<llvm::Value *> &buffers)
      : le_(le), b_(le.builder()), m_(m), prog_(prog), rp_(rp), ptrs_(ptrs), buffers_(buffers) {}

  void row(llvm::Value *r) {
    // Each input's offset at the row's first element: the row index's
    // digits over the outer dims.
    const size_t nIn = prog_.inputTypes.size();
    base_.assign(nIn, b_.getInt64(0));
    le_.addDigitOffsets(r, rp_.outerDims, rp_.outerStrides, base_);
    slots_.assign(rp_.slotTypes.size(), nullptr);
    r_ = r;
    rowStart_ = b_.CreateMul(r, b_.getInt64(rp_.length));
    for (const RowStage &st : rp_.stages)
      stage(st);
  }

private:
  llvm::Value *memValue(ir::DType t, llvm::Value *v) {
    return t == ir::DType::kBool ? b_.CreateZExt(v, b_.getInt8Ty()) : v;
  }
  llvm::Value *regValue(ir::DType t, llvm::Value *v) {
    return t == ir::DType::kBool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
  }

  // The stage's values at element i, in `wanted` order; its buffered
  // values are stored as a side effect.
  std::vector<llvm::Value *> at(const RowStage &st, const std::vector<int> &wanted,
                                llvm::Value *i) {
    std::vector<llvm::Value *> v = emitInstrs(b_, m_, st.instrs, wanted, [&](const Instr &in) {
      if (in.op == "row")
        return slots_[in.input];
      llvm::Type *mem = memoryType(b_, in.type);
      llvm::Value *addr;
      if (in.op == "buffer") {
        addr = b_.CreateInBoundsGEP(mem, buffers_[in.input], i);
      } else {
        int k = in.input;
        llvm::Value *off = rp_.innerStrides[k] ? b_.CreateAdd(base_[k], i) : base_[k];
        addr = b_.CreateInBoundsGEP(mem, ptrs_[k], off);
      }
      return regValue(in.type, b_.CreateLoad(mem, addr));
    });
    size_t first = st.reduceOp.empty() ? 0 : 1;
    for (size_t b = 0; b < st.buffered.size(); ++b) {
      ir::DType t = rp_.bufferTypes[st.buffers[b]];
      b_.CreateStore(memValue(t, v[first + b]),
                     b_.CreateInBoundsGEP(memoryType(b_, t), buffers_[st.buffers[b]], i));
    }
    return v;
  }

  void store(const RowStage &st, const std::vector<llvm::Value *> &v, llvm::Value *offset) {
    size_t first = (st.reduceOp.empty() ? 0 : 1) + st.buffered.size();
    for (size_t k = 0; k < st.outputs.size(); ++k) {
      int o = st.outputs[k];
      ir::DType t = prog_.outputTypes[o];
      llvm::Value *ptr = ptrs_[prog_.inputTypes.size() + o];
      b_.CreateStore(memValue(t, v[first + k]),
                     b_.CreateInBoundsGEP(memoryType(b_, t), ptr, offset));
    }
  }

  void stage(const RowStage &st) {
    // The values the stage keeps: [reduced value], buffered..., outputs...
    std::vector<int> wanted;
    if (!st.reduceOp.empty())
      wanted.push_back(st.reduceValue);
    wanted.insert(wanted.end(), st.buffered.begin(), st.buffered.end());
    wanted.insert(wanted.end(), st.results.begin(), st.results.end());
    llvm::Value *length = b_.getInt64(rp_.length);
    if (st.perRow) {
      store(st, at(st, wanted, b_.getInt64(0)), r_);
      return;
    }
    if (st.reduceOp.empty()) {
      le_.loop(b_.getInt64(0), length, 1, "elem", [&](llvm::Value *i) {
        store(st, at(st, wanted, i), b_.CreateAdd(rowStart_, i));
      });
      return;
    }
    llvm::Value *acc = le_.foldRun(st.reduceOp, st.reduceType,
                                   le_.identity(st.reduceOp, st.reduceType), length,
                                   [&](llvm::Value *i) {
                                     return le_.widen(st.reduceType, at(st, wanted, i)[0]);
                                   });
    slots_[st.slot] = le_.finish(st.reduceOp, st.reduceType, acc, rp_.length,
                                 registerType(b_, st.reduceType));
  }

  LoopEmitter &le_;
  llvm::IRBuilderBase &b_;
  llvm::Module &m_;
  const ElementProgram &prog_;
  const RowProgram &rp_;
  const std::vector<llvm::Value *> &ptrs_;
  const std::vector<llvm::Value *> &buffers_;
  std::vector<llvm::Value *> base_, slots_;
  llvm::Value *r_ = nullptr, *rowStart_ = nullptr;
};

} // namespace

std::vector<llvm::Value *> allocateRowBuffers(LoopEmitter &le, const RowProgram &rp) {
  llvm::Function *f = le.function();
  llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
  std::vector<llvm::Value *> buffers;
  for (ir::DType t : rp.bufferTypes)
    buffers.push_back(entry.CreateAlloca(
        llvm::ArrayType::get(memoryType(entry, t), static_cast<uint64_t>(rp.length))));
  return buffers;
}

void emitRow(LoopEmitter &le, llvm::Module &m, const ElementProgram &prog, const RowProgram &rp,
             const std::vector<llvm::Value *> &ptrs, const std::vector<llvm::Value *> &buffers,
             llvm::Value *r) {
  RowEmitter(le, m, prog, rp, ptrs, buffers).row(r);
}

} // namespace sluice::backend::jit
