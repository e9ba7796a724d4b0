// The `doctor --trace` file: the samples as a Chrome Trace Event Format
// document (the JSON Object Format) that Perfetto and chrome://tracing open.
//
// What it holds, `ts` in microseconds from the first sample, events sorted by `ts`:
//   per thread   a counter event ("ph":"C") named "<comm> <tid>" under its
//                process (`pid`, `tid`), args `on_cpu` and `waiting`: the
//                thread's time on a CPU and on a run queue as a fraction of
//                the interval (CPUs' worth: 1.0 is a whole CPU), at the
//                interval's start, so each track's area is its seconds;
//   per CPU      a counter event named "cpu N" under the synthetic process
//                "CPUs" (`pid` cpus_pid), arg `utilization`: busy ÷ total
//                time of that CPU in /proc/stat over the interval;
//   verdicts     an instant event ("ph":"i", "s":"g") named "verdict: V"
//                at the end of the first interval and of each interval
//                whose recent-window verdict differs from the one before,
//                args `verdict` and `previous` (null for the first);
//   names        metadata events ("ph":"M") process_name and thread_name.
// Memory stays bounded: a track gets an event only while its values are not
// all zero, plus one 0 when they drop to zero (a counter holds its last
// value) or the thread is gone, and one 0 at the end; a thread that neither
// ran nor waited costs nothing. At most `max_events` counter events are
// kept; later counters are dropped and `otherData.truncated_at_us` says from
// when.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "monitor/live.hpp"
#include "util/fs.hpp"

namespace mptrain::monitor {

// The `pid` of the synthetic "CPUs" process: above PID_MAX_LIMIT, so no real process has it.
inline constexpr pid_t cpus_pid = 4194304;
// The default bound on counter events (24 bytes each in memory, about 110 in the file).
inline constexpr std::size_t default_max_trace_events = 2'000'000;

// What a trace file is to util/fs.hpp's checks: what to call it, and the bytes it starts with.
inline constexpr FileKind trace_file{"an mptrain doctor trace",
                                     R"({"displayTimeUnit":"ms","otherData":{"tool":"mptrain doctor")"};

// Collects intervals (from MonitorOptions::on_interval) into a Chrome trace.
class TraceWriter {
 public:
  explicit TraceWriter(std::size_t max_events = default_max_trace_events) : max_events_(max_events) {}

  // Adds the counters and any verdict change of `interval`, which follows the one added before.
  void add(const IntervalEnd& interval);
  // The whole trace as JSON text, tracks still non-zero closed with a 0 at the last interval's end.
  std::string text() const;
  // The number of events held (counters and verdicts, not metadata nor the closing zeros).
  std::size_t size() const { return events_.size(); }
  // True when counter events were dropped because `max_events` was reached.
  bool truncated() const { return truncated_at_us_.has_value(); }

 private:
  enum class Kind : std::uint8_t { thread, cpu, verdict };
  // One counter track: a thread or a CPU, with its name already escaped for JSON.
  struct Track {
    Kind kind;
    pid_t pid;
    int id;  // the tid, or the CPU number
    std::string name;
    std::string comm;  // escaped; the process's name for a thread track
  };
  // One event; `track` indexes tracks_ (for a verdict: the Verdict, with the previous one in `b`).
  struct Event {
    std::int64_t ts_us;
    Kind kind;
    std::uint32_t track;
    float a, b;
  };

  using Key = std::pair<Kind, std::uint64_t>;  // (kind, pid << 32 | tid, or the CPU number)

  std::int64_t micros(double monotonic_s) const;
  bool has_room(const Evidence& evidence) const;
  void truncate(std::int64_t ts);
  void add_threads(const Evidence& evidence, std::int64_t ts, double seconds);
  void add_cpus(const Evidence& evidence, std::int64_t ts);
  void add_verdict(Verdict verdict, std::int64_t ts);
  void set(const Key& key, std::uint32_t track, std::int64_t ts, float a, float b);
  template <class Present>
  void zero_missing(Kind kind, std::int64_t ts, Present present);
  std::uint32_t track_of(const Key& key, Track track);
  std::string event_text(const Event& event) const;
  std::string metadata_text() const;

  std::size_t max_events_;
  std::optional<double> origin_s_;  // the first sample's monotonic time
  std::int64_t end_us_ = 0;         // the last interval's end
  std::optional<Verdict> verdict_;
  std::vector<Track> tracks_;
  std::map<Key, std::uint32_t> track_ids_;  // every track that got an event
  std::map<Key, std::uint32_t> nonzero_;    // the tracks whose last value was not 0
  std::vector<Event> events_;
  std::optional<std::int64_t> truncated_at_us_;
};

}  // namespace mptrain::monitor
