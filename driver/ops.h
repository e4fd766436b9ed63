// driver/ops.h: `sluice ops`: the op reference of the registry, listed,
// one op in detail, or as the Markdown of docs/reference/ops.md.
#pragma once

#include <iosfwd>
#include <string>

namespace sluice::driver {

struct OpsOptions {
  std::string op;        // one op in detail; empty: every op
  bool markdown = false; // every op as Markdown (docs/reference/ops.md)
  std::string output;    // write here, atomically, instead of to `out`
};

/// Prints (or writes) what `opts` asks for. 0 on success; 1 with a
/// message on `err` for an unknown op or an unwritable output.
int showOps(const OpsOptions &opts, std::ostream &out, std::ostream &err);

} // namespace sluice::driver
