// Linux /proc parsing and reading (see procfs.hpp).
#include "monitor/procfs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

#include "util/launcher_variables.hpp"
#include "util/place_variables.h"
#include "util/text.hpp"

namespace mptrain::monitor {

namespace {

// The value after "key=" in a space-separated "key=value" list, or nullopt.
std::optional<std::string_view> keyed_value(std::string_view line, std::string_view key) {
  for (const auto word : split_words(line)) {
    if (word.size() > key.size() && word.starts_with(key) && word[key.size()] == '=') {
      return word.substr(key.size() + 1);
    }
  }
  return std::nullopt;
}

// Calls `visit(line)` for each line of `text`.
template <class Visit>
void for_each_line(std::string_view text, Visit visit) {
  while (!text.empty()) {
    const auto end = text.find('\n');
    visit(text.substr(0, end));
    if (end == std::string_view::npos) return;
    text.remove_prefix(end + 1);
  }
}

// The path /proc/PID/NAME.
std::string process_path(pid_t pid, std::string_view name) {
  return "/proc/" + std::to_string(pid) + "/" + std::string(name);
}

// `names` that are all digits, as pids.
std::vector<pid_t> numeric_names(const std::vector<std::string>& names) {
  std::vector<pid_t> pids;
  pids.reserve(names.size());
  for (const auto& name : names) {
    if (auto value = parse_u64(name)) pids.push_back(static_cast<pid_t>(*value));
  }
  return pids;
}

// Parses the content of a file read with `read` by `parse`, keeping read errors.
template <class Parse>
auto read_and_parse(const FsRoot& root, const std::string& path, Parse parse) -> decltype(parse(std::string_view())) {
  auto text = root.read(path);
  if (!text.ok()) return text.error();
  return parse(*text);
}

}  // namespace

Result<SchedStat> parse_schedstat(std::string_view text) {
  // Read at every sample for every watched thread: parsed in place, without splitting into words.
  std::uint64_t fields[3] = {};
  for (std::uint64_t& field : fields) {
    text.remove_prefix(std::min(text.size(), text.find_first_not_of(" \t\n")));
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), field);
    if (error != std::errc() || (end != text.data() + text.size() && !std::isspace(static_cast<unsigned char>(*end)))) {
      return Error{"malformed schedstat line"};
    }
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  }
  return SchedStat{fields[0], fields[1], fields[2]};
}

ProcStatus parse_status(std::string_view text) {
  ProcStatus status;
  for_each_line(text, [&status](std::string_view line) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const auto key = line.substr(0, colon);
    const auto value = trim(line.substr(colon + 1));
    if (key == "Name") {
      status.name = std::string(value);
    } else if (key == "Tgid") {
      status.tgid = static_cast<pid_t>(parse_u64(value).value_or(0));
    } else if (key == "Threads") {
      status.threads = static_cast<int>(parse_u64(value).value_or(0));
    } else if (key == "Cpus_allowed_list") {
      status.cpus_allowed_list = std::string(value);
    } else if (key == "voluntary_ctxt_switches") {
      status.voluntary_switches = parse_u64(value).value_or(0);
    } else if (key == "nonvoluntary_ctxt_switches") {
      status.nonvoluntary_switches = parse_u64(value).value_or(0);
    }
  });
  return status;
}

ThreadEnv parse_thread_env(std::string_view text) {
  ThreadEnv env;
  auto number = [](std::string_view value) -> std::optional<int> {
    auto parsed = parse_int(value);
    if (!parsed.ok() || *parsed < 0) return std::nullopt;
    return static_cast<int>(*parsed);
  };
  for (const auto entry : split(text, '\0')) {
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const auto name = entry.substr(0, eq);
    const auto value = entry.substr(eq + 1);
    for (std::size_t i = 0; i < thread_count_variables.size(); ++i) {
      if (name == thread_count_variables[i]) env.counts[i] = number(value);
    }
    if (name == launcher_variables::mptrain_cpus) env.mptrain_launched = true;
    if (name == launcher_variables::local_world_size) env.mptrain_workers = number(value).value_or(0);
    if (name == PLACE_VAR_SLICES && !value.empty()) {
      env.mptrain_children = static_cast<int>(std::count(value.begin(), value.end(), ';')) + 1;
    }
    if (name == PLACE_VAR_KEEP) env.mptrain_keep = value == "1";
    if (name == launcher_variables::ompi_local_size) env.ompi_local_size = number(value).value_or(0);
    if (name == launcher_variables::ompi_bound_at_launch) env.ompi_bound_at_launch = value == "1";
    if (name == launcher_variables::slurm_cpus_per_task) env.slurm_cpus_per_task = number(value).value_or(0);
    if (name == launcher_variables::srun_cpus_per_task) env.srun_cpus_per_task = number(value).value_or(0);
  }
  return env;
}

std::string parse_cmdline(std::string_view text) {
  while (!text.empty() && text.back() == '\0') text.remove_suffix(1);
  if (text.empty()) return "";
  std::vector<std::string> words;
  for (const auto word : split(text, '\0')) words.emplace_back(word);
  return shell_command(words);
}

Result<std::vector<CpuTimes>> parse_proc_stat(std::string_view text, double ticks_per_second) {
  std::vector<CpuTimes> cpus;
  bool malformed = false;
  for_each_line(text, [&](std::string_view line) {
    if (!line.starts_with("cpu") || line.size() < 4 || !std::isdigit(static_cast<unsigned char>(line[3]))) return;
    const auto words = split_words(line);
    if (words.size() < 5) {
      malformed = true;
      return;
    }
    std::uint64_t ticks[8] = {};
    for (std::size_t i = 0; i < 8 && i + 1 < words.size(); ++i) ticks[i] = parse_u64(words[i + 1]).value_or(0);
    // user nice system idle iowait irq softirq steal (guest time is inside user)
    const std::uint64_t idle = ticks[3] + ticks[4];
    const std::uint64_t busy = ticks[0] + ticks[1] + ticks[2] + ticks[5] + ticks[6] + ticks[7];
    CpuTimes cpu;
    cpu.cpu = static_cast<int>(parse_u64(words[0].substr(3)).value_or(0));
    cpu.busy_s = static_cast<double>(busy) / ticks_per_second;
    cpu.total_s = static_cast<double>(busy + idle) / ticks_per_second;
    cpus.push_back(cpu);
  });
  if (malformed || cpus.empty()) return Error{"malformed /proc/stat (no per-CPU lines)"};
  return cpus;
}

Result<LoadAvg> parse_loadavg(std::string_view text) {
  const auto words = split_words(text);
  if (words.size() < 4) return Error{"malformed /proc/loadavg"};
  const auto slash = words[3].find('/');
  auto l1 = parse_double(words[0]);
  auto l5 = parse_double(words[1]);
  auto l15 = parse_double(words[2]);
  if (!l1.ok() || !l5.ok() || !l15.ok() || slash == std::string_view::npos) return Error{"malformed /proc/loadavg"};
  LoadAvg load{*l1, *l5, *l15, 0, 0};
  load.runnable = static_cast<int>(parse_u64(words[3].substr(0, slash)).value_or(0));
  load.tasks = static_cast<int>(parse_u64(words[3].substr(slash + 1)).value_or(0));
  return load;
}

Result<CpuPressure> parse_cpu_pressure(std::string_view text) {
  std::optional<CpuPressure> pressure;
  for_each_line(text, [&pressure](std::string_view line) {
    if (!line.starts_with("some ")) return;
    const auto avg10 = keyed_value(line, "avg10");
    const auto total = keyed_value(line, "total");
    if (!avg10 || !total) return;
    auto avg = parse_double(*avg10);
    auto sum = parse_u64(*total);
    if (avg.ok() && sum) pressure = CpuPressure{*avg, *sum};
  });
  if (!pressure) return Error{"malformed /proc/pressure/cpu (no 'some' line)"};
  return *pressure;
}

double ticks_per_second() {
  static const double ticks = [] {
    const long value = ::sysconf(_SC_CLK_TCK);
    return value > 0 ? static_cast<double>(value) : 100.0;
  }();
  return ticks;
}

Result<ProcStatus> read_process_status(const FsRoot& root, pid_t pid) {
  return read_and_parse(root, process_path(pid, "status"),
                        [](std::string_view text) { return Result<ProcStatus>(parse_status(text)); });
}

Result<ThreadEnv> read_thread_env(const FsRoot& root, pid_t pid) {
  return read_and_parse(root, process_path(pid, "environ"),
                        [](std::string_view text) { return Result<ThreadEnv>(parse_thread_env(text)); });
}

Result<std::string> read_cmdline(const FsRoot& root, pid_t pid) {
  return read_and_parse(root, process_path(pid, "cmdline"),
                        [](std::string_view text) { return Result<std::string>(parse_cmdline(text)); });
}

Result<std::vector<pid_t>> list_tasks(const FsRoot& root, pid_t pid) {
  auto names = root.list(process_path(pid, "task"));
  if (!names.ok()) return names.error();
  return numeric_names(*names);
}

Result<std::vector<pid_t>> list_processes(const FsRoot& root) {
  auto names = root.list("/proc");
  if (!names.ok()) return names.error();
  return numeric_names(*names);
}

ProcFile::ProcFile(ProcFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)), buffer_(std::move(other.buffer_)) {}

ProcFile& ProcFile::operator=(ProcFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
    buffer_ = std::move(other.buffer_);
  }
  return *this;
}

ProcFile::~ProcFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status ProcFile::open(const FsRoot& root, std::string_view absolute) {
  if (fd_ >= 0) ::close(fd_);
  path_ = root.path(absolute).string();
  do {
    // O_NONBLOCK: a FIFO in a recorded tree must not block before fstat refuses it.
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) return errno_error("cannot open", path_);
  struct stat info {};
  if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(std::exchange(fd_, -1));
    return Error{path_ + " is not a regular file"};
  }
  if (buffer_.empty()) buffer_.resize(512);
  return ok_status();
}

Result<std::string_view> ProcFile::read() {
  if (fd_ < 0) return Error{"not open: " + path_};
  std::size_t size = 0;
  while (true) {
    const ssize_t n = ::pread(fd_, buffer_.data() + size, buffer_.size() - size, static_cast<off_t>(size));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read", path_);
    size += static_cast<std::size_t>(n);
    if (n == 0 || size < buffer_.size()) break;
    if (buffer_.size() >= max_system_file_bytes) {
      return Error{path_ + " is larger than the " + std::to_string(max_system_file_bytes) + " bytes it may hold"};
    }
    buffer_.resize(buffer_.size() * 2);
  }
  return std::string_view(buffer_.data(), size);
}

}  // namespace mptrain::monitor
