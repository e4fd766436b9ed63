// ir/function.cc: function signatures, checks and the library.
#include "ir/function.h"

#include "ir/graph.h"

namespace sluice::ir {

std::vector<DType> FunctionDef::argTypes() const {
  std::vector<DType> out;
  for (NodeId a : args)
    out.push_back(body->node(a).outputType(0));
  return out;
}

std::vector<DType> FunctionDef::retTypes() const {
  std::vector<DType> out;
  for (const Output &r : rets)
    out.push_back(body->node(r.node).outputType(r.index));
  return out;
}

Status FunctionDef::verify() const {
  auto bad = [&](const std::string &what) {
    return Status(Code::kInvalidArgument, "function '" + name + "': " + what, loc);
  };
  if (!body)
    return bad("has no body");
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] < 0 || args[i] >= body->numNodes())
      return bad("argument " + std::to_string(i) + " names no node");
    const Node &n = body->node(args[i]);
    if (n.opName() != "function_arg" || n.attr<int64_t>("index") != static_cast<int64_t>(i))
      return bad("argument " + std::to_string(i) + " is " + n.describe() +
                 ", not function_arg with index " + std::to_string(i));
  }
  int argNodes = 0;
  for (NodeId id = 0; id < body->numNodes(); ++id)
    argNodes += body->node(id).opName() == "function_arg";
  if (argNodes != static_cast<int>(args.size()))
    return bad("has " + std::to_string(argNodes) + " function_arg nodes but " +
               std::to_string(args.size()) + " parameters");
  for (size_t i = 0; i < rets.size(); ++i) {
    const Output &r = rets[i];
    if (r.node < 0 || r.node >= body->numNodes() || r.index < 0 ||
        r.index >= body->node(r.node).numOutputs())
      return bad("result " + std::to_string(i) + " names no output");
  }
  return Status::ok();
}

Status FunctionLibrary::add(std::shared_ptr<const FunctionDef> f) {
  SLUICE_TRY(f->verify());
  if (fns_.count(f->name))
    return Status(Code::kAlreadyExists, "function '" + f->name + "' is already defined",
                  f->loc);
  fns_.emplace(f->name, std::move(f));
  return Status::ok();
}

std::shared_ptr<const FunctionDef> FunctionLibrary::find(const std::string &name) const {
  auto it = fns_.find(name);
  return it == fns_.end() ? nullptr : it->second;
}

std::string FunctionLibrary::uniqueName(const std::string &base) const {
  if (!fns_.count(base))
    return base;
  for (int i = 1;; ++i) {
    std::string n = base + "_" + std::to_string(i);
    if (!fns_.count(n))
      return n;
  }
}

Status copyReferencedFunctions(const FunctionLibrary &from, Graph &to) {
  std::vector<const Graph *> work{&to};
  while (!work.empty()) {
    const Graph *g = work.back();
    work.pop_back();
    for (NodeId id = 0; id < g->numNodes(); ++id) {
      const Node &n = g->node(id);
      for (const char *attr : {"f", "predicate"}) {
        if (!n.op().findAttr(attr) || !n.hasAttr(attr))
          continue;
        const std::string &name = n.attr<std::string>(attr);
        if (to.functions().find(name))
          continue;
        auto f = from.find(name);
        if (!f)
          return Status(Code::kInvalidArgument,
                        "node '" + n.name() + "' names function '" + name +
                            "', which the graph does not define",
                        n.loc());
        SLUICE_TRY(to.functions().add(f));
        work.push_back(f->body.get());
      }
    }
  }
  return Status::ok();
}

} // namespace sluice::ir
