// driver/emit.h: the forms `sluice compile --emit` writes, as one table:
// what each needs from the pass pipeline and where its output goes.
#pragma once

#include <string>
#include <string_view>

namespace sluice::driver {

enum class Emit { kIr, kDot, kPlacement, kPartitions, kCost, kFused, kLlvm, kPtx, kObj };

struct EmitForm {
  Emit emit;
  const char *name;  // the --emit value
  bool placed;       // the graph is placed on devices first
  bool fused;        // the fusion pass runs
  bool toDirectory;  // -o names a directory, one file per device
  bool toObject;     // -o names an object file; --fetch is required
  const char *what;  // a phrase for --help
};

/// The form named `name`; null for an unknown one.
const EmitForm *findEmit(std::string_view name);
/// "'ir', 'dot', ... or 'obj'", for the error on an unknown name.
std::string emitNames();
/// "ir (what), dot (what), ...", for --help.
std::string emitHelp();

} // namespace sluice::driver
