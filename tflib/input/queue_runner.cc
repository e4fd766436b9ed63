// tflib/input/queue_runner.cc: the threads of TF1's QueueRunner.
#include "tflib/input/queue_runner.h"

#include <iostream>

#include "runtime/session.h"
#include "runtime/turnstile.h"

namespace sluice::tflib {

/// A deterministic round's turnstile and this thread's place in it.
struct Turns {
  std::shared_ptr<rt::Turnstile> turnstile;
  int who = 0;
};

std::vector<QueueRunner::ThreadBody>
QueueRunner::startRound(rt::Session &session, std::shared_ptr<Coordinator> coord,
                        std::shared_ptr<ProgramActivity> activity) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    running_[&session] = static_cast<int>(def_.enqueueOps.size());
  }
  std::shared_ptr<rt::Turnstile> turnstile;
  if (session.options().deterministic)
    turnstile = std::make_shared<rt::Turnstile>(static_cast<int>(def_.enqueueOps.size()));
  auto self = shared_from_this();
  std::vector<ThreadBody> bodies;
  for (size_t i = 0; i < def_.enqueueOps.size(); ++i) {
    ir::NodeId op = def_.enqueueOps[i];
    Turns turns{turnstile, static_cast<int>(i)};
    bodies.push_back({op, [self, &session, coord, activity, op, turns]() mutable {
                        return self->enqueueLoop(session, op, coord.get(), *activity,
                                                 turns.turnstile ? &turns : nullptr);
                      }});
  }
  if (coord && def_.cancelOp != ir::kNoNode) {
    ir::NodeId cancel = def_.cancelOp;
    bodies.push_back({ir::kNoNode, [&session, coord, cancel]() -> std::optional<Status> {
                        // A runner must not outlive its session waiting for
                        // a stop that nobody will request.
                        while (!coord->waitForStop(0.05))
                          if (session.isClosed())
                            return std::nullopt;
                        if (!session.isClosed())
                          (void)session.run({}, {}, {cancel});
                        return std::nullopt;
                      }});
  }
  return bodies;
}

std::optional<Status> QueueRunner::enqueueLoop(rt::Session &session, ir::NodeId op,
                                               Coordinator *coord, ProgramActivity &activity,
                                               Turns *turns) {
  bool counted = true; // still among the session's running enqueue threads
  std::optional<Status> failure;
  auto stopping = [&] { return coord && coord->shouldStop(); };
  auto giveUp = [&] { return stopping() || session.isClosed(); };
  while (!stopping()) {
    if (turns && !turns->turnstile->acquire(turns->who, giveUp))
      break;
    if (turns && stopping())
      break; // the stop came while this thread waited for its turn
    auto r = [&] {
      ProgramActivity::Run inFlight(activity);
      return session.run({}, {}, {op});
    }();
    if (r.hasValue()) {
      if (turns)
        turns->turnstile->release(turns->who);
      continue;
    }
    if (turns)
      turns->turnstile->leave(turns->who);
    Status s = r.takeStatus();
    if (s.code() == Code::kOutOfRange) {
      // The queue upstream closed: the last thread to end closes ours.
      bool last;
      {
        std::lock_guard<std::mutex> lock(mu_);
        last = --running_[&session] == 0;
        counted = false;
      }
      if (last && def_.closeOp != ir::kNoNode)
        (void)session.run({}, {}, {def_.closeOp});
      break;
    }
    failure = std::move(s);
    break;
  }
  if (turns)
    turns->turnstile->leave(turns->who);
  if (counted) {
    std::lock_guard<std::mutex> lock(mu_);
    --running_[&session];
  }
  if (!failure)
    return std::nullopt;
  if (coord)
    return coord->requestStop(failure); // late (after join): the thread dies with it
  {
    std::lock_guard<std::mutex> lock(mu_);
    exceptions_.push_back(*failure);
  }
  std::cerr << "Exception in queue_runner: " << failure->toString() << "\n";
  return std::nullopt;
}

std::vector<Status> QueueRunner::exceptions() const {
  std::lock_guard<std::mutex> lock(mu_);
  return exceptions_;
}

} // namespace sluice::tflib
