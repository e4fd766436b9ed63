// tflib/input/stall_check.cc: the stall check over a session's queues.
#include "tflib/input/stall_check.h"

#include "backend/queue_interface.h"
#include "runtime/session.h"

namespace sluice::tflib {

std::optional<Status> stalledQueue(const ProgramActivity &activity, rt::Session &session,
                                   const NodeLocator &locate) {
  // The run asking is one of the runs in flight.
  if (activity.liveThreads() > 0 || activity.runsInFlight() > 1)
    return std::nullopt;
  std::string blocked;
  session.resources().forEach([&](backend::Resource &r) {
    auto *q = dynamic_cast<backend::QueueInterface *>(&r);
    if (q && blocked.empty() && q->numBlockedDequeuers() > 0)
      blocked = q->name();
  });
  if (blocked.empty())
    return std::nullopt;
  // Private queues are named `_<uid>_<node name>`.
  std::string nodeName = blocked;
  if (nodeName.size() > 1 && nodeName[0] == '_') {
    auto second = nodeName.find('_', 1);
    if (second != std::string::npos)
      nodeName = nodeName.substr(second + 1);
  }
  return Status(Code::kFailedPrecondition,
                "run stalled: dequeue on " + blocked +
                    " waits and no producer is running (no live thread or other run can "
                    "enqueue to it: start the queue runners, or run an enqueue from another "
                    "thread)",
                locate ? locate(nodeName) : SourceLoc{}, nodeName);
}

} // namespace sluice::tflib
