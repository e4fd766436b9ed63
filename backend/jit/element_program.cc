// backend/jit/element_program.cc: a fused body as an ElementProgram.
#include "backend/jit/element_program.h"

#include <map>
#include <set>

#include "backend/jit/detail/row_program.h"
#include "backend/jit/specialize.h"
#include "ir/graph.h"

namespace sluice::backend::jit {

namespace {

const std::set<std::string, std::less<>> kUnary = {
    "negative", "abs", "square", "sqrt", "rsqrt", "exp", "log", "sigmoid",
    "tanh", "relu", "sign", "floor", "ceil", "round", "logical_not"};
const std::set<std::string, std::less<>> kBinary = {
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "squared_difference",
    "pow", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or"};
const std::set<std::string, std::less<>> kFloatOnly = {"sqrt", "rsqrt", "exp", "log",
                                                       "sigmoid", "tanh", "floor", "ceil",
                                                       "pow"};

const std::set<std::string, std::less<>> kReductionOps = {"reduce_sum", "reduce_mean",
                                                          "reduce_max", "reduce_min"};

bool supportedType(ir::DType t) { return ir::isPod(t) && t != ir::DType::kF16; }

Status unsupported(const ir::FunctionDef &def, const ir::Node &n, const std::string &why) {
  return Status(Code::kUnimplemented,
                "no generated code for " + n.describe() + " in '" + def.name + "': " + why,
                n.loc(), n.name());
}

// Strides of a row-major array of `shape` seen from the loop space `out`
// (right-aligned, 0 on broadcast dims); false when it does not broadcast.
bool broadcastStrides(const std::vector<int64_t> &shape, const std::vector<int64_t> &out,
                      std::vector<int64_t> &strides) {
  int r = static_cast<int>(out.size()), rs = static_cast<int>(shape.size());
  if (rs > r)
    return false;
  strides.assign(r, 0);
  int64_t step = 1;
  for (int d = rs - 1; d >= 0; --d) {
    int od = d + (r - rs);
    if (shape[d] == out[od])
      strides[od] = shape[d] == 1 ? 0 : step;
    else if (shape[d] != 1)
      return false;
    step *= shape[d];
  }
  return true;
}

} // namespace

Status unsupportedNode(const ir::FunctionDef &def, const ir::Node &n, const std::string &why) {
  return unsupported(def, n, why);
}

Expected<int> appendOpInstr(const ir::FunctionDef &def, const ir::Node &n,
                            std::vector<Instr> &instrs,
                            const std::function<Expected<int>(const ir::Output &)> &operand) {
  const ir::Graph &body = *def.body;
  const std::string &op = n.opName();
  if (n.numOutputs() != 1 || !supportedType(n.outputType(0)))
    return unsupported(def, n, "its outputs");
  Instr in;
  in.op = op;
  in.type = n.outputType(0);
  int arity = 0;
  if (kUnary.count(op) || op == "cast" || op == "broadcast_to")
    arity = 1; // broadcast_to's shape operand is implied by the strides
  else if (kBinary.count(op))
    arity = 2;
  else if (op == "select")
    arity = 3;
  else if (op == "add_n")
    arity = n.numInputs();
  else
    return unsupported(def, n, "the op");
  if (arity > n.numInputs() || arity == 0)
    return unsupported(def, n, "its inputs");
  for (int i = 0; i < arity; ++i) {
    SLUICE_ASSIGN_OR_RETURN(int v, operand(n.inputs()[i]));
    in.operands.push_back(v);
  }
  // select's operands are (bool, T, T): its operand type is T's.
  in.operandType = instrs[in.operands[op == "select" ? 1 : 0]].type;
  if (!supportedType(in.operandType))
    return unsupported(def, n, "its dtype");
  if (kFloatOnly.count(op) && !ir::isFloating(in.operandType))
    return unsupported(def, n, "integer " + op);
  if (op == "select") {
    const ir::Output &c = n.inputs()[0];
    if (body.node(c.node).outputShape(c.index).rank() == 1 && n.outputShape(0).rank() > 1)
      return unsupported(def, n, "TF1's vector condition");
  }
  instrs.push_back(in);
  return static_cast<int>(instrs.size()) - 1;
}

namespace {

// Builds one nest: the instructions its outputs need, in dependency order.
class NestBuilder {
public:
  NestBuilder(const ir::FunctionDef &def, const ElementProgram &p, LoopNest &nest)
      : def_(def), body_(*def.body), p_(p), nest_(nest) {
    for (size_t k = 0; k < def.args.size(); ++k)
      argIndex_[def.args[k]] = static_cast<int>(k);
    full_.assign(def.args.size(), std::vector<int64_t>(nest.outputDims.size(), 0));
  }

  Expected<int> value(const ir::Output &o) {
    auto it = memo_.find(o);
    if (it != memo_.end())
      return it->second;
    SLUICE_ASSIGN_OR_RETURN(int v, make(o));
    memo_[o] = v;
    return v;
  }

  // Collapses the loop space: drops size-1 dims and merges dim d into the
  // one before when every input steps through both as one (the outputs
  // are contiguous, so they always do).
  void finish() {
    const std::vector<int64_t> &dims = nest_.outputDims;
    std::vector<int64_t> cd;
    std::vector<std::vector<int64_t>> cs(full_.size());
    bool empty = false;
    for (size_t d = 0; d < dims.size(); ++d) {
      empty |= dims[d] == 0;
      if (dims[d] == 1)
        continue;
      bool merge = !cd.empty();
      for (size_t k = 0; k < full_.size() && merge; ++k)
        merge = cs[k].back() == full_[k][d] * dims[d];
      if (merge) {
        cd.back() *= dims[d];
        for (size_t k = 0; k < full_.size(); ++k)
          cs[k].back() = full_[k][d];
      } else {
        cd.push_back(dims[d]);
        for (size_t k = 0; k < full_.size(); ++k)
          cs[k].push_back(full_[k][d]);
      }
    }
    if (cd.empty()) {
      cd.push_back(1);
      for (auto &s : cs)
        s.assign(1, 0);
    }
    if (empty)
      cd.assign(cd.size(), 0); // nothing to compute, whatever merged
    nest_.dims = cd;
    nest_.inputStrides = cs;
  }

  // The reduction's walk: runs of equal reduced flags as the CPU kernel
  // collapses them; each input must step through a run as one stride.
  Status finishReduction(const ir::Node &r, const std::vector<char> &reducedDims) {
    const std::vector<int64_t> &dims = nest_.outputDims;
    Reduction red;
    red.op = r.opName();
    red.type = r.outputType(0);
    std::vector<std::vector<int64_t>> strides(full_.size());
    red.subStrides.assign(full_.size(), {});
    std::vector<int64_t> lastDim; // the last original dim of each run
    for (size_t d = 0; d < dims.size(); ++d) {
      if (dims[d] == 1)
        continue;
      if (!red.reduced.empty() && red.reduced.back() == reducedDims[d]) {
        for (size_t k = 0; k < full_.size(); ++k)
          if (full_[k][lastDim.back()] != full_[k][d] * dims[d])
            red.simple.back() = 0; // this input broadcasts inside the run
        red.dims.back() *= dims[d];
        red.subdims.back().push_back(dims[d]);
        for (size_t k = 0; k < full_.size(); ++k) {
          strides[k].back() = full_[k][d];
          red.subStrides[k].back().push_back(full_[k][d]);
        }
        lastDim.back() = static_cast<int64_t>(d);
      } else {
        red.dims.push_back(dims[d]);
        red.reduced.push_back(reducedDims[d]);
        red.simple.push_back(1);
        red.subdims.push_back({dims[d]});
        for (size_t k = 0; k < full_.size(); ++k) {
          strides[k].push_back(full_[k][d]);
          red.subStrides[k].push_back({full_[k][d]});
        }
        lastDim.push_back(static_cast<int64_t>(d));
      }
    }
    if (red.dims.empty()) { // one element: the kernel folds it straight in
      red.dims = {1};
      red.reduced = {0};
      red.simple = {1};
      red.subdims = {{1}};
      for (auto &s : strides)
        s = {0};
      for (auto &s : red.subStrides)
        s = {{0}};
    }
    red.outStrides.assign(red.dims.size(), 0);
    int64_t step = 1;
    for (int g = static_cast<int>(red.dims.size()) - 1; g >= 0; --g)
      if (!red.reduced[g]) {
        red.outStrides[g] = step;
        step *= red.dims[g];
      }
    red.outElements = r.outputShape(0).numElements();
    int64_t inElements = ir::numElements(dims);
    red.count = red.outElements ? inElements / red.outElements : 0;
    red.inputStrides = std::move(strides);
    nest_.reduction = std::move(red);
    nest_.dims = {1};
    nest_.inputStrides.assign(full_.size(), std::vector<int64_t>{0});
    return Status::ok();
  }

private:
  Expected<int> make(const ir::Output &o) {
    const ir::Node &n = body_.node(o.node);
    auto arg = argIndex_.find(o.node);
    if (arg != argIndex_.end()) {
      int k = arg->second;
      if (!broadcastStrides(p_.inputDims[k], nest_.outputDims, full_[k]))
        return unsupported(def_, n, "an input does not broadcast to the results");
      if (!supportedType(p_.inputTypes[k]))
        return unsupported(def_, n, "its dtype");
      Instr l;
      l.op = "load";
      l.type = l.operandType = p_.inputTypes[k];
      l.input = k;
      nest_.instrs.push_back(l);
      return static_cast<int>(nest_.instrs.size()) - 1;
    }
    return appendOpInstr(def_, n, nest_.instrs, [this](const ir::Output &in) { return value(in); });
  }

  const ir::FunctionDef &def_;
  const ir::Graph &body_;
  const ElementProgram &p_;
  LoopNest &nest_;
  std::map<ir::NodeId, int> argIndex_;
  std::map<ir::Output, int> memo_;
  std::vector<std::vector<int64_t>> full_; // uncollapsed strides per input
};

std::string list(const std::vector<int64_t> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

} // namespace

Expected<ElementProgram> buildElementProgram(const ir::FunctionDef &def, int64_t rowBufferBytes) {
  const ir::Graph &body = *def.body;
  ElementProgram p;
  p.name = def.name;
  // No results (members only waited on through control edges): nothing
  // to compute, and none of these ops can fail, so no nests.
  for (ir::NodeId a : def.args) {
    const ir::Node &n = body.node(a);
    if (!n.outputShape(0).isFullyDefined())
      return unsupported(def, n, "an input shape is not fully known");
    p.inputTypes.push_back(n.outputType(0));
    p.inputDims.push_back(n.outputShape(0).dims());
  }
  // Reductions that other members read: one nest walking rows.
  SLUICE_ASSIGN_OR_RETURN(std::optional<LoopNest> rows, buildRowNest(def, p, rowBufferBytes));
  if (rows) {
    p.nests.push_back(std::move(*rows));
    return p;
  }
  // One nest per distinct result shape; a reduction's result gets its own,
  // over the shape of the value it reduces.
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int> nestOf;
  std::vector<int> reductionOf; // per nest: the ret it reduces, or -1
  for (size_t i = 0; i < def.rets.size(); ++i) {
    const ir::Output &r = def.rets[i];
    const ir::Node &n = body.node(r.node);
    const ir::Shape &s = n.outputShape(r.index);
    if (!s.isFullyDefined())
      return unsupported(def, n, "its shape is not fully known");
    if (n.opName() == "function_arg")
      return unsupported(def, n, "a parameter is returned as is");
    p.outputTypes.push_back(n.outputType(r.index));
    p.outputDims.push_back(s.dims());
    if (kReductionOps.count(n.opName())) {
      const ir::Output &in = n.inputs()[0];
      const ir::Shape &inShape = body.node(in.node).outputShape(in.index);
      if (!inShape.isFullyDefined())
        return unsupported(def, n, "its input's shape is not fully known");
      nestOf.push_back(static_cast<int>(shapes.size()));
      shapes.push_back(inShape.dims());
      reductionOf.push_back(static_cast<int>(i));
      continue;
    }
    size_t k = 0;
    while (k < shapes.size() && (shapes[k] != s.dims() || reductionOf[k] >= 0))
      ++k;
    if (k == shapes.size()) {
      shapes.push_back(s.dims());
      reductionOf.push_back(-1);
    }
    nestOf.push_back(static_cast<int>(k));
  }
  p.nests.resize(shapes.size());
  for (size_t k = 0; k < shapes.size(); ++k) {
    LoopNest &nest = p.nests[k];
    nest.outputDims = shapes[k];
    NestBuilder b(def, p, nest);
    if (reductionOf[k] >= 0) {
      const ir::Node &r = body.node(def.rets[reductionOf[k]].node);
      ir::DType t = r.outputType(0);
      if (t != ir::DType::kF32 && t != ir::DType::kF64 && t != ir::DType::kI32 &&
          t != ir::DType::kI64)
        return unsupported(def, r, "its dtype");
      SLUICE_ASSIGN_OR_RETURN(int v, b.value(r.inputs()[0]));
      nest.outputs.push_back(reductionOf[k]);
      nest.results.push_back(v);
      int rank = static_cast<int>(shapes[k].size());
      std::vector<char> reducedDims(rank, !r.hasAttr("axis"));
      if (r.hasAttr("axis"))
        for (int64_t a : r.attr<std::vector<int64_t>>("axis")) {
          if (a < -rank || a >= rank)
            return unsupported(def, r, "its axis");
          reducedDims[a < 0 ? a + rank : a] = 1;
        }
      SLUICE_TRY(b.finishReduction(r, reducedDims));
      continue;
    }
    for (size_t i = 0; i < def.rets.size(); ++i) {
      if (nestOf[i] != static_cast<int>(k))
        continue;
      SLUICE_ASSIGN_OR_RETURN(int v, b.value(def.rets[i]));
      nest.outputs.push_back(static_cast<int>(i));
      nest.results.push_back(v);
    }
    b.finish();
  }
  return p;
}

int64_t gpuWorkItems(const LoopNest &n) {
  if (n.reduction)
    return n.reduction->outElements;
  int64_t items = 1;
  for (int64_t d : n.dims)
    items *= d;
  return items;
}

std::string instrsText(const std::vector<Instr> &instrs) {
  std::string t;
  for (size_t i = 0; i < instrs.size(); ++i) {
    const Instr &in = instrs[i];
    t += "  %" + std::to_string(i) + " = " + in.op + " " + std::string(ir::dtypeName(in.type)) +
         " " + std::string(ir::dtypeName(in.operandType));
    if (in.input >= 0)
      t += " in" + std::to_string(in.input);
    for (int o : in.operands)
      t += " %" + std::to_string(o);
    t += "\n";
  }
  return t;
}

std::string ElementProgram::canonicalText() const {
  std::string t = "sluice-fused v2\n";
  for (size_t k = 0; k < inputTypes.size(); ++k)
    t += "in " + std::to_string(k) + " " + std::string(ir::dtypeName(inputTypes[k])) + " " +
         list(inputDims[k]) + "\n";
  for (size_t k = 0; k < outputTypes.size(); ++k)
    t += "out " + std::to_string(k) + " " + std::string(ir::dtypeName(outputTypes[k])) + " " +
         list(outputDims[k]) + "\n";
  for (size_t n = 0; n < nests.size(); ++n) {
    const LoopNest &nest = nests[n];
    t += "nest " + std::to_string(n) + " dims " + list(nest.dims) + "\n";
    for (size_t k = 0; k < nest.inputStrides.size(); ++k)
      t += "  strides " + std::to_string(k) + " " + list(nest.inputStrides[k]) + "\n";
    t += instrsText(nest.instrs);
    for (size_t k = 0; k < nest.outputs.size(); ++k)
      t += "  store out" + std::to_string(nest.outputs[k]) + " = %" +
           std::to_string(nest.results[k]) + "\n";
    if (const auto &rows = nest.rows) {
      t += "  rows of " + std::to_string(rows->length) + " outer " + list(rows->outerDims) + "\n";
      for (size_t k = 0; k < rows->innerStrides.size(); ++k)
        t += "  row strides " + std::to_string(k) + " " + list(rows->outerStrides[k]) + " " +
             std::to_string(rows->innerStrides[k]) + "\n";
      for (ir::DType d : rows->slotTypes)
        t += "  row value " + std::string(ir::dtypeName(d)) + "\n";
      for (ir::DType d : rows->bufferTypes)
        t += "  row buffer " + std::string(ir::dtypeName(d)) + "\n";
      for (const RowStage &st : rows->stages) {
        t += std::string("  stage") + (st.perRow ? " per row" : "") + "\n" + instrsText(st.instrs);
        if (!st.reduceOp.empty())
          t += "  " + st.reduceOp + " " + std::string(ir::dtypeName(st.reduceType)) + " %" +
               std::to_string(st.reduceValue) + " -> row value " + std::to_string(st.slot) + "\n";
        for (size_t b = 0; b < st.buffered.size(); ++b)
          t += "  keep %" + std::to_string(st.buffered[b]) + " in row buffer " +
               std::to_string(st.buffers[b]) + "\n";
        for (size_t k = 0; k < st.outputs.size(); ++k)
          t += "  store out" + std::to_string(st.outputs[k]) + " = %" +
               std::to_string(st.results[k]) + "\n";
      }
    }
    if (const auto &r = nest.reduction) {
      std::vector<int64_t> flags(r->reduced.begin(), r->reduced.end());
      t += "  " + r->op + " " + std::string(ir::dtypeName(r->type)) + " runs " + list(r->dims) +
           " reduced " + list(flags) + " out " + list(r->outStrides) + " count " +
           std::to_string(r->count) + "\n";
      for (size_t g = 0; g < r->dims.size(); ++g) {
        t += "  run " + std::to_string(g) + (r->simple[g] ? " simple" : " split") + " subdims " +
             list(r->subdims[g]);
        for (size_t k = 0; k < r->subStrides.size(); ++k)
          t += " " + list(r->subStrides[k][g]);
        t += "\n";
      }
    }
  }
  return t;
}

Expected<std::shared_ptr<const ir::FunctionDef>> fusedBody(const ir::Graph &g, const ir::Node &n) {
  auto def = g.functions().find(n.attr<std::string>("f"));
  if (!def)
    return Status(Code::kFailedPrecondition,
                  "fused node names function '" + n.attr<std::string>("f") +
                      "', which the graph does not define",
                  n.loc(), n.name());
  return def;
}

Expected<std::string> listFusedCode(
    const ir::Graph &g, const std::string &comment, const std::string &skipped,
    const std::function<Expected<std::string>(const ElementProgram &, const ir::Node &)> &emit,
    int64_t rowBufferBytes) {
  std::string out;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const ir::Node &n = g.node(id);
    if (n.opName() != "fused")
      continue;
    SLUICE_ASSIGN_OR_RETURN(auto def, fusedBody(g, n));
    out += comment + " cluster %" + n.name() + " (function \"" + def->name + "\")\n";
    if (!hasStaticShapes(*def)) {
      std::string dims;
      for (ir::NodeId a : def->args)
        dims += (dims.empty() ? "" : ", ") + def->body->node(a).outputShape(0).str();
      out += comment + " compiled when it runs, once per set of input shapes (here: " + dims +
             ")\n\n";
      continue;
    }
    auto program = buildElementProgram(*def, rowBufferBytes);
    Expected<std::string> code =
        program.hasValue() ? emit(*program, n) : Expected<std::string>(program.status());
    if (!code.hasValue()) {
      if (code.status().code() != Code::kUnimplemented)
        return code.takeStatus();
      out += comment + " " + skipped + ": " + code.status().message() + "\n\n";
      continue;
    }
    out += *code + "\n";
  }
  if (out.empty())
    out = comment + " no fused clusters\n";
  return out;
}

} // namespace sluice::backend::jit
