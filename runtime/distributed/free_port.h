// runtime/distributed/free_port.h: loopback ports nobody listens on, for
// `sluice launch` and the cluster tests.
#pragma once

#include "support/status.h"

namespace sluice::dist {

/// A TCP port on 127.0.0.1 free at the time of the call (the kernel's
/// pick for port 0). Another process may take it before it is used, so
/// callers that bind it later retry on "cannot listen".
Expected<int> pickFreeLoopbackPort();

} // namespace sluice::dist
