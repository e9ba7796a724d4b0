#include "tune/saved.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "affinity/topology.hpp"
#include "tune/machine.hpp"
#include "util/environment.hpp"
#include "util/text.hpp"

namespace mptrain::tune {
namespace {

// The version of the file's layout; a file of another version is no result.
constexpr int layout_version = 1;

// FNV-1a, 64 bits: a stable name for a command line (not a security boundary: the file says its command).
std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = 14695981039346656037ULL) {
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return hash;
}

}  // namespace

MeasuredOn measured_on(const affinity::Machine& machine, const std::string& cpu_model) {
  const affinity::Topology& t = machine.topology;
  std::string topology =
      fmt::format("{}, {}, {}, {}", counted(t.packages, "package"), counted(t.numa_nodes, "NUMA node"),
                  counted(t.cores, "core"), counted(static_cast<long long>(t.pus.size()), "PU"));
  if (!cpu_model.empty()) topology += ": " + cpu_model;
  return {fmt::format("{}, N={}", machine.usable.cpus.to_string(), machine.usable.count), topology};
}

nlohmann::json to_json(const SavedResult& result) {
  return {{"version", layout_version},
          {"command", result.command},
          {"cpus", result.on.cpus},
          {"topology", result.on.topology},
          {"saved_at", result.saved_at},
          {"winner", result.winner ? nlohmann::json(*result.winner) : nlohmann::json(nullptr)},
          {"speedup", result.speedup ? nlohmann::json(*result.speedup) : nlohmann::json(nullptr)},
          {"decision", result.decision}};
}

Result<SavedResult> saved_result_of(const nlohmann::json& document) {
  if (!document.is_object() || document.value("version", 0) != layout_version) {
    return Error{fmt::format("no result of mptrain tune (layout version {})", layout_version), 0};
  }
  try {
    SavedResult result;
    result.command = document.at("command").get<std::vector<std::string>>();
    result.on = {document.at("cpus").get<std::string>(), document.at("topology").get<std::string>()};
    result.saved_at = document.at("saved_at").get<long long>();
    if (const auto& winner = document.at("winner"); !winner.is_null()) {
      result.winner = winner.get<std::vector<std::string>>();
    }
    if (const auto& speedup = document.at("speedup"); speedup.is_number()) result.speedup = speedup.get<double>();
    result.decision = document.value("decision", "");
    return result;
  } catch (const nlohmann::json::exception& e) {
    return Error{std::string("no result of mptrain tune: ") + e.what(), 0};
  }
}

std::string saved_file_name(const std::vector<std::string>& command) {
  std::uint64_t hash = fnv1a(command.empty() ? std::string_view("(built-in training)") : std::string_view());
  for (const auto& word : command) hash = fnv1a(std::string_view("\0", 1), fnv1a(word, hash));
  return fmt::format("{:016x}.json", hash);
}

std::string saved_directory(const std::string& xdg_cache, const std::string& home) {
  if (!xdg_cache.empty() && xdg_cache.starts_with('/')) return xdg_cache + "/mptrain/tune";
  if (!home.empty()) return home + "/.cache/mptrain/tune";
  return "";
}

std::string saved_directory(const std::vector<std::string>& environment) {
  std::string xdg_cache;
  std::string home;
  find_variable(environment, "XDG_CACHE_HOME", &xdg_cache);
  find_variable(environment, "HOME", &home);
  return saved_directory(xdg_cache, home);
}

std::string saved_path(const std::vector<std::string>& command, const std::vector<std::string>& environment) {
  const std::string directory = saved_directory(environment);
  return directory.empty() ? "" : directory + "/" + saved_file_name(command);
}

Result<bool> save_result(const SavedResult& result, const std::string& path) {
  const std::filesystem::path file(path);
  std::error_code error;
  if (file.has_parent_path()) {
    std::filesystem::create_directories(file.parent_path(), error);
    if (error) return Error{fmt::format("cannot make the folder of {}: {}", path, error.message()), 0};
  }
  const std::string temporary = path + fmt::format(".{}.tmp", ::getpid());
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return errno_error("cannot save tune's result:", temporary);
  const std::string text = to_json(result).dump(2) + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int write_errno = errno;
  if (::close(fd) != 0 || !written) {
    ::unlink(temporary.c_str());
    return errno_error("cannot save tune's result:", path, written ? errno : write_errno);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    auto failure = errno_error("cannot save tune's result:", path);
    ::unlink(temporary.c_str());
    return failure;
  }
  return true;
}

Result<SavedResult> load_result(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errno_error("cannot read tune's result:", path);
  std::stringstream text;
  text << in.rdbuf();
  const auto document = nlohmann::json::parse(text.str(), nullptr, false);
  auto result = saved_result_of(document);
  if (!result.ok()) return Error{fmt::format("{}: {}", path, result.error().message), 0};
  return result;
}

std::vector<std::pair<std::string, SavedResult>> list_results(const std::string& directory) {
  std::vector<std::pair<std::string, SavedResult>> results;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (!entry.is_regular_file(error) || entry.path().extension() != ".json") continue;
    if (auto result = load_result(entry.path().string()); result.ok()) {
      results.emplace_back(entry.path().string(), std::move(result).value());
    }
  }
  std::sort(results.begin(), results.end(),
            [](const auto& a, const auto& b) { return a.second.saved_at > b.second.saved_at; });
  return results;
}

std::string age_text(long long saved_at, long long now) {
  const long long seconds = std::max(0LL, now - saved_at);
  if (seconds < 120) return fmt::format("{} s", seconds);
  if (seconds < 2 * 3600) return fmt::format("{} min", seconds / 60);
  if (seconds < 2 * 86400) return fmt::format("{} h", seconds / 3600);
  return fmt::format("{} days", seconds / 86400);
}

Result<std::vector<std::string>> tuned_options(const SavedResult& result, const MeasuredOn& here) {
  const auto refuse = [&](std::string_view what, const std::string& then, const std::string& now) {
    return Error{fmt::format("--tuned: the saved result was measured on {} {}, and this run has {}: it does not "
                             "apply here; measure again with {}",
                             what, then, now,
                             result.command.empty() ? std::string("mptrain tune") : tune_command(result.command)),
                 0};
  };
  if (result.on.topology != here.topology) return refuse("another machine:", result.on.topology, here.topology);
  if (result.on.cpus != here.cpus) return refuse("CPUs", result.on.cpus, here.cpus);
  return result.winner.value_or(std::vector<std::string>{});
}

}  // namespace mptrain::tune
