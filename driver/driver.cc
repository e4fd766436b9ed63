// driver/driver.cc: `run`, `compile` and `test` as library calls.
#include "driver/driver.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <array>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "driver/aot_output.h"
#include "driver/emit.h"
#include "frontend/evaluator.h"
#include "frontend/source_file.h"
#include "runtime/distributed/cluster_host.h"
#include "driver/detail/driver_support.h"
#include "driver/partition_files.h"
#include "driver/task_flags.h"
#include "ir/text/dot.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"
#include "backend/jit/jit.h"
#include "passes/cost_model.h"
#include "passes/fusion.h"
#include "passes/partition.h"
#include "passes/pipeline.h"
#include "passes/placer.h"
#include "runtime/pass_config.h"
#include "backend/io/checkpoint.h"
#include "support/large_stack.h"

namespace sluice::driver {

using namespace sluice::frontend;

namespace fs = std::filesystem;

namespace {

using detail::CwdGuard;

void report(const Status &s, DiagnosticEngine &diags, std::ostream &err) {
  detail::reportStatus(s, diags, err);
}

bool writeOutput(const std::string &text, const std::string &path, std::ostream &out,
                 std::ostream &err) {
  if (path.empty() || path == "-") {
    out << text;
    return true;
  }
  // A failed compile never leaves a truncated output where a good one was.
  Status w = backend::io::writeFileAtomically(path, text);
  if (!w.isOk()) {
    err << "sluice: error: cannot write '" << path << "': " << w.message() << "\n";
    return false;
  }
  return true;
}

} // namespace

int runProgram(const RunProgramOptions &opts, std::ostream &out, std::ostream &err) {
  int code = 0;
  std::error_code ec;
  if (!opts.workDir.empty() && !fs::is_directory(opts.workDir, ec)) {
    err << "sluice: error: -C: '" << opts.workDir << "' is not a directory\n";
    return 1;
  }
  std::string file = opts.file;
  // `sluice run -`: the program comes on standard input, as a Unix tool's.
  std::optional<std::string> stdinText;
  if (file == "-") {
    auto text = frontend::readSourceStream(std::cin, "<stdin>");
    if (!text.hasValue()) {
      err << "sluice: error: " << text.status().message() << "\n";
      return 1;
    }
    stdinText = std::move(*text);
    file = "<stdin>";
  }
  if (!stdinText && !opts.workDir.empty() && fs::path(file).is_relative() && !fs::exists(file))
    file = (fs::path(opts.workDir) / file).string();
  if (!stdinText && !opts.workDir.empty() && fs::path(file).is_relative())
    file = fs::absolute(file).string();
  auto task = resolveTask(opts.taskFlags, err, code);
  if (!task)
    return code;
  std::shared_ptr<dist::GrpcClusterHost> host = makeClusterHost(opts.clusterFlags, err, code);
  if (!host)
    return code;
  // A task of a cluster: its sessions run on the cluster, through this
  // task's server (started by the first session).
  if (servesInCluster(*task) && !opts.oneDevice)
    host->setDefaultTask(task->cluster, task->type, task->index);
  runWithLargeStack([&] {
    DiagnosticEngine diags;
    EvalOptions eo;
    eo.mode = EvalMode::kRun;
    eo.task = task;
    eo.clusterHost = host;
    eo.oneDevice = opts.oneDevice;
    eo.backend = opts.backend;
    eo.json = opts.json;
    eo.out = &out;
    eo.err = &err;
    eo.werror = opts.werror;
    eo.progressLine = detail::progressLineWanted();
    for (const auto &[k, v] : opts.sets)
      eo.globals.emplace_back(k, detail::parseSetValue(v));
    CwdGuard cwd(opts.workDir);
    Status s;
    {
      Evaluator ev(eo, diags);
      s = stdinText ? ev.runSource(file, std::move(*stdinText)) : ev.runFile(file);
    }
    diags.print(err);
    if (!s.isOk() && !diags.hasErrors())
      report(s, diags, err);
    code = (s.isOk() && !diags.hasErrors()) ? 0 : 1;
  });
  return code;
}

namespace {

// `--emit placement`: node, op, requested and assigned device, aligned.
std::string placementTable(const ir::Graph &g) {
  std::vector<std::array<std::string, 4>> rows{{"node", "op", "requested", "assigned"}};
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const ir::Node &n = g.node(id);
    rows.push_back({n.name(), n.opName(), n.requestedDevice().empty() ? "-" : n.requestedDevice(),
                    n.assignedDevice()});
  }
  std::array<size_t, 4> width{};
  for (const auto &r : rows)
    for (size_t c = 0; c < 4; ++c)
      width[c] = std::max(width[c], r[c].size());
  std::string out;
  for (const auto &r : rows) {
    for (size_t c = 0; c < 4; ++c) {
      out += r[c];
      if (c < 3)
        out += std::string(width[c] - r[c].size() + 2, ' ');
    }
    out += '\n';
  }
  return out;
}

// `--emit partitions`: one .sir per device in `dir`, an index line per file
// on `out` ("FILE DEVICE nodes=N sends=S recvs=R", FILE relative to dir).
bool writePartitions(const ir::Graph &g, const std::string &dir, DiagnosticEngine &diags,
                     std::ostream &out, std::ostream &err) {
  auto split = passes::partitionGraph(g);
  if (!split.hasValue()) {
    report(split.status(), diags, err);
    return false;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    err << "sluice: error: cannot create directory '" << dir << "'"
        << (ec ? ": " + ec.message() : std::string()) << "\n";
    return false;
  }
  std::ostringstream index;
  for (const PartitionFile &f : partitionFiles(*split)) {
    if (!writeOutput(f.text, (fs::path(dir) / f.fileName).string(), out, err))
      return false;
    index << f.fileName << ' ' << f.device << " nodes=" << f.nodes << " sends=" << f.sends
          << " recvs=" << f.recvs << '\n';
  }
  out << index.str();
  return true;
}

bool isPlaced(const ir::Graph &g) {
  for (ir::NodeId id = 0; id < g.numNodes(); ++id)
    if (g.node(id).assignedDevice().empty())
      return false;
  return g.numNodes() > 0;
}

} // namespace

namespace {

// A compile places as a session in this process would (runtime/
// pass_config.h), on CPUs only so that its output does not depend on the
// machine; a cluster compile places on the cluster's tasks.
passes::PassOptions compilePassOptions(const ir::Graph &g, const tflib::TaskConfig &task,
                                       int cpus, bool allowSoftPlacement) {
  cpus = std::max(1, cpus);
  rt::SessionOptions so;
  so.deviceCount = {{"CPU", cpus}, {"GPU", 0}};
  so.allowSoftPlacement = allowSoftPlacement;
  return rt::passOptions(so, task.cluster.empty() ? rt::placementDevices(so, g)
                                                  : task.cluster.devices(cpus));
}

} // namespace

int compileProgram(const CompileOptions &opts, std::ostream &out, std::ostream &err) {
  const EmitForm *form = findEmit(opts.emit);
  if (!form) {
    err << "sluice: error: --emit must be " << emitNames() << "\n";
    return 2;
  }
  const Emit emit = form->emit;
  bool toStdout = opts.output.empty() || opts.output == "-";
  if (form->toObject && (toStdout || opts.fetches.empty())) {
    err << "sluice: error: --emit obj writes an object file: give it with -o FILE.o and what "
           "its function computes with --fetch NAME (a top-level variable or a node)\n";
    return 2;
  }
  if (form->toDirectory && toStdout) {
    err << "sluice: error: --emit partitions writes one file per device: give the output "
           "directory with -o DIR\n";
    return 2;
  }
  int code = 1;
  auto task = resolveTask(opts.taskFlags, err, code);
  if (!task)
    return code;
  code = 1;
  runWithLargeStack([&] {
    DiagnosticEngine diags;
    std::unique_ptr<ir::Graph> graph;
    std::map<std::string, ir::Output> aotVars;       // variable -> tensor
    std::map<std::string, std::string> varOfNode;    // placeholder node -> variable
    bool fromText = opts.file.size() > 4 && opts.file.substr(opts.file.size() - 4) == ".sir";
    if (fromText) {
      auto text = frontend::readSourceFile(opts.file);
      if (!text.hasValue()) {
        err << "sluice: error: " << text.status().message() << "\n";
        return;
      }
      auto parsed = ir::parseGraph(*text, opts.file);
      if (!parsed.hasValue()) {
        err << parsed.status().toString() << "\n";
        return;
      }
      graph = std::move(*parsed);
      // What the parser cannot see node by node: a fused node against its
      // body, function references, cycles.
      if (Status v = ir::verifyGraph(*graph); !v.isOk()) {
        err << v.toString() << "\n";
        return;
      }
    } else {
      EvalOptions eo;
      eo.mode = EvalMode::kCompile;
      // What the program prints while its graph is built goes to stderr:
      // stdout carries the compiled output.
      eo.out = &err;
      eo.task = task;
      eo.clusterHost = defaultClusterHost(&err);
      Evaluator ev(eo, diags);
      Status s = ev.runFile(opts.file);
      diags.print(err);
      if (!s.isOk() || diags.hasErrors()) {
        if (!s.isOk() && !diags.hasErrors())
          report(s, diags, err);
        return;
      }
      graph = ev.graph().graph->clone();
      // Top-level variables name the tensors for --fetch and the C
      // parameters of --emit obj.
      for (const auto &[name, ref] : ev.topLevelNames()) {
        if (ref.isOp)
          continue;
        aotVars[name] = ref.out;
        const ir::Node &n = graph->node(ref.out.node);
        if (n.opName() == "placeholder" &&
            (!varOfNode.count(n.name()) || name < varOfNode[n.name()]))
          varOfNode[n.name()] = name;
      }
    }
    passes::PassContext ctx;
    ctx.options = compilePassOptions(*graph, *task, opts.cpus, opts.allowSoftPlacement);
    // Only the forms that show devices place the graph.
    const bool place = form->placed && !(fromText && isPlaced(*graph));
    if (!place)
      ctx.options.devices.clear();
    if (emit == Emit::kObj) {
      // Ahead of time: only what the fetches need, every op as code.
      auto fetches = resolveFetches(opts.fetches, *graph, aotVars);
      if (!fetches.hasValue()) {
        err << "sluice: error: " << fetches.status().message() << "\n";
        return;
      }
      ctx.fetches = *fetches;
      ctx.options.fuseSingleOps = true;
    } else {
      // Compile keeps every node: each sink is a target of the pipeline.
      for (int i = 0; i < graph->numNodes(); ++i)
        if (graph->consumers(i).empty())
          ctx.targets.push_back(i);
    }
    passes::PipelineOptions po;
    po.inferShapes = fromText;
    po.checkPipelines = true;
    // A .sir whose nodes all carry a device (a placed graph, or a partition
    // written by --emit partitions) keeps that placement: placing it again
    // would move recv nodes, which request no device, off theirs.
    po.place = place;
    po.fuse = form->fused;
    po.printAfter = opts.printAfter;
    po.afterPass = [&](std::string_view name, const ir::Graph &g) {
      err << "# IR after " << name << "\n" << ir::printGraph(g);
    };
    Status s = passes::runPipeline(graph, ctx, po);
    if (!s.isOk()) {
      report(s, diags, err);
      return;
    }
    std::vector<Status> warnings = std::move(ctx.warnings);
    std::string costText;
    if (emit == Emit::kCost) {
      passes::CostOptions co;
      co.devices = ctx.options.devices;
      auto cost = passes::estimateCost(*graph, co);
      if (!cost.hasValue()) {
        report(cost.status(), diags, err);
        return;
      }
      for (Status &w : cost->warnings)
        warnings.push_back(std::move(w));
      costText = passes::formatCostReport(*cost);
    }
    for (const Status &w : warnings) {
      Diagnostic d;
      d.severity = opts.werror ? Severity::kError : Severity::kWarning;
      d.loc = w.loc();
      d.message = w.message();
      err << diags.format(d) << '\n';
    }
    if (opts.werror && !warnings.empty())
      return;
    for (const Status &n : ctx.notes) {
      Diagnostic d;
      d.severity = Severity::kNote;
      d.loc = n.loc();
      d.message = n.message();
      err << diags.format(d) << '\n';
    }
    if (emit == Emit::kObj) {
      code = writeAotObject(*graph, ctx.fetches, opts.fetches, varOfNode, opts, err) ? 0 : 1;
      return;
    }
    if (emit == Emit::kPartitions) {
      code = writePartitions(*graph, opts.output, diags, out, err) ? 0 : 1;
      return;
    }
    std::string text;
    switch (emit) {
    case Emit::kLlvm:
    case Emit::kPtx: {
      auto llvmText = emit == Emit::kLlvm ? backend::jit::emitLlvmIr(*graph)
                                          : backend::jit::emitPtx(*graph, opts.gpuArch);
      if (!llvmText.hasValue()) {
        report(llvmText.status(), diags, err);
        return;
      }
      text = std::move(*llvmText);
      break;
    }
    case Emit::kDot: text = ir::writeDot(*graph, ir::DotOptions{true}); break;
    case Emit::kPlacement: text = placementTable(*graph); break;
    case Emit::kCost: text = costText; break;
    case Emit::kFused: text = passes::describeClusters(*graph) + ir::printGraph(*graph); break;
    case Emit::kIr:
    case Emit::kPartitions:
    case Emit::kObj: text = ir::printGraph(*graph); break;
    }
    code = writeOutput(text, opts.output, out, err) ? 0 : 1;
  });
  return code;
}

} // namespace sluice::driver
