#include "hogwild/idx.hpp"

#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

using namespace mptrain::hogwild;
namespace fs = std::filesystem;
using mptrain::test::TempDir;

namespace {

// The bytes of an unsigned-byte IDX file with `dims` and `payload`.
std::string idx_bytes(const std::vector<std::uint32_t>& dims, const std::string& payload) {
  std::string out{'\0', '\0', '\x08', static_cast<char>(dims.size())};
  for (auto d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((d >> shift) & 0xff);
  }
  return out + payload;
}

void write_plain(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

void write_gzip(const fs::path& path, const std::string& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  REQUIRE(file != nullptr);
  gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(file);
}

// Writes a valid set of `count` 28×28 images and labels named `prefix`.
void write_set(const fs::path& dir, const std::string& prefix, int count, bool gzip) {
  std::string pixels(static_cast<std::size_t>(count) * 784, '\0');
  std::string labels;
  for (int i = 0; i < count; ++i) {
    pixels[static_cast<std::size_t>(i) * 784] = static_cast<char>(i);
    labels += static_cast<char>(i % 10);
  }
  auto images = idx_bytes({static_cast<std::uint32_t>(count), 28, 28}, pixels);
  auto label_file = idx_bytes({static_cast<std::uint32_t>(count)}, labels);
  if (gzip) {
    write_gzip(dir / (prefix + "-images-idx3-ubyte.gz"), images);
    write_gzip(dir / (prefix + "-labels-idx1-ubyte.gz"), label_file);
  } else {
    write_plain(dir / (prefix + "-images-idx3-ubyte"), images);
    write_plain(dir / (prefix + "-labels-idx1-ubyte"), label_file);
  }
}

std::string load_error(const fs::path& dir) {
  auto data = load_dataset(dir, Split::train);
  REQUIRE_FALSE(data.ok());
  return data.error().message;
}

}  // namespace

TEST_CASE("plain and gzip IDX sets load with their sizes and labels", "[hogwild]") {
  for (bool gzip : {false, true}) {
    TempDir dir;
    write_set(dir.path, "train", 12, gzip);
    auto data = load_dataset(dir.path, Split::train);
    REQUIRE(data.ok());
    CHECK(data->count == 12);
    CHECK(data->rows == 28);
    CHECK(data->cols == 28);
    CHECK(data->label(11) == 1);
    CHECK(data->image(5)[0] == 5);
  }
}

TEST_CASE("a training limit keeps the first samples", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "t10k", 12, false);
  auto data = load_dataset(dir.path, Split::test, 5);
  REQUIRE(data.ok());
  CHECK(data->count == 5);
}

TEST_CASE("a missing IDX file is named", "[hogwild]") {
  TempDir dir;
  CHECK_THAT(load_error(dir.path), Catch::Contains("train-images-idx3-ubyte"));
}

TEST_CASE("a truncated IDX file is refused naming the file", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  const auto images = dir.path / "train-images-idx3-ubyte";
  fs::resize_file(images, fs::file_size(images) - 100);
  const auto message = load_error(dir.path);
  CHECK_THAT(message, Catch::Contains("train-images-idx3-ubyte") && Catch::Contains("truncated"));
}

TEST_CASE("a truncated gzip file is refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 40, true);
  const auto images = dir.path / "train-images-idx3-ubyte.gz";
  fs::resize_file(images, fs::file_size(images) / 2);
  CHECK_THAT(load_error(dir.path), Catch::Contains("train-images-idx3-ubyte.gz"));
}

TEST_CASE("corrupt compressed data is refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 40, true);
  const auto images = dir.path / "train-images-idx3-ubyte.gz";
  std::string bytes;
  {
    std::ifstream in(images, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (std::size_t i = 20; i < bytes.size() - 8; i += 7) bytes[i] = static_cast<char>(bytes[i] ^ 0x5a);
  write_plain(images, bytes);
  CHECK_THAT(load_error(dir.path), Catch::Contains("train-images-idx3-ubyte.gz"));
}

TEST_CASE("a bad magic number is refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  write_plain(dir.path / "train-labels-idx1-ubyte", "PK\x03\x04 this is a zip file");
  CHECK_THAT(load_error(dir.path),
             Catch::Contains("train-labels-idx1-ubyte: not an IDX file (it does not start with the bytes 00 00 08 01); "
                             "give MNIST-format files (compressed ones must end in .gz)"));
}

TEST_CASE("images with the wrong number of dimensions are refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  write_plain(dir.path / "train-images-idx3-ubyte", idx_bytes({4, 784}, std::string(4 * 784, '\0')));
  CHECK_THAT(load_error(dir.path), Catch::Contains("dimensions"));
}

TEST_CASE("trailing data after the payload is refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  write_plain(dir.path / "train-labels-idx1-ubyte", idx_bytes({4}, std::string("\x01\x02\x03\x04\x05", 5)));
  CHECK_THAT(load_error(dir.path), Catch::Contains("trailing"));
}

TEST_CASE("labels outside 0-9 are refused", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  write_plain(dir.path / "train-labels-idx1-ubyte", idx_bytes({4}, std::string("\x01\x02\x0c\x04", 4)));
  CHECK_THAT(load_error(dir.path), Catch::Contains("outside 0-9"));
}

TEST_CASE("image and label counts must agree", "[hogwild]") {
  TempDir dir;
  write_set(dir.path, "train", 4, false);
  write_plain(dir.path / "train-labels-idx1-ubyte", idx_bytes({3}, std::string("\x01\x02\x03", 3)));
  CHECK_THAT(load_error(dir.path), Catch::Contains("4 images") && Catch::Contains("3 labels"));
}
