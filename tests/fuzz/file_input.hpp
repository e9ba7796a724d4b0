// Fuzz targets whose parser reads a path: the input becomes a memfd, named
// by its /proc/self/fd path, so the real file-reading code runs.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace mptrain::fuzz {

// `data` as a file; its path stays valid while the object lives.
class FileInput {
 public:
  FileInput(const std::uint8_t* data, std::size_t size, const char* name) : fd_(::memfd_create(name, MFD_CLOEXEC)) {
    for (std::size_t done = 0; fd_ >= 0 && done < size;) {
      const ssize_t n = ::write(fd_, data + done, size - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~FileInput() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileInput(const FileInput&) = delete;
  FileInput& operator=(const FileInput&) = delete;

  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace mptrain::fuzz
