// tflib/input/stall_check.h: Sluice's answer to TF1's silent hang. A run
// blocked on a dequeue that nothing can fill (no live thread of the
// program, no other run in flight) fails with failed_precondition naming
// the queue's node, instead of waiting forever. Shared queues (another
// process may fill them) are not in the session's resources, so they are
// never reported.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "support/source_loc.h"
#include "support/status.h"
#include "tflib/input/activity.h"

namespace sluice::rt {
class Session;
}

namespace sluice::tflib {

/// The source location of the node named so (empty when unknown); the
/// caller takes whatever lock its graph needs.
using NodeLocator = std::function<SourceLoc(const std::string &node)>;

/// For rt::RunOptions::stallCheck, polled while a run waits.
std::optional<Status> stalledQueue(const ProgramActivity &activity, rt::Session &session,
                                   const NodeLocator &locate);

} // namespace sluice::tflib
