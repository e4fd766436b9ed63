// driver/aot_output.cc
#include "driver/aot_output.h"

#include <filesystem>
#include <ostream>
#include <set>

#include "backend/jit/aot.h"
#include "backend/io/checkpoint.h"

namespace sluice::driver {

namespace {

std::string identifier(const std::string &s) {
  std::string out;
  for (char c : s)
    out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0])))
    out = "t_" + out;
  return out;
}

/// Unique C identifiers: a repeated name gets _2, _3, ...
std::string unique(const std::string &want, std::set<std::string> &taken) {
  std::string name = want;
  for (int k = 2; taken.count(name); ++k)
    name = want + "_" + std::to_string(k);
  taken.insert(name);
  return name;
}

} // namespace

Expected<std::vector<ir::Output>> resolveFetches(const std::vector<std::string> &names,
                                                 const ir::Graph &g,
                                                 const std::map<std::string, ir::Output> &vars) {
  std::vector<ir::Output> out;
  for (const std::string &name : names) {
    if (auto it = vars.find(name); it != vars.end()) {
      out.push_back(it->second);
      continue;
    }
    std::string node = name;
    int index = 0;
    if (auto colon = name.rfind(':'); colon != std::string::npos) {
      node = name.substr(0, colon);
      try {
        index = std::stoi(name.substr(colon + 1));
      } catch (...) {
        index = -1;
      }
    }
    const ir::Node *n = g.findNode(node);
    if (!n || index < 0 || index >= n->numOutputs())
      return Status(Code::kNotFound, "--fetch " + name +
                                         ": no top-level variable or node output of that name");
    out.push_back({n->id(), index});
  }
  return out;
}

bool writeAotObject(const ir::Graph &g, const std::vector<ir::Output> &fetches,
                    const std::vector<std::string> &fetchNames,
                    const std::map<std::string, std::string> &varOfNode,
                    const CompileOptions &opts, std::ostream &err) {
  namespace fs = std::filesystem;
  backend::jit::AotSignature sig;
  std::string stem = fs::path(opts.output).stem().string();
  sig.function = identifier(opts.function.empty() ? stem + "_run" : opts.function);
  std::set<std::string> taken;
  for (ir::NodeId id = 0; id < g.numNodes(); ++id) {
    const ir::Node &n = g.node(id);
    if (n.opName() != "placeholder")
      continue;
    auto var = varOfNode.find(n.name());
    sig.inputs.push_back({id, 0});
    sig.inputNames.push_back(unique(identifier(var != varOfNode.end() ? var->second : n.name()), taken));
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    sig.outputs.push_back(fetches[i]);
    sig.outputNames.push_back(unique(identifier(fetchNames[i]), taken));
  }
  std::string header = opts.header.empty() ? (fs::path(opts.output).replace_extension(".h")).string()
                                           : opts.header;
  auto compiled =
      backend::jit::compileAheadOfTime(g, sig, fs::path(header).filename().string());
  if (!compiled.hasValue()) {
    const Status &s = compiled.status();
    err << (s.loc().valid() ? s.loc().str() + ": " : std::string()) << "error: "
        << codeName(s.code()) << ": " << s.message() << "\n";
    return false;
  }
  for (const auto &[path, data] : {std::pair{opts.output, &compiled->object},
                                   std::pair{header, &compiled->header}}) {
    Status w = backend::io::writeFileAtomically(path, *data);
    if (!w.isOk()) {
      err << "sluice: error: cannot write '" << path << "': " << w.message() << "\n";
      return false;
    }
  }
  return true;
}

} // namespace sluice::driver
