// bench/peers.h: the peer baselines' scripts (../shared/peers, beside the
// repository; PEERS_DIR overrides) run from a benchmark when they and
// their Python packages are present, so a figure and its peer are taken in
// the same run on the same machine.
#pragma once

#include <string>
#include <vector>

namespace sluice::bench {

struct PeerFigure {
  std::string name; // the script's label, e.g. "numpy  np.maximum(a*x+b, 0)  (temporaries)"
  std::string unit;
  double median = 0;
};

/// Runs `python3 SCRIPT ARGS` in the peers folder (Debian's /usr/bin/python3
/// when present, or PEERS_PYTHON) and returns the figures
/// it printed (one JSON object per line); empty, with `why` set, when the
/// folder, the script or a package it imports is missing, or it fails.
std::vector<PeerFigure> runPeerScript(const std::string &script, const std::string &args,
                                      std::string *why);

/// `name` as a BENCH name part: lowercase letters and digits, runs of
/// anything else one '_', at most 48 characters.
std::string benchSlug(const std::string &name);

} // namespace sluice::bench
