// runtime/distributed/free_port.cc: ask the kernel for an ephemeral port.
#include "runtime/distributed/free_port.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace sluice::dist {

Expected<int> pickFreeLoopbackPort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return unavailable(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd);
    return unavailable("no free loopback port: " + why);
  }
  ::close(fd);
  return static_cast<int>(ntohs(addr.sin_port));
}

} // namespace sluice::dist
