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
  // A counted loop [lo, hi) by `step`; `body` gets the index and emits at
  // the builder's point. Leaves the builder after the loop.
  template <typename F>
  void loop(llvm::Value *lo, llvm::Value *hi, int64_t step, const std::string &name, F body) {
    llvm::LLVMContext &c = m_.getContext();
    llvm::BasicBlock *pre = b_.GetInsertBlock();
    llvm::BasicBlock *head = llvm::BasicBlock::Create(c, name, f_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(c, name + ".exit", f_);
    // Runs while i + step <= hi, so a step of 4 never reads past the end.
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
    // The index after the loop: where a tail starts.
    llvm::PHINode *after = b_.CreatePHI(b_.getInt64Ty(), 2, name + ".end");
    after->addIncoming(lo, pre);
    after->addIncoming(next, latch);
    lastEnd_ = after;
  }

  // The element at input offsets `inOff`, reduced to the accumulator type.
  llvm::Value *reducedValue(const Reduction &r, const std::vector<llvm::Value *> &inOff) {
    llvm::Value *v = emitElement(b_, m_, p_, loads(inOff))[0];
    bool f = r.type == ir::DType::kF32 || r.type == ir::DType::kF64;
    return f ? b_.CreateFPExt(v, b_.getDoubleTy()) : b_.CreateSExt(v, b_.getInt64Ty());
  }

  llvm::Value *combine(const Reduction &r, llvm::Value *acc, llvm::Value *x) {
    return combine(r.op, r.type, acc, x);
  }
  llvm::Value *combine(const std::string &op, ir::DType type, llvm::Value *acc, llvm::Value *x) {
    bool f = type == ir::DType::kF32 || type == ir::DType::kF64;
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

  llvm::Value *identity(const Reduction &r) { return identity(r.op, r.type); }
  llvm::Value *identity(const std::string &op, ir::DType type) {
    bool f = type == ir::DType::kF32 || type == ir::DType::kF64;
    if (op == "reduce_sum" || op == "reduce_mean")
      return f ? llvm::ConstantFP::get(b_.getDoubleTy(), 0.0) : b_.getInt64(0);
    bool isMax = op == "reduce_max";
    if (f)
      return llvm::ConstantFP::getInfinity(b_.getDoubleTy(), isMax);
    bool wide = type == ir::DType::kI64;
    int64_t lo = wide ? INT64_MIN : INT32_MIN, hi = wide ? INT64_MAX : INT32_MAX;
    return b_.getInt64(static_cast<uint64_t>(isMax ? lo : hi));
  }

  // The kernel's accumulate(): acc (scratch) starts at the identity; runs
  // are walked row-major; an innermost reduced run folds into four
  // interleaved partials (its tail into the first), then into acc in
  // order; an innermost kept run folds element by element. Then each
  // output is acc converted (divided by the count for a mean).
  void reduce(const Reduction &r) {
    bool f = r.type == ir::DType::kF32 || r.type == ir::DType::kF64;
    llvm::Type *accTy = f ? b_.getDoubleTy() : b_.getInt64Ty();
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
      if (r.op == "reduce_mean") {
        if (f)
          a = b_.CreateFDiv(a, llvm::ConstantFP::get(b_.getDoubleTy(),
                                                     static_cast<double>(r.count)));
        else
          a = r.count ? b_.CreateSDiv(a, b_.getInt64(r.count)) : b_.getInt64(0);
      }
      a = f ? b_.CreateFPTrunc(a, outTy) : b_.CreateTrunc(a, outTy);
      b_.CreateStore(a, b_.CreateInBoundsGEP(outTy, ptrs_[out], j));
    });
  }

  void walk(const Reduction &r, size_t g, std::vector<llvm::Value *> inOff, llvm::Value *outOff,
            llvm::Type *accTy) {
    size_t last = r.dims.size() - 1;
    // Input offsets of element i of run g: one stride, or (an input
    // broadcasting inside the run) i's digits over the run's subdims.
    auto at = [&](llvm::Value *i) {
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
          llvm::Value *digit = b_.CreateURem(b_.CreateUDiv(i, b_.getInt64(below)),
                                             b_.getInt64(sub[d]));
          o = b_.CreateAdd(o, b_.CreateMul(digit, b_.getInt64(r.subStrides[k][g][d])));
          below *= sub[d];
        }
        off[k] = o;
      }
      return off;
    };
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
    // Four partials in stack slots (promoted to registers by -O3).
    llvm::IRBuilder<> entry(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    std::vector<llvm::Value *> part;
    for (int j = 0; j < 4; ++j)
      part.push_back(entry.CreateAlloca(accTy));
    for (llvm::Value *q : part)
      b_.CreateStore(identity(r), q);
    loop(b_.getInt64(0), n, 4, "quad", [&](llvm::Value *i) {
      for (int j = 0; j < 4; ++j) {
        llvm::Value *x = reducedValue(r, at(b_.CreateAdd(i, b_.getInt64(j))));
        b_.CreateStore(combine(r, b_.CreateLoad(accTy, part[j]), x), part[j]);
      }
    });
    loop(lastEnd_, n, 1, "tail", [&](llvm::Value *i) {
      llvm::Value *x = reducedValue(r, at(i));
      b_.CreateStore(combine(r, b_.CreateLoad(accTy, part[0]), x), part[0]);
    });
    llvm::Value *slot = b_.CreateInBoundsGEP(accTy, scratch_, outOff);
    llvm::Value *a = b_.CreateLoad(accTy, slot);
    for (llvm::Value *q : part)
      a = combine(r, a, b_.CreateLoad(accTy, q));
    b_.CreateStore(a, slot);
  }

  // A row program: rows [begin, end), each walked once per stage; row
  // values are SSA values of the row's iteration, row buffers stack
  // arrays of the row's length.
  void rows(const RowProgram &rp) {
    llvm::IRBuilder<> entry(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    std::vector<llvm::Value *> buffers;
    for (ir::DType t : rp.bufferTypes)
      buffers.push_back(entry.CreateAlloca(
          llvm::ArrayType::get(memoryType(b_, t), static_cast<uint64_t>(rp.length))));
    const size_t nIn = prog_.inputTypes.size();
    llvm::Value *length = b_.getInt64(rp.length);
    loop(begin_, end_, 1, "row", [&](llvm::Value *r) {
      // Each input's offset at the row's first element: the row index's
      // digits over the outer dims.
      std::vector<llvm::Value *> base(nIn, b_.getInt64(0));
      llvm::Value *rest = r;
      for (size_t d = rp.outerDims.size(); d-- > 0;) {
        llvm::Value *coord = d == 0 ? rest : b_.CreateURem(rest, b_.getInt64(rp.outerDims[d]));
        if (d > 0)
          rest = b_.CreateUDiv(rest, b_.getInt64(rp.outerDims[d]));
        for (size_t k = 0; k < nIn; ++k)
          if (rp.outerStrides[k][d] != 0)
            base[k] = b_.CreateAdd(base[k], b_.CreateMul(coord, b_.getInt64(rp.outerStrides[k][d])));
      }
      std::vector<llvm::Value *> slots(rp.slotTypes.size(), nullptr);
      llvm::Value *rowStart = b_.CreateMul(r, length);
      for (const RowStage &st : rp.stages)
        rowStage(rp, st, base, slots, buffers, r, rowStart);
    });
  }

  void rowStage(const RowProgram &rp, const RowStage &st, const std::vector<llvm::Value *> &base,
                std::vector<llvm::Value *> &slots, const std::vector<llvm::Value *> &buffers,
                llvm::Value *r, llvm::Value *rowStart) {
    // The stage's values at element i: [reduced value], buffered..., outputs...
    std::vector<int> wanted;
    if (!st.reduceOp.empty())
      wanted.push_back(st.reduceValue);
    wanted.insert(wanted.end(), st.buffered.begin(), st.buffered.end());
    wanted.insert(wanted.end(), st.results.begin(), st.results.end());
    auto memValue = [&](ir::DType t, llvm::Value *v) {
      return t == ir::DType::kBool ? b_.CreateZExt(v, b_.getInt8Ty()) : v;
    };
    auto regValue = [&](ir::DType t, llvm::Value *v) {
      return t == ir::DType::kBool ? b_.CreateICmpNE(v, b_.getInt8(0)) : v;
    };
    // Computes element i, keeps its buffered values; returns the values.
    auto at = [&](llvm::Value *i) {
      std::vector<llvm::Value *> v = emitInstrs(b_, m_, st.instrs, wanted, [&](const Instr &in) {
        if (in.op == "row")
          return slots[in.input];
        ir::DType t = in.type;
        llvm::Type *mem = memoryType(b_, t);
        llvm::Value *addr;
        if (in.op == "buffer") {
          addr = b_.CreateInBoundsGEP(mem, buffers[in.input], i);
        } else {
          int k = in.input;
          llvm::Value *off = rp.innerStrides[k] ? b_.CreateAdd(base[k], i) : base[k];
          addr = b_.CreateInBoundsGEP(mem, ptrs_[k], off);
        }
        return regValue(t, b_.CreateLoad(mem, addr));
      });
      size_t first = st.reduceOp.empty() ? 0 : 1;
      for (size_t b = 0; b < st.buffered.size(); ++b) {
        ir::DType t = rp.bufferTypes[st.buffers[b]];
        b_.CreateStore(memValue(t, v[first + b]),
                       b_.CreateInBoundsGEP(memoryType(b_, t), buffers[st.buffers[b]], i));
      }
      return v;
    };
    auto store = [&](const std::vector<llvm::Value *> &v, llvm::Value *offset) {
      size_t first = (st.reduceOp.empty() ? 0 : 1) + st.buffered.size();
      for (size_t k = 0; k < st.outputs.size(); ++k) {
        int o = st.outputs[k];
        ir::DType t = prog_.outputTypes[o];
        llvm::Value *ptr = ptrs_[prog_.inputTypes.size() + o];
        b_.CreateStore(memValue(t, v[first + k]),
                       b_.CreateInBoundsGEP(memoryType(b_, t), ptr, offset));
      }
    };
    llvm::Value *length = b_.getInt64(rp.length);
    if (st.perRow) {
      store(at(b_.getInt64(0)), r);
      return;
    }
    if (st.reduceOp.empty()) {
      loop(b_.getInt64(0), length, 1, "elem", [&](llvm::Value *i) {
        store(at(i), b_.CreateAdd(rowStart, i));
      });
      return;
    }
    // The kernel's fold of an innermost reduced run (see reduce()): four
    // interleaved partials, the tail into the first, then in order.
    bool f = st.reduceType == ir::DType::kF32 || st.reduceType == ir::DType::kF64;
    llvm::Type *accTy = f ? b_.getDoubleTy() : b_.getInt64Ty();
    auto widen = [&](llvm::Value *v) {
      return f ? b_.CreateFPExt(v, b_.getDoubleTy()) : b_.CreateSExt(v, b_.getInt64Ty());
    };
    llvm::IRBuilder<> entry(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    std::vector<llvm::Value *> part;
    for (int j = 0; j < 4; ++j)
      part.push_back(entry.CreateAlloca(accTy));
    for (llvm::Value *q : part)
      b_.CreateStore(identity(st.reduceOp, st.reduceType), q);
    auto fold = [&](llvm::Value *q, llvm::Value *i) {
      llvm::Value *x = widen(at(i)[0]);
      b_.CreateStore(combine(st.reduceOp, st.reduceType, b_.CreateLoad(accTy, q), x), q);
    };
    loop(b_.getInt64(0), length, 4, "quad", [&](llvm::Value *i) {
      for (int j = 0; j < 4; ++j)
        fold(part[j], b_.CreateAdd(i, b_.getInt64(j)));
    });
    loop(lastEnd_, length, 1, "tail", [&](llvm::Value *i) { fold(part[0], i); });
    llvm::Value *a = identity(st.reduceOp, st.reduceType);
    for (llvm::Value *q : part)
      a = combine(st.reduceOp, st.reduceType, a, b_.CreateLoad(accTy, q));
    if (st.reduceOp == "reduce_mean") {
      if (f)
        a = b_.CreateFDiv(a, llvm::ConstantFP::get(b_.getDoubleTy(),
                                                   static_cast<double>(rp.length)));
      else
        a = rp.length ? b_.CreateSDiv(a, b_.getInt64(rp.length)) : b_.getInt64(0);
    }
    llvm::Type *t = registerType(b_, st.reduceType);
    slots[st.slot] = f ? b_.CreateFPTrunc(a, t) : b_.CreateTrunc(a, t);
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
  llvm::Value *lastEnd_ = nullptr;  // where the last loop() stopped
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
