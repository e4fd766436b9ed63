// backend/jit/specialize.cc: see specialize.h.
#include "backend/jit/specialize.h"

#include "ir/graph.h"

namespace sluice::backend::jit {

bool hasStaticShapes(const ir::FunctionDef &def) {
  for (ir::NodeId a : def.args)
    if (!def.body->node(a).outputShape(0).isFullyDefined())
      return false;
  return true;
}

Expected<std::shared_ptr<const ir::FunctionDef>> specializeBody(
    const ir::FunctionDef &def, const std::vector<ir::Dims> &argDims) {
  if (argDims.size() != def.args.size())
    return invalidArgument("fused body '" + def.name + "' takes " +
                           std::to_string(def.args.size()) + " inputs, got " +
                           std::to_string(argDims.size()));
  std::shared_ptr<ir::Graph> body = def.body->clone();
  for (size_t k = 0; k < def.args.size(); ++k) {
    ir::Node &arg = body->node(def.args[k]);
    ir::Shape s(argDims[k]);
    if (!arg.outputShape(0).merge(s))
      return Status(Code::kInvalidArgument,
                    "fused input " + std::to_string(k) + " is " + ir::dimsString(argDims[k]) +
                        ", the body expects " + arg.outputShape(0).str(),
                    arg.loc(), arg.name());
    arg.setAttr("shape", s);
    arg.setOutputShape(0, s);
  }
  SLUICE_ASSIGN_OR_RETURN(std::vector<ir::NodeId> order, body->topologicalOrder());
  for (ir::NodeId id : order) {
    ir::Node &n = body->node(id);
    if (n.opName() == "function_arg")
      continue;
    std::vector<ir::Shape> before = n.outputShapes();
    SLUICE_TRY(body->reinfer(id));
    for (int i = 0; i < n.numOutputs(); ++i) {
      auto merged = n.outputShape(i).merge(before[i]);
      if (!merged)
        return Status(Code::kInvalidArgument,
                      "output " + std::to_string(i) + " is " + n.outputShape(i).str() +
                          " for these inputs, where the graph says " + before[i].str(),
                      n.loc(), n.name());
      n.setOutputShape(i, *merged);
    }
  }
  auto out = std::make_shared<ir::FunctionDef>(def);
  out->body = std::move(body);
  return std::shared_ptr<const ir::FunctionDef>(std::move(out));
}

std::string shapesText(const std::vector<ir::Dims> &dims) {
  std::string s;
  for (const ir::Dims &d : dims)
    s += (s.empty() ? "" : ", ") + ir::dimsString(d);
  return s;
}

} // namespace sluice::backend::jit
