// bench/raw_tcp.cc: raw.cpp's cmd_tcp, as functions returning the median.
// One warm-up run comes first, as raw.cpp's REPS timed runs follow one.
#include "bench/raw_tcp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace sluice::bench {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void fullWrite(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t k = ::write(fd, p, n);
    if (k <= 0) {
      std::perror("raw tcp write");
      std::exit(4);
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

void fullRead(int fd, char *p, size_t n) {
  while (n) {
    ssize_t k = ::read(fd, p, n);
    if (k <= 0) {
      std::perror("raw tcp read");
      std::exit(4);
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The forked side: reads `total` bytes and acks, or echoes `msg` bytes
// `count` times, once per run (warm-up included). It only makes system
// calls, so the parent may have threads (gRPC's) when it forks.
[[noreturn]] void serve(int listener, bool bandwidth, size_t msg, size_t count, int runs,
                        std::vector<char> &buf) {
  int s = ::accept(listener, nullptr, nullptr);
  int one = 1;
  ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  for (int r = 0; r < runs; ++r) {
    if (bandwidth) {
      size_t got = 0;
      while (got < count) {
        ssize_t k = ::read(s, buf.data(), std::min(buf.size(), count - got));
        if (k <= 0)
          std::_Exit(5);
        got += static_cast<size_t>(k);
      }
      fullWrite(s, "k", 1);
    } else {
      for (size_t i = 0; i < count; ++i) {
        fullRead(s, buf.data(), msg);
        fullWrite(s, buf.data(), msg);
      }
    }
  }
  ::close(s);
  std::_Exit(0);
}

// `count` is the bytes per run (bandwidth) or the round trips per run.
std::vector<double> measure(bool bandwidth, size_t msg, size_t count, int reps) {
  int listener = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(listener, reinterpret_cast<sockaddr *>(&a), sizeof a) ||
      ::listen(listener, 1) ||
      ::getsockname(listener, reinterpret_cast<sockaddr *>(&a), &len)) {
    std::perror("raw tcp bind/listen");
    std::exit(1);
  }
  std::vector<char> serverBuf(std::max<size_t>(msg, 1 << 22));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid == 0)
    serve(listener, bandwidth, msg, count, reps + 1, serverBuf);
  ::close(listener);
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  if (::connect(s, reinterpret_cast<sockaddr *>(&a), sizeof a)) {
    std::perror("raw tcp connect");
    std::exit(1);
  }
  int one = 1;
  ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  std::vector<char> buf(msg, 'x');
  std::vector<double> values;
  for (int r = 0; r <= reps; ++r) {
    double t0 = now();
    if (bandwidth) {
      for (size_t sent = 0; sent < count; sent += msg)
        fullWrite(s, buf.data(), std::min(msg, count - sent));
      char ack;
      fullRead(s, &ack, 1);
    } else {
      for (size_t i = 0; i < count; ++i) {
        fullWrite(s, buf.data(), msg);
        fullRead(s, buf.data(), msg);
      }
    }
    double dt = now() - t0;
    if (r)
      values.push_back(bandwidth ? count / dt / 1e6 : dt / count * 1e6);
  }
  ::close(s);
  ::waitpid(pid, nullptr, 0);
  return values;
}

} // namespace

double rawTcpBandwidthMBps(size_t msg, size_t total, int reps) {
  return median(measure(true, msg, total, reps));
}

double rawTcpRoundTripUs(size_t msg, int iters, int reps) {
  return median(measure(false, msg, static_cast<size_t>(iters), reps));
}

} // namespace sluice::bench
