#include "hogwild/shared_memory.hpp"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace mptrain::hogwild {

SharedMemory::SharedMemory(SharedMemory&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

SharedMemory& SharedMemory::operator=(SharedMemory&& other) noexcept {
  if (this != &other) {
    this->~SharedMemory();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

SharedMemory::~SharedMemory() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

namespace {

// `bytes` for a person: "512 bytes", "47 MiB", "1.5 GiB".
std::string amount(std::size_t bytes) {
  const auto value = static_cast<double>(bytes);
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  if (bytes < 1024 * 1024) return fmt::format("{:.0f} KiB", value / 1024);
  if (bytes < std::size_t{1} << 30) return fmt::format("{:.0f} MiB", value / (1024 * 1024));
  return fmt::format("{:.1f} GiB", value / (1024.0 * 1024 * 1024));
}

// Why `size` bytes for `purpose` could not be had (errno `err`), and what to do.
Error not_reserved(std::size_t size, std::string_view purpose, int err) {
  const std::string advice = err == ENOMEM || err == ENOSPC || err == EFBIG
                                 ? "free memory, or raise the limit on this process's memory (ulimit -v)"
                                 : "free memory, or check the limits on this process's memory (ulimit -a)";
  return Error{fmt::format("cannot reserve {} of shared memory for {}: {}; {}", amount(size), purpose,
                           std::strerror(err), advice),
               err};
}

}  // namespace

Result<SharedMemory> SharedMemory::create(std::size_t size, const std::string& name, std::string_view purpose) {
  const std::size_t mapped = size == 0 ? 1 : size;
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return not_reserved(mapped, purpose, errno);
  if (::ftruncate(fd, static_cast<off_t>(mapped)) != 0) {
    const int err = errno;
    ::close(fd);
    return not_reserved(mapped, purpose, err);
  }
  void* address = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the memory alive; the fd is not needed
  if (address == MAP_FAILED) return not_reserved(mapped, purpose, err);
  SharedMemory segment;
  segment.data_ = static_cast<std::byte*>(address);
  segment.size_ = mapped;
  return segment;
}

Status SharedMemory::protect(Access access) {
  const int protection = access == Access::read_only ? PROT_READ : PROT_READ | PROT_WRITE;
  if (::mprotect(data_, size_, protection) != 0) return errno_error("mprotect", "shared memory");
  return ok_status();
}

}  // namespace mptrain::hogwild
