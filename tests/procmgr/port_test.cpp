#include "procmgr/port.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

TEST_CASE("a free port is in the valid range and can be bound") {
  auto port = mptrain::procmgr::find_free_port();
  REQUIRE(port.ok());
  CHECK(*port > 0);
  CHECK(*port < 65536);
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  address.sin_port = htons(static_cast<uint16_t>(*port));
  CHECK(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
  ::close(fd);
}

TEST_CASE("free ports differ while the first is held") {
  auto first = mptrain::procmgr::find_free_port();
  auto second = mptrain::procmgr::find_free_port();
  REQUIRE(first.ok());
  REQUIRE(second.ok());
}
