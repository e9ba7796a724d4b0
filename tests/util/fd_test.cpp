#include "util/fd.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

using namespace mptrain;

TEST_CASE("write_all delivers every byte through a pipe", "[util]") {
  auto pipe = make_pipe(PipeMode::blocking);
  REQUIRE(pipe.ok());
  const std::string message(3000, 'x');
  REQUIRE(write_all(pipe->write.get(), message, "the test pipe").ok());
  pipe->write.reset();
  std::string received;
  char buffer[512];
  ssize_t n;
  while ((n = ::read(pipe->read.get(), buffer, sizeof buffer)) > 0)
    received.append(buffer, static_cast<std::size_t>(n));
  CHECK(received == message);
}

TEST_CASE("a UniqueFd closes its descriptor when it goes out of scope", "[util]") {
  int raw = -1;
  {
    const UniqueFd fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    REQUIRE(fd.valid());
    raw = fd.get();
    CHECK(::fcntl(raw, F_GETFD) >= 0);
  }
  CHECK(::fcntl(raw, F_GETFD) == -1);
}

TEST_CASE("pipes are close-on-exec and non-blocking where asked", "[util]") {
  auto pipe = make_pipe(PipeMode::nonblocking_read);
  REQUIRE(pipe.ok());
  CHECK((::fcntl(pipe->read.get(), F_GETFD) & FD_CLOEXEC) != 0);
  CHECK((::fcntl(pipe->read.get(), F_GETFL) & O_NONBLOCK) != 0);
  CHECK((::fcntl(pipe->write.get(), F_GETFL) & O_NONBLOCK) == 0);
}

TEST_CASE("write_all to a closed descriptor is an error naming what it wrote", "[util]") {
  auto status = write_all(-1, "data", "the nowhere file");
  REQUIRE_FALSE(status.ok());
  CHECK(status.error().message.find("the nowhere file") != std::string::npos);
}

TEST_CASE("raising the open-file limit sets the soft limit to the hard one and remembers the first", "[util]") {
  rlimit limit{};
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  if (limit.rlim_max < 128) return;  // no room to lower the soft limit below the hard one
  const auto remembered = soft_open_file_limit_before_raise();
  limit.rlim_cur = limit.rlim_max / 2;
  REQUIRE(::setrlimit(RLIMIT_NOFILE, &limit) == 0);
  CHECK(raise_open_file_limit() == limit.rlim_max);
  REQUIRE(::getrlimit(RLIMIT_NOFILE, &limit) == 0);
  CHECK(limit.rlim_cur == limit.rlim_max);
  CHECK(soft_open_file_limit_before_raise() == remembered.value_or(limit.rlim_max / 2));
}
