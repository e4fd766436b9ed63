// backend/rendezvous.cc: rendezvous keys and the in-process rendezvous.
#include "backend/rendezvous.h"

#include <charconv>
#include <cstdio>
#include <vector>

#include "ir/device_spec.h"

namespace sluice::backend {

std::string rendezvousKey(const std::string &sendDevice, int64_t incarnation,
                          const std::string &recvDevice, const std::string &tensorName, int frame,
                          int iteration) {
  char inc[17];
  std::snprintf(inc, sizeof inc, "%016llx", static_cast<unsigned long long>(incarnation));
  return sendDevice + ";" + inc + ";" + recvDevice + ";" + tensorName + ";" +
         std::to_string(frame) + ":" + std::to_string(iteration);
}

namespace {

Status badKey(std::string_view key, const std::string &why) {
  return invalidArgument("Invalid rendezvous key: " + std::string(key) + " (" + why + ")");
}

template <typename T> bool parseNumber(std::string_view s, T &v, int base = 10) {
  if (s.empty())
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return ec == std::errc() && p == s.data() + s.size();
}

// TF's text, which its tests match on; the key says which tensor.
Status cancelledRecv(const std::string &key) {
  return Status(Code::kCancelled, "RecvAsync is cancelled. (key " + key + ")");
}

} // namespace

Expected<ParsedRendezvousKey> parseRendezvousKey(std::string_view key) {
  std::vector<std::string_view> parts;
  for (size_t start = 0;;) {
    size_t semi = key.find(';', start);
    parts.push_back(key.substr(start, semi - start));
    if (semi == std::string_view::npos)
      break;
    start = semi + 1;
  }
  if (parts.size() != 5)
    return badKey(key, "expected 5 parts separated by ';', got " + std::to_string(parts.size()));
  ParsedRendezvousKey k;
  for (int i : {0, 2}) {
    auto spec = ir::DeviceSpec::parse(parts[i]);
    if (parts[i].empty() || !spec.hasValue())
      return badKey(key, "'" + std::string(parts[i]) + "' is not a device name");
    (i == 0 ? k.sendDevice : k.recvDevice) = std::string(parts[i]);
  }
  if (parts[1].size() > 16 || !parseNumber(parts[1], k.incarnation, 16))
    return badKey(key, "'" + std::string(parts[1]) + "' is not a hex incarnation");
  if (parts[3].empty())
    return badKey(key, "the tensor name is empty");
  k.tensorName = std::string(parts[3]);
  size_t colon = parts[4].find(':');
  if (colon == std::string_view::npos || !parseNumber(parts[4].substr(0, colon), k.frame) ||
      !parseNumber(parts[4].substr(colon + 1), k.iteration))
    return badKey(key, "'" + std::string(parts[4]) + "' is not frame:iteration");
  return k;
}

LocalRendezvous::LocalRendezvous() : st_(std::make_shared<State>()) {}

Status LocalRendezvous::send(const std::string &key, ir::Tensor t) {
  Waiter w;
  {
    std::lock_guard<std::mutex> lock(st_->mu);
    if (!st_->aborted.isOk())
      return st_->aborted;
    if (!st_->sent.emplace(key, true).second)
      return internalError("rendezvous key '" + key + "' was sent twice in one step");
    auto it = st_->waiting.find(key);
    if (it == st_->waiting.end()) {
      st_->ready.emplace(key, std::move(t));
      return Status::ok();
    }
    w = std::move(it->second);
    st_->waiting.erase(it);
  }
  // Whoever removes the waiter completes it, outside the lock.
  if (w.cm)
    w.cm->deregisterCallback(w.token);
  w.done(Status::ok(), std::move(t));
  return Status::ok();
}

void LocalRendezvous::recvAsync(const std::string &key, CancellationManager *cm,
                                DoneCallback done) {
  std::unique_lock<std::mutex> lock(st_->mu);
  if (!st_->aborted.isOk()) {
    Status s = st_->aborted;
    lock.unlock();
    return done(s, {});
  }
  auto it = st_->ready.find(key);
  if (it != st_->ready.end()) {
    ir::Tensor t = std::move(it->second);
    st_->ready.erase(it);
    lock.unlock();
    return done(Status::ok(), std::move(t));
  }
  Waiter &w = st_->waiting[key];
  w.done = std::move(done);
  if (!cm)
    return;
  w.cm = cm;
  w.token = cm->registerCallback([st = st_, key] {
    DoneCallback d;
    {
      std::lock_guard<std::mutex> l(st->mu);
      auto wi = st->waiting.find(key);
      if (wi == st->waiting.end())
        return; // a send or an abort got there first
      d = std::move(wi->second.done);
      st->waiting.erase(wi);
    }
    d(cancelledRecv(key), {});
  });
  if (w.token == CancellationManager::kInvalidToken) {
    DoneCallback d = std::move(w.done);
    st_->waiting.erase(key);
    lock.unlock();
    d(cancelledRecv(key), {});
  }
}

void LocalRendezvous::abort(Status s) {
  std::vector<Waiter> waiters;
  {
    std::lock_guard<std::mutex> lock(st_->mu);
    if (!st_->aborted.isOk())
      return;
    st_->aborted = s;
    for (auto &[k, w] : st_->waiting)
      waiters.push_back(std::move(w));
    st_->waiting.clear();
    st_->ready.clear();
  }
  for (Waiter &w : waiters) {
    if (w.cm)
      w.cm->deregisterCallback(w.token);
    w.done(s, {});
  }
}

} // namespace sluice::backend
