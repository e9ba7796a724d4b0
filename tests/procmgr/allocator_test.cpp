#include "procmgr/allocator.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

using namespace mptrain;
using namespace mptrain::procmgr;

namespace {

// An empty directory under /tmp, removed at the end of the test.
struct TempRoot {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("mptrain-allocator-test-" + std::to_string(::getpid()));
  TempRoot() { std::filesystem::create_directories(path); }
  ~TempRoot() { std::filesystem::remove_all(path); }
  // Creates the (empty) file `absolute` under the root.
  void add(const std::string& absolute) const {
    const auto file = path / absolute.substr(1);
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file).put('\n');
  }
};

}  // namespace

TEST_CASE("allocator names round-trip, and an unknown one lists the choices") {
  for (auto allocator : {Allocator::system, Allocator::jemalloc, Allocator::tcmalloc}) {
    CHECK(parse_allocator(to_string(allocator)).value() == allocator);
  }
  auto bad = parse_allocator("mimalloc");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "unknown allocator 'mimalloc'; choose jemalloc, tcmalloc or default");
}

TEST_CASE("the default allocator preloads nothing") {
  CHECK(find_allocator(Allocator::system, FsRoot("/nonexistent")).value().empty());
}

TEST_CASE("a missing allocator library is an error naming the Debian package") {
  const TempRoot root;
  auto jemalloc = find_allocator(Allocator::jemalloc, FsRoot(root.path));
  REQUIRE_FALSE(jemalloc.ok());
  CHECK(jemalloc.error().message.find("libjemalloc.so.2 is not installed") != std::string::npos);
  CHECK(jemalloc.error().message.find("apt-get install libjemalloc2") != std::string::npos);
  auto tcmalloc = find_allocator(Allocator::tcmalloc, FsRoot(root.path));
  REQUIRE_FALSE(tcmalloc.ok());
  CHECK(tcmalloc.error().message.find("apt-get install libtcmalloc-minimal4") != std::string::npos);
}

TEST_CASE("an allocator library is found in a library directory, its path as the loader sees it") {
  const TempRoot root;
  root.add("/usr/lib/libjemalloc.so.2");
  CHECK(find_allocator(Allocator::jemalloc, FsRoot(root.path)).value() == "/usr/lib/libjemalloc.so.2");
  root.add("/usr/lib64/libtcmalloc.so.4");  // the full tcmalloc when the minimal one is absent
  CHECK(find_allocator(Allocator::tcmalloc, FsRoot(root.path)).value() == "/usr/lib64/libtcmalloc.so.4");
  root.add("/usr/local/lib/libtcmalloc_minimal.so.4");
  CHECK(find_allocator(Allocator::tcmalloc, FsRoot(root.path)).value() == "/usr/local/lib/libtcmalloc_minimal.so.4");
}
