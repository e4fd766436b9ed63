// driver/op_reference.cc: the op reference as text and Markdown, from the
// op registry and the kernel facts of driver/op_kernels.h.
#include "driver/op_reference.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <vector>

#include "driver/op_kernels.h"
#include "runtime/session_devices.h"

namespace sluice::driver {

namespace {

/// What the reference says of an op with no TF counterpart.
constexpr const char *kSluiceOnly = "Sluice only";

std::string argType(const ir::ArgDef &a) {
  std::string t = a.fixedType != ir::DType::kInvalid ? std::string(ir::dtypeName(a.fixedType))
                                                     : a.typeAttr;
  if (!a.numberAttr.empty())
    return a.numberAttr + "*" + t;
  if (!a.typeListAttr.empty())
    return a.typeListAttr;
  return t;
}

std::string joined(const std::vector<std::string> &items, const std::string &sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i ? sep : "") + items[i];
  return out;
}

std::string dtypeList(const std::vector<ir::DType> &types) {
  std::vector<std::string> names;
  for (ir::DType t : types)
    names.emplace_back(ir::dtypeName(t));
  return joined(names, ", ");
}

/// `T: type = f32 in {f32, f64}`, `keepdims: bool = false`, `N: int >= 1`.
std::string attrText(const ir::AttrDef &a) {
  std::string s = a.name + ": " + std::string(ir::attrTypeName(a.type));
  if (a.defaultValue)
    s += " = " + ir::formatAttr(*a.defaultValue);
  else if (a.optional)
    s += " (optional)";
  if (!a.allowed.empty())
    s += " in {" + dtypeList(a.allowed) + "}";
  if (a.minimum)
    s += " >= " + std::to_string(*a.minimum);
  return s;
}

std::string tfText(const ir::OpDef &op) {
  return op.tfNames.empty() ? kSluiceOnly : joined(op.tfNames, ", ");
}

std::vector<std::string> flags(const ir::OpDef &op) {
  std::vector<std::string> f;
  if (op.stateful)
    f.push_back("stateful");
  if (op.async)
    f.push_back("async");
  return f;
}

std::string gradientText(const ir::OpDef &op) {
  if (op.gradient)
    return "yes";
  return op.notDifferentiable ? "not differentiable (its inputs get no gradient)"
                              : "none (an error where a gradient must pass through it)";
}

/// The gradient column of the overviews: one short word.
std::string gradientWord(const ir::OpDef &op) {
  return op.gradient ? "yes" : op.notDifferentiable ? "not differentiable" : "none";
}

std::string cpuText(const OpKernels &k) { return k.cpu ? "yes" : "none"; }

std::string jitText(const OpKernels &k) {
  if (k.jitKernel)
    return "its own kernel, compiled by LLVM";
  if (!k.jitFused.empty())
    return "fused and compiled for " + dtypeList(k.jitFused) +
           (k.cpu ? " (other dtypes: the CPU kernel)" : "");
  return k.cpu ? "the CPU kernel" : "none";
}

std::string gpuText(const OpKernels &k) {
  if (k.gpuKernel)
    return "a GPU kernel";
  if (!k.gpuFused.empty())
    return "in fused GPU clusters for " + dtypeList(k.gpuFused);
  return "none (placed on a CPU)";
}

/// The kernels column of the terminal listing.
std::string kernelWords(const OpKernels &k) {
  std::vector<std::string> w;
  if (k.cpu)
    w.push_back("CPU");
  if (k.jitKernel)
    w.push_back("JIT");
  else if (!k.jitFused.empty())
    w.push_back("JIT-fused");
  if (k.gpuKernel)
    w.push_back("GPU");
  else if (!k.gpuFused.empty())
    w.push_back("GPU-fused");
  return w.empty() ? "-" : joined(w, " ");
}

/// The registry's ops by family, families in registration order, ops by
/// name; ops of no family come last, under "other".
std::vector<std::pair<std::string, std::vector<const ir::OpDef *>>>
byFamily(const ir::OpRegistry &reg) {
  std::vector<std::pair<std::string, std::vector<const ir::OpDef *>>> groups;
  std::map<std::string, size_t> index;
  for (const std::string &f : reg.families()) {
    index[f] = groups.size();
    groups.push_back({f, {}});
  }
  for (const std::string &name : reg.names()) {
    const ir::OpDef *op = reg.find(name);
    std::string f = op->family.empty() ? "other" : op->family;
    if (!index.count(f)) {
      index[f] = groups.size();
      groups.push_back({f, {}});
    }
    groups[index[f]].second.push_back(op);
  }
  std::erase_if(groups, [](const auto &g) { return g.second.empty(); });
  return groups;
}

std::string padded(const std::string &s, size_t width) {
  return s.size() >= width ? s + " " : s + std::string(width - s.size(), ' ');
}

// --- Markdown ------------------------------------------------------------

/// `|` would end a table cell.
std::string cell(const std::string &s) {
  std::string out;
  for (char c : s)
    out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

std::string code(const std::string &s) { return "`" + s + "`"; }

std::string codeList(const std::vector<std::string> &items) {
  std::vector<std::string> c;
  for (const std::string &i : items)
    c.push_back(code(i));
  return joined(c, ", ");
}

/// GitHub's heading anchor of "### `name`": the name itself, since op
/// names are lower case, digits and underscores.
std::string anchor(const std::string &name) { return "#" + name; }

std::string familyHeading(const std::string &family) { return family + " ops"; }

std::string familyAnchor(const std::string &family) {
  std::string a = "#";
  for (char c : familyHeading(family))
    a += c == ' ' ? '-' : c;
  return a;
}

void markdownOp(std::ostringstream &os, const ir::OpDef &op) {
  OpKernels k = opKernels(op);
  os << "### " << code(op.name) << "\n\n";
  os << "```text\n" << opSignature(op) << "\n```\n\n";
  if (!op.summary.empty())
    os << op.summary << "\n\n";
  os << "- **TF 1.15:** " << (op.tfNames.empty() ? kSluiceOnly : codeList(op.tfNames)) << "\n";
  auto args = [&](const char *what, const std::vector<ir::ArgDef> &list) {
    std::vector<std::string> items;
    for (const ir::ArgDef &a : list)
      items.push_back(a.name + ": " + argType(a));
    os << "- **" << what << ":** " << (items.empty() ? "none" : codeList(items)) << "\n";
  };
  args("Inputs", op.inputs);
  args("Outputs", op.outputs);
  std::vector<std::string> attrs;
  for (const ir::AttrDef &a : op.attrs)
    attrs.push_back(attrText(a));
  os << "- **Attrs:** " << (attrs.empty() ? "none" : codeList(attrs)) << "\n";
  if (!flags(op).empty())
    os << "- **Flags:** " << joined(flags(op), ", ") << "\n";
  os << "- **Gradient:** " << gradientText(op) << "\n";
  os << "- **Kernels:**\n";
  os << "  - CPU: " << cpuText(k) << "\n";
  os << "  - JIT: " << jitText(k) << "\n";
  os << "  - GPU: " << gpuText(k) << "\n\n";
}

} // namespace

std::string opSignature(const ir::OpDef &op) {
  std::string s = op.name + "(";
  for (size_t i = 0; i < op.signature.size(); ++i) {
    if (i)
      s += ", ";
    s += op.signature[i];
    if (const ir::AttrDef *a = op.findAttr(op.signature[i]); a && a->defaultValue)
      s += ": " + ir::formatAttr(*a->defaultValue);
  }
  s += ")";
  if (!op.outputs.empty()) {
    s += " -> ";
    for (size_t i = 0; i < op.outputs.size(); ++i)
      s += (i ? ", " : "") + op.outputs[i].name + ": " + argType(op.outputs[i]);
  }
  return s;
}

std::string opDoc(const ir::OpDef &op) {
  std::ostringstream os;
  OpKernels k = opKernels(op);
  os << opSignature(op) << "\n";
  if (!op.summary.empty())
    os << "  " << op.summary << "\n";
  os << "TF 1.15: " << tfText(op) << "\n";
  os << "inputs:\n";
  for (const auto &a : op.inputs)
    os << "  " << a.name << ": " << argType(a) << "\n";
  os << "outputs:\n";
  for (const auto &a : op.outputs)
    os << "  " << a.name << ": " << argType(a) << "\n";
  os << "attrs:\n";
  for (const auto &a : op.attrs)
    os << "  " << attrText(a) << "\n";
  if (!flags(op).empty())
    os << "flags: " << joined(flags(op), " ") << "\n";
  os << "gradient: " << gradientText(op) << "\n";
  os << "kernels:\n";
  os << "  CPU: " << cpuText(k) << "\n";
  os << "  JIT: " << jitText(k) << "\n";
  os << "  GPU: " << gpuText(k) << "\n";
  return os.str();
}

std::string opListing(const ir::OpRegistry &reg) {
  // The TF names vary most in width: they come last.
  size_t nameWidth = 2, kernelWidth = 7;
  for (const std::string &name : reg.names()) {
    nameWidth = std::max(nameWidth, name.size());
    kernelWidth = std::max(kernelWidth, kernelWords(opKernels(*reg.find(name))).size());
  }
  const size_t gradientWidth = std::string("not differentiable").size();
  std::ostringstream os;
  os << padded("  OP", nameWidth + 3) << padded("GRADIENT", gradientWidth + 1)
     << padded("KERNELS", kernelWidth + 1) << "TF 1.15\n";
  for (const auto &[family, ops] : byFamily(reg)) {
    os << family << ":\n";
    for (const ir::OpDef *op : ops)
      os << "  " << padded(op->name, nameWidth + 1) << padded(gradientWord(*op), gradientWidth + 1)
         << padded(kernelWords(opKernels(*op)), kernelWidth + 1) << tfText(*op) << "\n";
  }
  return os.str();
}

std::string opReferenceMarkdown(const ir::OpRegistry &reg) {
  auto groups = byFamily(reg);
  std::ostringstream os;
  os << "<!-- Generated by `sluice ops --markdown` from the op registry: do not edit by hand. "
        "Regenerate with `build/sluice ops --markdown -o docs/reference/ops.md`. -->\n";
  os << "# Op reference\n\n";
  os << "Every op of Sluice's registry (`ir/ops/*.cc`), generated from the registry itself "
        "and from the kernel registries and predicates the runtime uses, so it cannot drift: "
        "the `docs_op_reference` test fails when this file differs from what "
        "`sluice ops --markdown` prints. `sluice ops NAME` and the REPL's `:doc NAME` show "
        "the same facts for one op.\n\n";
  os << "How to read an entry:\n\n";
  os << "- **Signature:** the positional order of TF1's Python function, which the language "
        "binds positional arguments in; an attr's default follows its name. Keyword arguments "
        "bind by name.\n";
  os << "- **TF 1.15:** the TF op(s) the op stands for, as TF spells them, the one TF1's "
        "Python builds first; \"" << kSluiceOnly << "\" when TF has no such op.\n";
  os << "- **Inputs and outputs:** a fixed dtype, a type attr (`T`), `N*T` for a list of N, "
        "or a type-list attr. **Attrs** give their defaults and allowed dtypes.\n";
  os << "- **Flags:** *stateful* ops are never folded or deduplicated; *async* ops may block "
        "(a queue's dequeue) without holding a thread.\n";
  os << "- **Gradient:** *yes* (a rule in `ir/grads/`), *not differentiable* (its inputs get "
        "no gradient, TF's NotDifferentiable), or *none* (an error where a gradient must "
        "pass through it).\n";
  os << "- **Kernels:** *CPU*: a built-in kernel. *JIT*: *fused*, the dtypes for which "
        "fusion puts the op in clusters that the JIT compiles with LLVM (other nodes run "
        "the CPU kernel, `-` in the tables); *kernel*, the JIT's own kernel. *GPU*: "
        "*kernel*, a kernel of the GPU backend; *fused*, the dtypes for which a GPU takes "
        "the op into its fused clusters (a reduction only with "
     << rt::kMinGpuReductionOutputs
     << " outputs or more); anything else is placed on a CPU. These come from the "
        "registrations and predicates, not from this machine's devices.\n\n";
  os << "## Contents\n\n";
  for (const auto &[family, ops] : groups)
    os << "- [" << familyHeading(family) << "](" << familyAnchor(family) << ") (" << ops.size()
       << ")\n";
  os << "\n";
  for (const auto &[family, ops] : groups) {
    os << "## " << familyHeading(family) << "\n\n";
    os << "| op | TF 1.15 | gradient | CPU | JIT | GPU |\n";
    os << "|---|---|---|---|---|---|\n";
    for (const ir::OpDef *op : ops) {
      OpKernels k = opKernels(*op);
      os << "| [" << code(op->name) << "](" << anchor(op->name) << ") | "
         << (op->tfNames.empty() ? kSluiceOnly : cell(codeList(op->tfNames))) << " | "
         << gradientWord(*op) << " | " << (k.cpu ? "yes" : "-") << " | "
         << (k.jitKernel ? "kernel" : !k.jitFused.empty() ? "fused" : "-") << " | "
         << (k.gpuKernel ? "kernel" : !k.gpuFused.empty() ? "fused" : "-") << " |\n";
    }
    os << "\n";
    for (const ir::OpDef *op : ops)
      markdownOp(os, *op);
  }
  std::string out = os.str();
  while (out.size() > 1 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n')
    out.pop_back();
  return out;
}

} // namespace sluice::driver
