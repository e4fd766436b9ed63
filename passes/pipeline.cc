// passes/pipeline.cc: the pass order (this file alone states it) and the
// name -> factory table generated from passes.def.
#include "passes/pipeline.h"
#include "passes/pipeline_check.h"

#include "passes/constant_folding.h"
#include "passes/fuse_read_decode.h"
#include "passes/fusion.h"
#include "passes/placer.h"
#include "passes/prune.h"
#include "passes/shape_inference.h"

namespace sluice::passes {

namespace {

struct PassEntry {
  std::string_view name;
  std::unique_ptr<Pass> (*create)();
};

constexpr PassEntry kPasses[] = {
#define SLUICE_PASS(NAME, FACTORY) {NAME, &FACTORY},
#include "passes/passes.def"
#undef SLUICE_PASS
};

std::string validNames() {
  std::string s;
  for (const auto &e : kPasses) {
    if (!s.empty())
      s += ", ";
    s += e.name;
  }
  return s;
}

} // namespace

std::vector<std::string> passNames() {
  std::vector<std::string> out;
  for (const auto &e : kPasses)
    out.emplace_back(e.name);
  return out;
}

Expected<std::unique_ptr<Pass>> createPass(std::string_view name) {
  for (const auto &e : kPasses)
    if (e.name == name)
      return e.create();
  return invalidArgument("unknown pass '" + std::string(name) +
                         "' (valid passes: " + validNames() + ")");
}

std::vector<std::string> pipelineOrder(const PipelineOptions &opts) {
  std::vector<std::string> order;
  if (opts.inferShapes)
    order.push_back("shape-inference");
  if (opts.checkPipelines)
    order.push_back("pipeline-check");
  // Placement sees the whole graph, so a node's device does not depend on
  // which step compiled it.
  if (opts.place)
    order.push_back("placer");
  // Prune first so folding only evaluates what the step needs; prune
  // again to drop the nodes folding disconnected.
  order.push_back("prune");
  // On the step's nodes only; the prune after folding drops what it
  // replaced.
  order.push_back("fuse-read-decode");
  order.push_back("constant-folding");
  order.push_back("prune");
  // Last: it sees folded constants as inputs and only the step's nodes;
  // the prune after it drops the nodes it replaced.
  if (opts.fuse) {
    order.push_back("fusion");
    order.push_back("prune");
  }
  return order;
}

Status runPipeline(std::unique_ptr<ir::Graph> &graph, PassContext &ctx,
                   const PipelineOptions &opts) {
  if (!opts.printAfter.empty() && opts.printAfter != "all") {
    auto probe = createPass(opts.printAfter);
    if (!probe.hasValue())
      return probe.takeStatus();
  }
  for (const std::string &name : pipelineOrder(opts)) {
    SLUICE_ASSIGN_OR_RETURN(auto pass, createPass(name));
    SLUICE_TRY(pass->run(*graph, ctx));
    if (ctx.replacement)
      graph = std::move(ctx.replacement);
    if (opts.afterPass && (opts.printAfter == "all" || opts.printAfter == name))
      opts.afterPass(name, *graph);
  }
  return Status::ok();
}

} // namespace sluice::passes
