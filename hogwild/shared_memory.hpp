// Anonymous shared memory (memfd) mapped before fork: the training data and
// the parameter store live in such segments so M workers share one copy.
// A memfd has no name in /dev/shm; it disappears with the last mapping, so
// nothing is left behind however the processes end.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace mptrain::hogwild {

// Whether a segment may be written after creation.
enum class Access { read_write, read_only };

// A MAP_SHARED mapping of a memfd; move-only, unmapped on destruction.
class SharedMemory {
 public:
  SharedMemory() = default;
  SharedMemory(SharedMemory&& other) noexcept;
  SharedMemory& operator=(SharedMemory&& other) noexcept;
  SharedMemory(const SharedMemory&) = delete;
  SharedMemory& operator=(const SharedMemory&) = delete;
  ~SharedMemory();

  // A zero-filled segment of `size` bytes named `name` (for /proc/PID/maps),
  // holding `purpose` ("the model's parameters"); an Error saying how much
  // could not be reserved for what, errno and what to do otherwise.
  static Result<SharedMemory> create(std::size_t size, const std::string& name, std::string_view purpose);

  // Changes the protection of the whole mapping; an Error with errno otherwise.
  Status protect(Access access);

  std::byte* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace mptrain::hogwild
