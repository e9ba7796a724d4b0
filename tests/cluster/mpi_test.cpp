#include "cluster/mpi.hpp"

#include <stdlib.h>

#include <catch2/catch.hpp>

using namespace mptrain::cluster;

TEST_CASE("a missing MPI plugin is an error naming the file, and MPI is never started") {
  ::setenv("MPTRAIN_MPI_PLUGIN", "/nonexistent/libmptrain_mpi.so", 1);
  auto mpi = Mpi::start();
  ::unsetenv("MPTRAIN_MPI_PLUGIN");
  REQUIRE_FALSE(mpi.ok());
  CHECK(mpi.error().message.find("cannot load the MPI plugin /nonexistent/libmptrain_mpi.so") != std::string::npos);
}

TEST_CASE("a library that is not mptrain's MPI plugin is refused") {
  ::setenv("MPTRAIN_MPI_PLUGIN", "libm.so.6", 1);
  auto mpi = Mpi::start();
  ::unsetenv("MPTRAIN_MPI_PLUGIN");
  REQUIRE_FALSE(mpi.ok());
  CHECK(mpi.error().message == "libm.so.6 is not an MPI plugin of this mptrain (rebuild it with this version)");
}
