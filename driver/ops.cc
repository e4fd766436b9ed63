// driver/ops.cc: `sluice ops` over driver/op_reference.h.
#include "driver/ops.h"

#include <ostream>

#include "backend/io/checkpoint.h"
#include "driver/op_reference.h"
#include "ir/op_registry.h"

namespace sluice::driver {

int showOps(const OpsOptions &opts, std::ostream &out, std::ostream &err) {
  const ir::OpRegistry &reg = ir::opRegistry();
  std::string text;
  if (!opts.op.empty()) {
    const ir::OpDef *op = reg.find(opts.op);
    if (!op) {
      err << "sluice: error: no op named '" << opts.op << "' (`sluice ops` lists them)\n";
      return 1;
    }
    text = opDoc(*op);
  } else {
    text = opts.markdown ? opReferenceMarkdown(reg) : opListing(reg);
  }
  if (opts.output.empty()) {
    out << text;
    return 0;
  }
  // The checked-in reference is regenerated in place: never leave it half
  // written.
  Status w = backend::io::writeFileAtomically(opts.output, text);
  if (!w.isOk()) {
    err << "sluice: error: cannot write '" << opts.output << "': " << w.message() << "\n";
    return 1;
  }
  return 0;
}

} // namespace sluice::driver
