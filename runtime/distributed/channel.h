// runtime/distributed/channel.h: how the tasks of a cluster talk to each
// other (token, TLS, message limits): plain data, no gRPC headers, so the
// layers above can hold it.
#pragma once

#include <string>

#include "support/status.h"

namespace sluice::dist {

/// PEM text that turns on TLS. With a CA, both sides present `cert` and
/// check the other's against the CA (mutual TLS); without one, clients
/// trust `cert` itself (a self-signed cluster certificate).
struct TlsMaterial {
  std::string cert, key, ca;
  bool enabled() const { return !cert.empty() || !ca.empty(); }
};

/// How a task talks to the others: the shared secret every call carries,
/// TLS, and the largest message either side accepts.
struct ChannelOptions {
  std::string token;
  TlsMaterial tls;
  int maxMessageBytes = 1 << 30;
};

/// TLS from PEM files (any may be empty); not_found / invalid_argument
/// naming the file that cannot be read or is not PEM, and the pairs that
/// make no sense (a key without a certificate).
Expected<TlsMaterial> loadTls(const std::string &certFile, const std::string &keyFile,
                              const std::string &caFile);

} // namespace sluice::dist
