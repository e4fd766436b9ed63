// passes/fuse_read_decode.h: the batched-reader rewrite: a reader_read or
// reader_read_up_to whose values only a decode_csv reads becomes one
// reader_read_csv node that parses each line where the reader holds it.
#pragma once

#include "passes/pass.h"

namespace sluice::passes {

/// "fuse-read-decode". The rewrite keeps every observable behaviour: the
/// same records are consumed per run, the same columns come out (keys too
/// when something reads them), errors keep decode_csv's words and add the
/// bad record's file:line. It leaves a pair alone when the values are
/// read by anything else, fed or fetched, when the two nodes are on
/// different devices, or when PassOptions::fuseReadDecode is off. The
/// replaced nodes lose their consumers; the next prune drops them.
std::unique_ptr<Pass> createFuseReadDecodePass();

} // namespace sluice::passes
