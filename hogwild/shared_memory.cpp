#include "hogwild/shared_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

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

Result<SharedMemory> SharedMemory::create(std::size_t size, const std::string& name) {
  const std::size_t mapped = size == 0 ? 1 : size;
  const int fd = ::memfd_create(name.c_str(), MFD_CLOEXEC);
  if (fd < 0) return errno_error("memfd_create", name);
  if (::ftruncate(fd, static_cast<off_t>(mapped)) != 0) {
    const int err = errno;
    ::close(fd);
    return errno_error("ftruncate of shared memory", name, err);
  }
  void* address = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the memory alive; the fd is not needed
  if (address == MAP_FAILED) return errno_error("mmap of shared memory", name, err);
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
