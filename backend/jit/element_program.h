// backend/jit/element_program.h: what a fused body computes at one element
// of its iteration space, as plain data (no LLVM): SSA instructions over
// loaded inputs, and the loop space with each input's broadcast strides.
// The CPU code generator wraps it in loops; a GPU one would wrap the same
// per-element code in a thread index.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/function.h"
#include "ir/graph.h"
#include "support/status.h"

namespace sluice::backend::jit {

struct Instr {
  /// "load" (of `input`), or the IR op it computes ("add", "cast", ...).
  std::string op;
  ir::DType type = ir::DType::kInvalid;        // the result's dtype
  ir::DType operandType = ir::DType::kInvalid; // the operands' (cast: source)
  std::vector<int> operands;                   // earlier instructions
  int input = -1;                              // load: which input
};

/// One loop nest: the values of one output shape. A body whose results
/// differ in shape (a value read outside before it is broadcast further)
/// gets a nest per shape, each computing only what its outputs need.
/// A nest that folds its one result into its output (a reduction ending
/// the cluster). The walk follows the CPU kernel's exactly: dims collapsed
/// into alternating kept/reduced runs, row-major, an innermost reduced run
/// summed in four interleaved partials, accumulators in double (floats)
/// or int64 (ints), so that results match the interpreter's bit for bit.
struct Reduction {
  std::string op;               // "reduce_sum", "reduce_mean", "reduce_max", "reduce_min"
  ir::DType type = ir::DType::kInvalid; // input and output dtype
  std::vector<int64_t> dims;    // the collapsed runs of the reduced value
  std::vector<char> reduced;    // per run
  std::vector<int64_t> outStrides; // per run: 0 if reduced, else row-major over kept runs
  /// inputStrides[k][run]: input k's step per step of the run, when every
  /// input steps through the run as one stride (simple[run]); else the
  /// run's original dims (subdims[run]) and each input's stride per
  /// subdim (subStrides[k][run]) place an element from its index.
  std::vector<std::vector<int64_t>> inputStrides;
  std::vector<char> simple;
  std::vector<std::vector<int64_t>> subdims;
  std::vector<std::vector<std::vector<int64_t>>> subStrides;
  int64_t outElements = 0;
  int64_t count = 0; // values folded into each output (reduce_mean)
};

/// One walk along a row of a RowProgram: per element of the row (or once,
/// perRow), its instructions, then what it keeps: a reduction into a row
/// value, row buffers for later walks, kernel outputs.
struct RowStage {
  /// Besides the ops: "load" (input `input` at the row's offset plus the
  /// element index times its inner stride), "row" (row value `input`,
  /// an earlier stage's reduction), "buffer" (row buffer `input` at the
  /// element index).
  std::vector<Instr> instrs;
  bool perRow = false; // once per row, at element 0: results are row values
  std::string reduceOp; // empty, or the reduction of instr `reduceValue`
  ir::DType reduceType = ir::DType::kInvalid;
  int reduceValue = -1;
  int slot = -1; // the row value the reduction defines
  std::vector<int> buffered, buffers; // instr buffered[i] is kept in buffers[i]
  std::vector<int> outputs, results;  // kernel outputs and the instr each stores
};

/// A cluster whose reductions feed later ops (softmax, layer norm): each
/// reduction folds the trailing dims of one shape, so the kernel takes a
/// row (those dims) at a time and walks it once per reduction in order,
/// then once for the outputs; values a later walk needs again are kept in
/// a row buffer (on the stack) when they fit, else recomputed. Rows are
/// independent, so they split over threads. Each reduction folds its row
/// as the CPU kernel does (four interleaved partials, double or int64
/// accumulators), so results match the interpreter's bit for bit.
struct RowProgram {
  int64_t length = 0; // elements per row
  std::vector<int64_t> outerDims; // the dims before the row's
  /// Per input: its step per step of each outer dim (0: broadcast), and
  /// along the row (1, or 0 when it is constant along the row).
  std::vector<std::vector<int64_t>> outerStrides;
  std::vector<int64_t> innerStrides;
  std::vector<ir::DType> slotTypes, bufferTypes;
  std::vector<RowStage> stages;
};

struct LoopNest {
  /// The loop space: the outputs' shape with adjacent dims merged where
  /// every operand allows (never empty: a scalar is [1]).
  std::vector<int64_t> dims;
  /// inputStrides[k][d]: elements to step input k for one step of dim d
  /// (0 where it broadcasts; all 0 for an input this nest never loads).
  std::vector<std::vector<int64_t>> inputStrides;
  std::vector<int64_t> outputDims; // the shape of this nest's outputs
  std::vector<Instr> instrs;
  std::vector<int> outputs; // the kernel outputs this nest stores
  std::vector<int> results; // the instruction each of them stores
  /// Set: the nest reduces its one result (its dims are [1] and it runs
  /// on one thread, whole).
  std::optional<Reduction> reduction;
  /// Set: the nest walks rows (its dims are [number of rows]); its own
  /// instrs, strides, outputs and results are unused.
  std::optional<RowProgram> rows;
};

struct ElementProgram {
  std::string name; // the body function's name, for messages
  std::vector<ir::DType> inputTypes;
  std::vector<ir::DType> outputTypes;
  /// Input shapes the kernel must be called with, and its output shapes.
  std::vector<std::vector<int64_t>> inputDims;
  std::vector<std::vector<int64_t>> outputDims;
  std::vector<LoopNest> nests;

  /// Everything the generated code depends on, one fact a line: the disk
  /// cache's key (with the LLVM version and CPU added by the engine).
  std::string canonicalText() const;
};

/// What a row program may keep in row buffers on the stack (CPU); GPU
/// code keeps none and recomputes (kNoRowBuffers).
constexpr int64_t kCpuRowBufferBytes = 64 << 10;
constexpr int64_t kNoRowBuffers = 0;

/// Reads a fused body; unimplemented (the caller interprets the body
/// instead) for an op, dtype or shape pattern without generated code.
Expected<ElementProgram> buildElementProgram(const ir::FunctionDef &def,
                                             int64_t rowBufferBytes = kCpuRowBufferBytes);

/// The work items of nest `n` on a GPU, the count its kernel takes (one
/// thread's share of a grid-stride loop): its elements; a reduction's
/// output elements; a row program's rows.
int64_t gpuWorkItems(const LoopNest &n);

/// `--emit llvm` and `--emit ptx`: for each fused node of `g`, a line
/// `<comment> cluster %NODE (function "F")`, then emit()'s text, or
/// `<comment> <skipped>: why` when the body has no generated code (or
/// emit() says unimplemented); `<comment> no fused clusters` for none.
Expected<std::string> listFusedCode(
    const ir::Graph &g, const std::string &comment, const std::string &skipped,
    const std::function<Expected<std::string>(const ElementProgram &, const ir::Node &)> &emit,
    int64_t rowBufferBytes = kCpuRowBufferBytes);

/// The body of fused node `n`; failed_precondition when `g` lacks it.
Expected<std::shared_ptr<const ir::FunctionDef>> fusedBody(const ir::Graph &g, const ir::Node &n);

} // namespace sluice::backend::jit
