#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstdint>

#include "procmgr/port.hpp"
#include "util/fd.hpp"

namespace mptrain::procmgr {

Result<int> find_free_port() {
  UniqueFd socket_fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket_fd.valid()) return errno_error("cannot create a TCP socket", "");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = 0;
  if (::bind(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) < 0) {
    return errno_error("cannot bind a TCP socket", "to find a free port");
  }
  socklen_t length = sizeof address;
  if (::getsockname(socket_fd.get(), reinterpret_cast<sockaddr*>(&address), &length) < 0) {
    return errno_error("getsockname", "");
  }
  return static_cast<int>(ntohs(address.sin_port));
}

bool port_in_use(int port) {
  const UniqueFd socket_fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!socket_fd.valid()) return false;
  const int yes = 1;
  ::setsockopt(socket_fd.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return ::bind(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) < 0 &&
         errno == EADDRINUSE;
}

}  // namespace mptrain::procmgr
