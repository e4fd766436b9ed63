// backend/jit/row_program.cc: a fused body whose reductions feed other
// members as a RowProgram (element_program.h): one stage per reduction in
// dependency order, a per-row stage for the outputs of the reduced shape,
// and a final stage for the others. A value a later stage needs again is
// kept from the first stage that computes it in a row buffer while the
// buffers fit the budget (kCpuRowBufferBytes on the stack; GPU code has
// none), else recomputed.
#include <algorithm>
#include <map>
#include <set>

#include "backend/jit/detail/row_program.h"
#include "ir/graph.h"
#include "ir/row_reduction.h"

namespace sluice::backend::jit {

namespace {

bool isReductionOp(const std::string &op) {
  return op == "reduce_sum" || op == "reduce_mean" || op == "reduce_max" || op == "reduce_min";
}

bool reducible(ir::DType t) {
  return t == ir::DType::kF32 || t == ir::DType::kF64 || t == ir::DType::kI32 ||
         t == ir::DType::kI64;
}

class RowBuilder {
public:
  RowBuilder(const ir::FunctionDef &def, ElementProgram &p, int64_t budget)
      : def_(def), body_(*def.body), p_(p), budget_(budget) {
    for (size_t k = 0; k < def.args.size(); ++k)
      argIndex_[def.args[k]] = static_cast<int>(k);
  }

  Expected<std::optional<LoopNest>> build() {
    SLUICE_ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, body_.topologicalOrder());
    bool readInside = false;
    for (ir::NodeId id : order)
      if (isReductionOp(body_.node(id).opName())) {
        reductions_.push_back(id);
        readInside = readInside || !body_.consumers(id).empty();
      }
    if (!readInside)
      return std::optional<LoopNest>();
    SLUICE_TRY(findRows(order));
    SLUICE_TRY(placeInputs());
    std::vector<ir::Output> rowRets, fullRets;
    SLUICE_TRY(addOutputs(rowRets, fullRets));
    size_t m = reductions_.size();
    for (size_t j = 0; j < m; ++j) {
      slotOf_[reductions_[j]] = static_cast<int>(j);
      reach_.push_back(reachable({body_.node(reductions_[j]).inputs()[0]}));
    }
    for (size_t s = 1; s <= m; ++s)
      chooseBuffers(s, s < m ? std::vector<ir::Output>{body_.node(reductions_[s]).inputs()[0]}
                             : fullRets);
    for (size_t j = 0; j < m; ++j) {
      const ir::Node &r = body_.node(reductions_[j]);
      RowStage st;
      st.reduceOp = r.opName();
      st.reduceType = r.outputType(0);
      st.slot = static_cast<int>(j);
      SLUICE_ASSIGN_OR_RETURN(st.reduceValue, stageValue(st, j, r.inputs()[0]));
      rows_.slotTypes.push_back(r.outputType(0));
      rows_.stages.push_back(std::move(st));
    }
    for (bool perRow : {true, false}) {
      const std::vector<ir::Output> &rets = perRow ? rowRets : fullRets;
      if (rets.empty())
        continue;
      RowStage st;
      st.perRow = perRow;
      for (const ir::Output &o : rets) {
        SLUICE_ASSIGN_OR_RETURN(int v, stageValue(st, m, o));
        for (size_t i = 0; i < def_.rets.size(); ++i)
          if (def_.rets[i] == o && !contains(st.outputs, static_cast<int>(i))) {
            st.outputs.push_back(static_cast<int>(i));
            st.results.push_back(v);
          }
      }
      rows_.stages.push_back(std::move(st));
    }
    for (const auto &[node, b] : bufferOf_)
      if (!filled_.count(b))
        return unsupportedNode(def_, body_.node(node), "no stage fills its row buffer");
    LoopNest nest;
    int64_t numRows = ir::numElements(rows_.outerDims);
    nest.dims = {numRows};
    nest.outputDims = shape_.input;
    nest.inputStrides.assign(def_.args.size(), std::vector<int64_t>{0});
    nest.rows = std::move(rows_);
    return std::optional<LoopNest>(std::move(nest));
  }

private:
  template <typename T> static bool contains(const std::vector<T> &v, const T &x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }

  // Every reduction folds the same trailing dims of the same shape, and
  // every member has that shape or the reduced one.
  Status findRows(const std::vector<ir::NodeId> &order) {
    std::optional<ir::RowReduction> rows;
    for (ir::NodeId id : reductions_) {
      const ir::Node &n = body_.node(id);
      auto r = ir::rowReduction(body_, n);
      if (!r)
        return unsupportedNode(def_, n,
                               "a reduction read inside the cluster must fold trailing dims "
                               "and keep them (keepdims)");
      if (rows && !(*rows == *r))
        return unsupportedNode(def_, n, "it folds other rows than the cluster's first reduction");
      if (!reducible(n.outputType(0)))
        return unsupportedNode(def_, n, "its dtype");
      rows = r;
    }
    shape_ = *rows;
    rowDims_ = shape_.rowDims();
    for (ir::NodeId id : order) {
      const ir::Node &n = body_.node(id);
      if (argIndex_.count(id))
        continue;
      if (n.numOutputs() != 1 || !n.outputShape(0).isFullyDefined())
        return unsupportedNode(def_, n, "its outputs");
      const std::vector<int64_t> &d = n.outputShape(0).dims();
      if (d != shape_.input && d != rowDims_)
        return unsupportedNode(def_, n, "its shape is neither the rows' nor the reduced one");
    }
    size_t outer = shape_.input.size() - shape_.reducedDims;
    rows_.outerDims.assign(shape_.input.begin(), shape_.input.begin() + outer);
    rows_.length = ir::numElements(
        std::vector<int64_t>(shape_.input.begin() + outer, shape_.input.end()));
    return Status::ok();
  }

  // Each input's steps over the outer dims and along the row.
  Status placeInputs() {
    int rank = static_cast<int>(shape_.input.size());
    int outer = rank - shape_.reducedDims;
    for (size_t k = 0; k < def_.args.size(); ++k) {
      const std::vector<int64_t> &dims = p_.inputDims[k];
      if (!ir::readableAlongRows(dims, shape_))
        return unsupportedNode(def_, body_.node(def_.args[k]),
                               "an input is not readable along the cluster's rows");
      int rs = static_cast<int>(dims.size());
      std::vector<int64_t> strides(rank, 0);
      int64_t step = 1;
      for (int d = rs - 1; d >= 0; --d) {
        strides[d + rank - rs] = dims[d] == 1 ? 0 : step;
        step *= dims[d];
      }
      bool along = false;
      for (int d = outer; d < rank; ++d)
        along = along || strides[d] != 0;
      rows_.outerStrides.emplace_back(strides.begin(), strides.begin() + outer);
      rows_.innerStrides.push_back(along ? 1 : 0);
    }
    return Status::ok();
  }

  Status addOutputs(std::vector<ir::Output> &rowRets, std::vector<ir::Output> &fullRets) {
    bool distinct = rowDims_ != shape_.input;
    for (const ir::Output &r : def_.rets) {
      const ir::Node &n = body_.node(r.node);
      if (argIndex_.count(r.node))
        return unsupportedNode(def_, n, "a parameter is returned as is");
      p_.outputTypes.push_back(n.outputType(r.index));
      p_.outputDims.push_back(n.outputShape(r.index).dims());
      std::vector<ir::Output> &to =
          distinct && n.outputShape(r.index).dims() == rowDims_ ? rowRets : fullRets;
      if (!contains(to, r))
        to.push_back(r);
    }
    return Status::ok();
  }

  // Constant along a row: computed once per row (or hoisted out of the
  // element loop by LLVM), never worth a buffer.
  bool rowValued(ir::NodeId id) const {
    auto a = argIndex_.find(id);
    if (a != argIndex_.end())
      return rows_.innerStrides[a->second] == 0;
    return rowDims_ != shape_.input && body_.node(id).outputShape(0).dims() == rowDims_;
  }

  // Visits the members under `roots` once each, skipping parameters and
  // reductions (earlier stages' row values); `visit(id)` says whether to
  // go on into id's operands.
  template <typename F> void walkMembers(const std::vector<ir::Output> &roots, F visit) const {
    std::set<ir::NodeId> seen;
    std::vector<ir::NodeId> work;
    for (const ir::Output &o : roots)
      work.push_back(o.node);
    while (!work.empty()) {
      ir::NodeId id = work.back();
      work.pop_back();
      if (argIndex_.count(id) || isReductionOp(body_.node(id).opName()) ||
          !seen.insert(id).second || !visit(id))
        continue;
      for (const ir::Output &in : body_.node(id).inputs())
        work.push_back(in.node);
    }
  }

  // Members computed from `roots` within one stage.
  std::set<ir::NodeId> reachable(const std::vector<ir::Output> &roots) const {
    std::set<ir::NodeId> members;
    walkMembers(roots, [&](ir::NodeId id) { return members.insert(id).second; });
    return members;
  }

  // Stage `s` reads values an earlier stage computes: the topmost of them
  // get a buffer while the budget lasts.
  void chooseBuffers(size_t s, const std::vector<ir::Output> &roots) {
    walkMembers(roots, [&](ir::NodeId id) {
      if (bufferOf_.count(id))
        return false; // kept already: nothing under it is recomputed
      if (rowValued(id))
        return true;
      size_t first = s;
      for (size_t i = 0; i < s && first == s; ++i)
        if (reach_[i].count(id))
          first = i;
      ir::DType t = body_.node(id).outputType(0);
      int64_t bytes = rows_.length * static_cast<int64_t>(ir::dtypeSize(t));
      if (first == s || bufferBytes_ + bytes > budget_)
        return true; // this stage computes it (first here, or no room)
      bufferBytes_ += bytes;
      bufferOf_[id] = static_cast<int>(rows_.bufferTypes.size());
      firstStage_[id] = first;
      rows_.bufferTypes.push_back(t);
      return false;
    });
  }

  // The instruction of `st` (the next stage of rows_; `stage` is its
  // place among the reductions, every reduction's for the output stages)
  // computing `o`.
  Expected<int> stageValue(RowStage &st, size_t stage, const ir::Output &o) {
    auto key = std::make_pair(rows_.stages.size(), o); // the stage being built
    if (auto it = memo_.find(key); it != memo_.end())
      return it->second;
    const ir::Node &n = body_.node(o.node);
    Instr leaf;
    leaf.type = leaf.operandType = n.outputType(o.index);
    int v = -1;
    if (auto a = argIndex_.find(o.node); a != argIndex_.end()) {
      leaf.op = "load";
      leaf.input = a->second;
    } else if (auto r = slotOf_.find(o.node); r != slotOf_.end()) {
      leaf.op = "row";
      leaf.input = r->second;
    } else if (auto b = bufferOf_.find(o.node); b != bufferOf_.end() && firstStage_[o.node] < stage) {
      leaf.op = "buffer";
      leaf.input = b->second;
    } else {
      SLUICE_ASSIGN_OR_RETURN(v, appendOpInstr(def_, n, st.instrs, [&](const ir::Output &in) {
                                return stageValue(st, stage, in);
                              }));
      if (b != bufferOf_.end() && firstStage_[o.node] == stage) {
        st.buffered.push_back(v);
        st.buffers.push_back(b->second);
        filled_.insert(b->second);
      }
    }
    if (v < 0) {
      st.instrs.push_back(leaf);
      v = static_cast<int>(st.instrs.size()) - 1;
    }
    memo_[key] = v;
    return v;
  }

  const ir::FunctionDef &def_;
  const ir::Graph &body_;
  ElementProgram &p_;
  std::map<ir::NodeId, int> argIndex_;
  std::vector<ir::NodeId> reductions_;
  ir::RowReduction shape_;
  std::vector<int64_t> rowDims_;
  RowProgram rows_;
  std::map<ir::NodeId, int> slotOf_;
  std::vector<std::set<ir::NodeId>> reach_; // per reduction stage
  std::map<ir::NodeId, int> bufferOf_;
  std::map<ir::NodeId, size_t> firstStage_;
  std::set<int> filled_;
  int64_t budget_;
  int64_t bufferBytes_ = 0;
  std::map<std::pair<size_t, ir::Output>, int> memo_;
};

} // namespace

Expected<std::optional<LoopNest>> buildRowNest(const ir::FunctionDef &def, ElementProgram &p,
                                               int64_t rowBufferBytes) {
  return RowBuilder(def, p, rowBufferBytes).build();
}

} // namespace sluice::backend::jit
