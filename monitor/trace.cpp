#include "monitor/trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

namespace mptrain::monitor {

namespace {

// `text` as a JSON string literal, bytes that are not UTF-8 written as U+FFFD.
std::string json_string(const std::string& text) {
  return nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// `seconds` as a fraction of an interval of `interval_s` seconds (0 for an empty interval).
float fraction(double seconds, double interval_s) {
  return interval_s > 0 ? static_cast<float>(seconds / interval_s) : 0.0F;
}

std::uint64_t thread_key(pid_t pid, pid_t tid) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(pid)) << 32) | static_cast<std::uint32_t>(tid);
}

// A counter value, short but exact to about 1e-5.
std::string number(float value) { return fmt::format("{:.6g}", value); }

}  // namespace

void TraceWriter::add(const IntervalEnd& interval) {
  if (!origin_s_) origin_s_ = interval.start_s;
  // Intervals follow each other: clamping keeps the events sorted should a caller skip one.
  const std::int64_t start = std::max(micros(interval.start_s), end_us_);
  end_us_ = std::max(start, micros(interval.end_s));
  if (!truncated() && !has_room(interval.evidence)) truncate(start);
  if (!truncated()) {
    add_threads(interval.evidence, start, interval.end_s - interval.start_s);
    add_cpus(interval.evidence, start);
  }
  add_verdict(interval.window_verdict, end_us_);
}

std::int64_t TraceWriter::micros(double monotonic_s) const {
  return std::llround((monotonic_s - origin_s_.value_or(monotonic_s)) * 1e6);
}

bool TraceWriter::has_room(const Evidence& evidence) const {
  // The most one interval can add: an event per thread and CPU, and a zero per track gone.
  const std::size_t most = evidence.threads.size() + evidence.cpus.size() + nonzero_.size();
  return events_.size() + most <= max_events_;
}

void TraceWriter::truncate(std::int64_t ts) {
  truncated_at_us_ = ts;
  for (const auto& [key, track] : nonzero_) events_.push_back({ts, key.first, track, 0, 0});
  nonzero_.clear();
}

void TraceWriter::add_threads(const Evidence& evidence, std::int64_t ts, double seconds) {
  for (const auto& [tid, thread] : evidence.threads) {
    const Key key{Kind::thread, thread_key(thread.pid, tid)};
    const float on = fraction(thread.on_cpu_s, seconds);
    const float wait = fraction(thread.wait_s, seconds);
    if (on == 0 && wait == 0 && !nonzero_.contains(key)) continue;
    const auto process = evidence.processes.find(thread.pid);
    const std::string& comm = process != evidence.processes.end() ? process->second.comm : thread.comm;
    const auto track = track_of(key, {Kind::thread, thread.pid, tid, fmt::format("{} {}", thread.comm, tid), comm});
    set(key, track, ts, on, wait);
  }
  zero_missing(Kind::thread, ts, [&](const Track& track) {
    const auto it = evidence.threads.find(track.id);
    return it != evidence.threads.end() && it->second.pid == track.pid;
  });
}

void TraceWriter::add_cpus(const Evidence& evidence, std::int64_t ts) {
  for (const auto& [cpu, times] : evidence.cpus) {
    if (times.total_s <= 0) continue;  // not in /proc/stat at both ends
    const Key key{Kind::cpu, static_cast<std::uint64_t>(cpu)};
    const float utilization = static_cast<float>(times.busy_s / times.total_s);
    if (utilization == 0 && !nonzero_.contains(key) && track_ids_.contains(key)) continue;
    set(key, track_of(key, {Kind::cpu, cpus_pid, cpu, fmt::format("cpu {}", cpu), "CPUs"}), ts, utilization, 0);
  }
  zero_missing(Kind::cpu, ts, [&](const Track& track) { return evidence.cpus.contains(track.id); });
}

void TraceWriter::add_verdict(Verdict verdict, std::int64_t ts) {
  if (verdict_ == verdict) return;
  const float previous = verdict_ ? static_cast<float>(*verdict_) : -1.0F;
  events_.push_back({ts, Kind::verdict, 0, static_cast<float>(verdict), previous});
  verdict_ = verdict;
}

void TraceWriter::set(const Key& key, std::uint32_t track, std::int64_t ts, float a, float b) {
  events_.push_back({ts, key.first, track, a, b});
  if (a == 0 && b == 0) {
    nonzero_.erase(key);
  } else {
    nonzero_[key] = track;
  }
}

// Gives a 0 at `ts` to each non-zero track of `kind` for which `present` is false.
template <class Present>
void TraceWriter::zero_missing(Kind kind, std::int64_t ts, Present present) {
  for (auto it = nonzero_.begin(); it != nonzero_.end();) {
    if (it->first.first != kind || present(tracks_[it->second])) {
      ++it;
      continue;
    }
    events_.push_back({ts, kind, it->second, 0, 0});
    it = nonzero_.erase(it);
  }
}

std::uint32_t TraceWriter::track_of(const Key& key, Track track) {
  const auto [it, added] = track_ids_.try_emplace(key, static_cast<std::uint32_t>(tracks_.size()));
  if (!added) return it->second;
  track.name = json_string(track.name);
  track.comm = json_string(track.comm);
  tracks_.push_back(std::move(track));
  return it->second;
}

std::string TraceWriter::event_text(const Event& e) const {
  if (e.kind == Kind::verdict) {
    const auto verdict = to_string(static_cast<Verdict>(static_cast<int>(e.a)));
    const std::string previous =
        e.b < 0 ? "null" : fmt::format("\"{}\"", to_string(static_cast<Verdict>(static_cast<int>(e.b))));
    return fmt::format(
        R"({{"ph":"i","s":"g","name":"verdict: {0}","pid":{1},"tid":0,"ts":{2},"args":{{"verdict":"{0}","previous":{3}}}}})",
        verdict, cpus_pid, e.ts_us, previous);
  }
  const Track& track = tracks_[e.track];
  if (e.kind == Kind::cpu) {
    return fmt::format(R"({{"ph":"C","name":{},"pid":{},"tid":0,"ts":{},"args":{{"utilization":{}}}}})", track.name,
                       cpus_pid, e.ts_us, number(e.a));
  }
  return fmt::format(R"({{"ph":"C","name":{},"pid":{},"tid":{},"ts":{},"args":{{"on_cpu":{},"waiting":{}}}}})",
                     track.name, track.pid, track.id, e.ts_us, number(e.a), number(e.b));
}

std::string TraceWriter::metadata_text() const {
  constexpr auto process_name = R"({{"ph":"M","name":"process_name","pid":{},"tid":0,"ts":0,"args":{{"name":{}}}}})";
  std::string out = fmt::format(process_name, cpus_pid, "\"CPUs\"");
  out += fmt::format(
      ",\n{{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":{},\"tid\":0,\"ts\":0,"
      "\"args\":{{\"sort_index\":-1}}}}",
      cpus_pid);
  std::set<pid_t> named{cpus_pid};
  for (const auto& track : tracks_) {
    if (track.kind != Kind::thread) continue;
    if (named.insert(track.pid).second) out += ",\n" + fmt::format(process_name, track.pid, track.comm);
    out += fmt::format(
        ",\n{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"ts\":0,"
        "\"args\":{{\"name\":{}}}}}",
        track.pid, track.id, track.name);
  }
  return out;
}

std::string TraceWriter::text() const {
  std::string out(trace_file.signature);
  out += ",";
  out += R"j("thread_counters":"on_cpu and waiting: seconds per second of the interval (1 = a whole CPU)",)j";
  out += R"j("cpu_counters":"utilization: busy / total time of the CPU (/proc/stat)",)j";
  out += fmt::format("\"truncated_at_us\":{}}},\n\"traceEvents\":[\n",
                     truncated_at_us_ ? std::to_string(*truncated_at_us_) : "null");
  out += metadata_text();
  for (const auto& event : events_) out += ",\n" + event_text(event);
  for (const auto& [key, track] : nonzero_) out += ",\n" + event_text({end_us_, key.first, track, 0, 0});
  out += "\n]}\n";
  return out;
}

}  // namespace mptrain::monitor
