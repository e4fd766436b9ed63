// support/secrets.cc: token comparison and generation.
#include "support/secrets.h"

#include <cerrno>
#include <cstring>
#include <vector>

#include <sys/random.h>

namespace sluice {

bool constantTimeEquals(std::string_view a, std::string_view b) {
  // The length is not secret (a token has a known form); the contents are.
  if (a.size() != b.size())
    return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = diff | static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

Expected<std::string> randomHexToken(size_t bytes) {
  std::vector<unsigned char> buf(bytes);
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::getrandom(buf.data() + got, bytes - got, 0);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return Status(Code::kUnavailable,
                    std::string("cannot read random bytes for a token: ") + std::strerror(errno));
    }
    got += static_cast<size_t>(n);
  }
  static const char *hex = "0123456789abcdef";
  std::string out;
  for (unsigned char b : buf) {
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

} // namespace sluice
