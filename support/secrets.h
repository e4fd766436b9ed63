// support/secrets.h: handling shared secrets (the cluster token): compared
// in time that does not depend on where they differ, and made from the
// kernel's random source, failing loudly when it cannot be read.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "support/status.h"

namespace sluice {

/// a == b, taking the same time for every a of b's length, so that a
/// caller cannot learn a token byte by byte from how long a refusal takes.
bool constantTimeEquals(std::string_view a, std::string_view b);

/// `bytes` random bytes from the kernel (getrandom), as lowercase hex;
/// unavailable when the kernel cannot give them.
Expected<std::string> randomHexToken(size_t bytes = 16);

} // namespace sluice
