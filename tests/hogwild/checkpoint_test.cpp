#include "hogwild/checkpoint.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <vector>

#include "util/fs.hpp"

using namespace mptrain;
using namespace mptrain::hogwild;
namespace fs = std::filesystem;

namespace {

fs::path temp_path(const std::string& name) {
  return fs::temp_directory_path() / ("mptrain-ckpt-" + std::to_string(::getpid()) + "-" + name);
}

std::vector<float> some_parameters(const ModelLayout& layout) {
  std::vector<float> values(layout.parameter_count);
  initialize_parameters(layout, 3, values);
  return values;
}

std::string load_error(const fs::path& path, ModelKind kind) {
  auto loaded = load_checkpoint(path, kind);
  REQUIRE_FALSE(loaded.ok());
  return loaded.error().message;
}

}  // namespace

TEST_CASE("a checkpoint round-trips parameters and totals exactly", "[hogwild]") {
  const auto layout = model_layout(ModelKind::cnn);
  const auto values = some_parameters(layout);
  const auto path = temp_path("roundtrip");
  REQUIRE(save_checkpoint(path, layout, values, 2, 120000).ok());
  auto loaded = load_checkpoint(path, ModelKind::cnn);
  REQUIRE(loaded.ok());
  CHECK(loaded->parameters == values);
  CHECK(loaded->epochs == 2);
  CHECK(loaded->samples == 120000);
  fs::remove(path);
}

TEST_CASE("a checkpoint of another model kind is refused naming both", "[hogwild]") {
  const auto layout = model_layout(ModelKind::mlp);
  const auto path = temp_path("kind");
  REQUIRE(save_checkpoint(path, layout, some_parameters(layout), 1, 1).ok());
  CHECK_THAT(load_error(path, ModelKind::cnn), Catch::Contains("'mlp'") && Catch::Contains("'cnn'"));
  fs::remove(path);
}

TEST_CASE("a flipped byte fails the checksum", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  auto bytes = encode_checkpoint(layout, some_parameters(layout), 1, 1);
  bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
  const auto path = temp_path("flip");
  REQUIRE(write_file_atomic(path, bytes).ok());
  CHECK_THAT(load_error(path, ModelKind::logreg), Catch::Contains("checksum"));
  fs::remove(path);
}

TEST_CASE("a truncated checkpoint is refused", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  const auto bytes = encode_checkpoint(layout, some_parameters(layout), 1, 1);
  const auto path = temp_path("short");
  for (std::size_t keep : {std::size_t{4}, std::size_t{20}, bytes.size() - 10}) {
    REQUIRE(write_file_atomic(path, bytes.substr(0, keep)).ok());
    CHECK_THAT(load_error(path, ModelKind::logreg), Catch::Contains(path.string()));
  }
  fs::remove(path);
}

TEST_CASE("a file that is not a checkpoint is refused", "[hogwild]") {
  const auto path = temp_path("junk");
  REQUIRE(write_file_atomic(path, "hello, world, this is not a model").ok());
  CHECK_THAT(load_error(path, ModelKind::cnn), Catch::Contains("not an mptrain checkpoint"));
  fs::remove(path);
}
