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

// logreg parameters (fc1.weight [10][784], fc1.bias [10]) in a fixed pattern
// starting 1.0f (bits 0x3F800000), -2.5f (bits 0xC0200000).
std::vector<float> pattern_parameters(const ModelLayout& layout) {
  std::vector<float> values(layout.parameter_count);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(static_cast<int>(i % 7) - 3) * 0.25f;
  values[0] = 1.0f;
  values[1] = -2.5f;
  return values;
}

// The `count` bytes of `bytes` from `at`, as numbers.
std::vector<int> bytes_at(const std::string& bytes, std::size_t at, std::size_t count) {
  std::vector<int> out;
  for (std::size_t i = at; i < at + count; ++i) out.push_back(static_cast<unsigned char>(bytes.at(i)));
  return out;
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

TEST_CASE("counters beyond any training's are refused, never shown as negative epochs", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  const auto path = temp_path("counters");
  for (const auto& [epochs, samples] :
       {std::pair{~std::uint64_t{0}, std::uint64_t{1}}, std::pair{std::uint64_t{1}, ~std::uint64_t{0}}}) {
    REQUIRE(write_file_atomic(path, encode_checkpoint(layout, some_parameters(layout), epochs, samples)).ok());
    CHECK_THAT(load_error(path, ModelKind::logreg), Catch::Contains("beyond any training's"));
  }
  REQUIRE(write_file_atomic(path, encode_checkpoint(layout, some_parameters(layout), std::uint64_t{1} << 53, 7)).ok());
  CHECK(load_checkpoint(path, ModelKind::logreg).ok());
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

TEST_CASE("a device or a file larger than any checkpoint is refused without reading it", "[hogwild]") {
  CHECK_THAT(load_error("/dev/zero", ModelKind::cnn), Catch::Contains("not a regular file"));
  const auto path = temp_path("huge");
  { std::ofstream out(path); }
  fs::resize_file(path, std::uintmax_t{1} << 34);  // 16 GiB, sparse
  CHECK_THAT(load_error(path, ModelKind::cnn), Catch::Contains("not an mptrain checkpoint"));
  fs::remove(path);
}

TEST_CASE("a file that starts like a checkpoint but is larger than any is refused by its size", "[hogwild]") {
  const auto path = temp_path("grown");
  {
    std::ofstream out(path);
    out << checkpoint_file.signature;
  }
  fs::resize_file(path, std::uintmax_t{1} << 34);  // 16 GiB, sparse
  CHECK_THAT(load_error(path, ModelKind::cnn), Catch::Contains("17179869184 bytes, more than any mptrain checkpoint"));
  fs::remove(path);
}

TEST_CASE("a missing checkpoint's message says what to give instead", "[hogwild]") {
  CHECK_THAT(load_error("/nonexistent/x.ckpt", ModelKind::cnn),
             Catch::Contains("No such file or directory; give the path of a checkpoint written by --save-model"));
}

TEST_CASE("the largest model's checkpoint loads within the bound", "[hogwild]") {
  const auto layout = model_layout(ModelKind::mlp);
  const auto path = temp_path("mlp");
  REQUIRE(save_checkpoint(path, layout, some_parameters(layout), 1, 1).ok());
  CHECK(load_checkpoint(path, ModelKind::mlp).ok());
  fs::remove(path);
}

TEST_CASE("a file that is not a checkpoint is refused", "[hogwild]") {
  const auto path = temp_path("junk");
  REQUIRE(write_file_atomic(path, "hello, world, this is not a model").ok());
  CHECK_THAT(load_error(path, ModelKind::cnn), Catch::Contains("not an mptrain checkpoint"));
  fs::remove(path);
}

TEST_CASE("a checkpoint's header fields and parameters are little-endian at their offsets", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  const auto bytes =
      encode_checkpoint(layout, pattern_parameters(layout), 0x0102030405060708ULL, 0x1122334455667788ULL);
  using Bytes = std::vector<int>;
  CHECK(bytes.substr(0, 8) == "MPTRCKPT");
  CHECK(bytes_at(bytes, 8, 4) == Bytes{1, 0, 0, 0});                                       // version 1
  CHECK(bytes_at(bytes, 12, 4) == Bytes{3, 0, 0, 0});                                      // model kind: logreg
  CHECK(bytes_at(bytes, 16, 4) == Bytes{2, 0, 0, 0});                                      // two tensors
  CHECK(bytes_at(bytes, 20, 4) == Bytes{2, 0, 0, 0});                                      // fc1.weight: rank 2,
  CHECK(bytes_at(bytes, 24, 4) == Bytes{10, 0, 0, 0});                                     //   10
  CHECK(bytes_at(bytes, 28, 4) == Bytes{0x10, 3, 0, 0});                                   //   × 784
  CHECK(bytes_at(bytes, 32, 4) == Bytes{1, 0, 0, 0});                                      // fc1.bias: rank 1,
  CHECK(bytes_at(bytes, 36, 4) == Bytes{10, 0, 0, 0});                                     //   10
  CHECK(bytes_at(bytes, 40, 8) == Bytes{0xaa, 0x1e, 0, 0, 0, 0, 0, 0});                    // 7850 parameters
  CHECK(bytes_at(bytes, 48, 8) == Bytes{8, 7, 6, 5, 4, 3, 2, 1});                          // epochs
  CHECK(bytes_at(bytes, 56, 8) == Bytes{0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11});  // samples
  CHECK(bytes_at(bytes, 64, 4) == Bytes{0, 0, 0x80, 0x3f});                                // parameter 0: 1.0f
  CHECK(bytes_at(bytes, 68, 4) == Bytes{0, 0, 0x20, 0xc0});                                // parameter 1: -2.5f
  CHECK(bytes.size() == 64 + 7850 * 4 + 4);
}

TEST_CASE("a checkpoint carries the checksum recorded from the first writer of its format", "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  const auto bytes =
      encode_checkpoint(layout, pattern_parameters(layout), 0x0102030405060708ULL, 0x1122334455667788ULL);
  // The CRC-32 covers every byte after the magic; this value, stored
  // little-endian, was recorded from the first writer of the format, so
  // checkpoints saved before still load.
  CHECK(bytes_at(bytes, bytes.size() - 4, 4) == std::vector<int>{0x6e, 0x75, 0x4c, 0x94});
}

TEST_CASE("a checkpoint is what check_replaceable calls a checkpoint, and never replaces another kind of file",
          "[hogwild]") {
  const auto layout = model_layout(ModelKind::logreg);
  const auto path = temp_path("kind");
  REQUIRE(save_checkpoint(path, layout, some_parameters(layout), 1, 1).ok());
  CHECK(check_replaceable(path, checkpoint_file).ok());
  REQUIRE(save_checkpoint(path, layout, some_parameters(layout), 2, 2).ok());  // one checkpoint replaces another
  const auto notes = temp_path("notes");
  REQUIRE(write_file_atomic(notes, "my notes").ok());
  CHECK_FALSE(check_replaceable(notes, checkpoint_file).ok());
  const auto saved = save_checkpoint(notes, layout, some_parameters(layout), 1, 1);
  REQUIRE_FALSE(saved.ok());
  CHECK_THAT(saved.error().message, Catch::Contains("it is not an mptrain checkpoint"));
  CHECK(read_file(notes).value_or("") == "my notes");
  fs::remove(path);
  fs::remove(notes);
}
