// bench/raw_tcp.h: the loopback TCP ceilings the cluster bench compares
// with, measured in the bench's own run the way shared/peers/raw.cpp's
// `tcp-bw` and `tcp-lat` measure them (2 processes, TCP_NODELAY).
#pragma once

#include <cstddef>

namespace sluice::bench {

/// Median MB/s (1e6 bytes) over `reps` runs of streaming `total` bytes in
/// `msg`-byte writes to a forked reader that acks each run with one byte.
/// The forked side makes only system calls, so threads may be running.
double rawTcpBandwidthMBps(size_t msg, size_t total, int reps);

/// Median µs per `msg`-byte ping-pong with a forked echoer, over `reps`
/// runs of `iters` round trips. Forks, as above.
double rawTcpRoundTripUs(size_t msg, int iters, int reps);

} // namespace sluice::bench
