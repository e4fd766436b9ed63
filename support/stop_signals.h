// support/stop_signals.h: SIGINT and SIGTERM as a request to stop. A
// process that serves a cluster task must shut its server down cleanly
// (cancel calls in flight, let join() return) rather than die mid-call;
// one with nothing registered exits at once, as it would by default.
#pragma once

#include <functional>

namespace sluice {

/// Blocks SIGINT and SIGTERM in this thread (and so in every thread it
/// starts later) and starts the thread that waits for them. Call first
/// thing in main(). On a signal every registered handler runs; the process
/// exits with 128 + signal if it is still running `graceSeconds` later, or
/// at once when no handler is registered.
void installStopSignals(int graceSeconds = 5);

/// Runs `fn` on SIGINT/SIGTERM until the returned id is removed.
int addStopHandler(std::function<void()> fn);
void removeStopHandler(int id);

/// While any interrupt handler is registered, SIGINT runs the interrupt
/// handlers instead of stopping the process, as often as it comes (an
/// interactive prompt cancels its current input or step); SIGTERM still
/// stops.
int addInterruptHandler(std::function<void()> fn);
void removeInterruptHandler(int id);

/// For a child about to exec: the signal mask it inherits unblocked.
void unblockStopSignals();

} // namespace sluice
