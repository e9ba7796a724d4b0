#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cluster/python.hpp"
#include "util/text.hpp"

extern char** environ;

namespace mptrain::cluster {

std::optional<std::string> missing_python_module(std::string_view text) {
  constexpr std::string_view marker = "No module named '";
  const auto at = text.rfind(marker);
  if (at == std::string_view::npos) return std::nullopt;
  const auto start = at + marker.size();
  const auto end = text.find('\'', start);
  if (end == std::string_view::npos || end == start) return std::nullopt;
  const auto name = text.substr(start, end - start);
  return std::string(name.substr(0, name.find('.')));
}

std::vector<std::string> python_candidates(std::string_view search_path) {
  std::vector<std::string> found;
  std::vector<std::filesystem::path> seen;
  const auto consider = [&](const std::filesystem::path& path) {
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error) || ::access(path.c_str(), X_OK) != 0) return;
    const auto real = std::filesystem::canonical(path, error);
    if (error) return;
    for (const auto& other : seen) {
      if (other == real) return;
    }
    seen.push_back(real);
    found.push_back(path.string());
  };
  for (const auto directory : split(search_path, ':')) {
    if (directory.empty()) continue;
    consider(std::filesystem::path(directory) / "python3");
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(directory), error)) {
      const auto name = entry.path().filename().string();
      if (name.starts_with("python3.") && name.find_first_not_of("0123456789", 8) == std::string::npos) {
        consider(entry.path());
      }
    }
  }
  consider("/usr/bin/python3");
  consider("/usr/local/bin/python3");
  return found;
}

bool python_imports(const std::string& interpreter, const std::string& module, double seconds) {
  const std::string statement = "import " + module;
  const char* argv[] = {interpreter.c_str(), "-c", statement.c_str(), nullptr};
  posix_spawn_file_actions_t actions;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  ::posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int spawned =
      ::posix_spawn(&pid, interpreter.c_str(), &actions, nullptr, const_cast<char* const*>(argv), environ);
  ::posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (done < 0 && errno != EINTR) return false;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace mptrain::cluster
