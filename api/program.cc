// api/program.cc: Program: a .sluice file evaluated by the frontend, kept
// as its graph, its collections and its top-level names.
#include <sstream>

#include "api/detail/program_impl.h"
#include "frontend/diagnostics.h"
#include "driver/detail/driver_support.h"
#include "driver/task_flags.h"
#include "frontend/evaluator.h"
#include "ir/text/printer.h"
#include "support/large_stack.h"

namespace sluice {

namespace {

/// The collections and names a session needs, copied out of the
/// evaluator before it goes.
void extract(frontend::Evaluator &ev, Program::Impl &p) {
  frontend::GraphContext &g = ev.graph();
  p.graph = g.graph->clone();
  for (const auto &v : g.globalVariables)
    p.initializers.push_back(v.initializer);
  for (const auto &v : g.localVariables)
    p.initializers.push_back(v.initializer);
  p.queueRunners = ev.queueRunners();
  for (const auto &[name, ref] : ev.topLevelNames())
    p.globals[name] = {ref.out, ref.isOp};
}

Result<std::shared_ptr<Program::Impl>> load(const std::string &path, const std::string *source,
                                            const LoadOptions &opts) {
  auto impl = std::make_shared<Program::Impl>();
  impl->path = path;
  std::optional<Error> error;
  runWithLargeStack([&] {
    frontend::DiagnosticEngine diags;
    frontend::EvalOptions eo;
    eo.mode = opts.runSessionBlocks ? frontend::EvalMode::kRun : frontend::EvalMode::kCompile;
    eo.out = opts.out;
    eo.err = opts.err;
    eo.clusterHost = driver::defaultClusterHost(opts.err);
    for (const auto &[k, v] : opts.globals)
      eo.globals.emplace_back(k, driver::detail::parseSetValue(v));
    Status s;
    {
      frontend::Evaluator ev(eo, diags);
      s = source ? ev.runSource(path, *source) : ev.runFile(path);
      if (s.isOk() && !diags.hasErrors())
        extract(ev, *impl);
    }
    if (s.isOk() && !diags.hasErrors())
      return;
    std::ostringstream text;
    diags.print(text);
    for (const auto &d : diags.diagnostics()) {
      if (d.severity == frontend::Severity::kError) {
        error = api::toError(Status(Code::kInvalidArgument, d.message, d.loc), text.str());
        return;
      }
    }
    driver::detail::reportStatus(s, diags, text);
    std::string shown = text.str();
    if (!shown.empty() && shown.back() == '\n')
      shown.pop_back();
    error = api::toError(s, shown);
  });
  if (error)
    return *error;
  return impl;
}

/// "name:3" -> ("name", 3); no colon or no number after it: index -1.
std::pair<std::string, int> splitIndex(const std::string &name) {
  auto colon = name.rfind(':');
  if (colon == std::string::npos || colon + 1 == name.size())
    return {name, -1};
  int index = 0;
  for (size_t i = colon + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9')
      return {name, -1};
    index = index * 10 + (name[i] - '0');
  }
  return {name.substr(0, colon), index};
}

} // namespace

Expected<NamedRef> Program::Impl::resolve(const std::string &name) const {
  auto [base, index] = splitIndex(name);
  if (const ir::Node *n = graph->findNode(base)) {
    if (index < 0)
      return NamedRef{{n->id(), 0}, n->numOutputs() == 0};
    if (index >= n->numOutputs())
      return notFound("node '" + base + "' has " + std::to_string(n->numOutputs()) +
                      " outputs, no output " + std::to_string(index));
    return NamedRef{{n->id(), index}, false};
  }
  if (index < 0) {
    auto it = globals.find(name);
    if (it != globals.end())
      return it->second;
  }
  return notFound("no node or top-level tensor named '" + name + "' in " + path);
}

Result<Program> Program::load(const std::string &path, const LoadOptions &opts) {
  auto impl = sluice::load(path, nullptr, opts);
  if (!impl.ok())
    return impl.error();
  return Program(std::move(*impl));
}

Result<Program> Program::fromString(const std::string &source, const LoadOptions &opts,
                                    const std::string &path) {
  auto impl = sluice::load(path, &source, opts);
  if (!impl.ok())
    return impl.error();
  return Program(std::move(*impl));
}

Result<TensorInfo> Program::tensor(const std::string &name) const {
  auto ref = impl_->resolve(name);
  if (!ref)
    return api::toError(ref.status());
  if (ref->isOp)
    return api::toError(invalidArgument("'" + name + "' is an op with no outputs, not a tensor"));
  const ir::Node &n = impl_->graph->node(ref->out.node);
  TensorInfo info;
  info.node = n.name();
  info.index = ref->out.index;
  info.dtype = api::toPublic(n.outputType(ref->out.index));
  const ir::Shape &s = n.outputShape(ref->out.index);
  info.rankKnown = s.hasRank();
  if (info.rankKnown)
    info.shape = s.dims();
  return info;
}

bool Program::hasNode(const std::string &name) const {
  return impl_->graph->findNode(name) != nullptr;
}

std::vector<std::string> Program::nodeNames() const {
  std::vector<std::string> names;
  for (ir::NodeId id = 0; id < impl_->graph->numNodes(); ++id)
    names.push_back(impl_->graph->node(id).name());
  return names;
}

std::string Program::graphText() const { return ir::printGraph(*impl_->graph); }

} // namespace sluice
