// The --trace writer on hand-written evidence: what Perfetto will read back.
#include "monitor/trace.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace mptrain;
using namespace mptrain::monitor;
using Json = nlohmann::json;

namespace {

constexpr double dt = 0.5;  // seconds per interval
constexpr double t0 = 100;  // the first sample's monotonic time

// A thread of process `pid` that spent `on` s on a CPU and `wait` s waiting in one interval.
ThreadEvidence thread(pid_t pid, pid_t tid, double on, double wait, std::string comm = "worker") {
  ThreadEvidence t;
  t.pid = pid;
  t.tid = tid;
  t.comm = std::move(comm);
  t.on_cpu_s = on;
  t.wait_s = wait;
  t.observed_s = dt;
  t.timeslices = on > 0 ? 10 : 0;
  return t;
}

// One interval's evidence: `threads`, and CPUs 0 and 1 busy `busy0` and `busy1` of the interval.
Evidence trace_interval(const std::vector<ThreadEvidence>& threads, double busy0 = 0.25, double busy1 = 0.5) {
  Evidence e;
  e.duration_s = dt;
  e.intervals = 1;
  for (const auto& t : threads) {
    e.threads[t.tid] = t;
    e.processes[t.pid].pid = t.pid;
    e.processes[t.pid].comm = "proc" + std::to_string(t.pid);
  }
  e.cpus[0] = CpuEvidence{busy0 * dt, dt, 0, 0};
  e.cpus[1] = CpuEvidence{busy1 * dt, dt, 0, 0};
  return e;
}

// Feeds `intervals` to a writer, one every dt from t0, with `verdicts` (healthy when missing).
TraceWriter feed(const std::vector<Evidence>& intervals, const std::vector<Verdict>& verdicts = {},
                 std::size_t max_events = default_max_trace_events) {
  TraceWriter writer(max_events);
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    const double start = t0 + static_cast<double>(k) * dt;
    writer.add(IntervalEnd{start, start + dt, intervals[k], k < verdicts.size() ? verdicts[k] : Verdict::healthy});
  }
  return writer;
}

Json parse(const TraceWriter& writer) { return Json::parse(writer.text()); }

// The counter events of the track named `name` (a thread's "<comm> <tid>" or "cpu N").
std::vector<Json> track(const Json& trace, const std::string& name) {
  std::vector<Json> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "C" && e["name"] == name) out.push_back(e);
  }
  return out;
}

std::vector<Json> events_of(const Json& trace, const std::string& ph) {
  std::vector<Json> out;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == ph) out.push_back(e);
  }
  return out;
}

constexpr double us = 1e6;

}  // namespace

TEST_CASE("trace: the document is the JSON Object Format with displayTimeUnit", "[trace]") {
  const auto trace = parse(feed({trace_interval({thread(10, 11, 0.5, 0)})}));
  CHECK(trace["displayTimeUnit"] == "ms");
  CHECK(trace["traceEvents"].is_array());
  CHECK(trace["otherData"]["truncated_at_us"].is_null());
}

TEST_CASE("trace: every event has ph, ts, pid and tid, and the events are sorted by ts", "[trace]") {
  const auto writer = feed({trace_interval({thread(10, 11, 0.5, 0), thread(10, 12, 0.2, 0.1)}),
                            trace_interval({thread(10, 11, 0.4, 0.1)}), trace_interval({thread(20, 21, 0.1, 0)})},
                           {Verdict::healthy, Verdict::warning, Verdict::healthy});
  const auto trace = parse(writer);
  double last = -1;
  for (const auto& e : trace["traceEvents"]) {
    INFO(e.dump());
    REQUIRE(e.contains("ph"));
    REQUIRE(e.contains("pid"));
    REQUIRE(e.contains("tid"));
    REQUIRE(e["ts"].is_number());
    CHECK(e["ts"].get<double>() >= last);
    last = e["ts"].get<double>();
  }
  CHECK(last == Approx(3 * dt * us));
}

TEST_CASE("trace: a thread's counters are its on-CPU and wait time as fractions of each interval", "[trace]") {
  const std::vector<Evidence> intervals{trace_interval({thread(10, 11, 0.5, 0)}),
                                        trace_interval({thread(10, 11, 0.3, 0.15)}),
                                        trace_interval({thread(10, 11, 0.05, 0.4)})};
  const auto events = track(parse(feed(intervals)), "worker 11");
  REQUIRE(events.size() == 4);  // three intervals and the closing 0
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    const auto& t = intervals[k].threads.at(11);
    CHECK(events[k]["pid"] == 10);
    CHECK(events[k]["tid"] == 11);
    CHECK(events[k]["ts"].get<double>() == Approx(static_cast<double>(k) * dt * us));
    CHECK(events[k]["args"]["on_cpu"].get<double>() == Approx(t.on_cpu_s / dt).margin(1e-5));
    CHECK(events[k]["args"]["waiting"].get<double>() == Approx(t.wait_s / dt).margin(1e-5));
  }
}

TEST_CASE("trace: the area under a thread's on_cpu track is its CPU seconds", "[trace]") {
  const auto events =
      track(parse(feed({trace_interval({thread(10, 11, 0.5, 0)}), trace_interval({thread(10, 11, 0.3, 0)}),
                        trace_interval({thread(10, 11, 0.2, 0)})})),
            "worker 11");
  double seconds = 0;
  for (std::size_t k = 0; k + 1 < events.size(); ++k) {
    seconds += events[k]["args"]["on_cpu"].get<double>() *
               (events[k + 1]["ts"].get<double>() - events[k]["ts"].get<double>()) / us;
  }
  CHECK(seconds == Approx(1.0).margin(1e-4));
  CHECK(events.back()["args"]["on_cpu"] == 0);
}

TEST_CASE("trace: a CPU's utilization is its busy time over its total time", "[trace]") {
  const auto trace = parse(feed({trace_interval({}, 0.25, 0.75), trace_interval({}, 1.0, 0.5)}));
  const auto cpu0 = track(trace, "cpu 0");
  const auto cpu1 = track(trace, "cpu 1");
  REQUIRE(cpu0.size() >= 2);
  REQUIRE(cpu1.size() >= 2);
  CHECK(cpu0[0]["args"]["utilization"].get<double>() == Approx(0.25));
  CHECK(cpu0[1]["args"]["utilization"].get<double>() == Approx(1.0));
  CHECK(cpu1[0]["args"]["utilization"].get<double>() == Approx(0.75));
  CHECK(cpu1[1]["args"]["utilization"].get<double>() == Approx(0.5));
  CHECK(cpu0[0]["pid"] == cpus_pid);
}

TEST_CASE("trace: an idle CPU still gets a track, with one 0", "[trace]") {
  const auto cpu0 =
      track(parse(feed({trace_interval({}, 0, 0.5), trace_interval({}, 0, 0.5), trace_interval({}, 0, 0.5)})), "cpu 0");
  REQUIRE(cpu0.size() == 1);
  CHECK(cpu0[0]["args"]["utilization"] == 0);
}

TEST_CASE("trace: a verdict change gives exactly one instant event", "[trace]") {
  const auto trace =
      parse(feed({trace_interval({}), trace_interval({}), trace_interval({}), trace_interval({})},
                 {Verdict::healthy, Verdict::healthy, Verdict::oversubscribed, Verdict::oversubscribed}));
  const auto instants = events_of(trace, "i");
  REQUIRE(instants.size() == 2);  // the first verdict, then the change
  CHECK(instants[0]["args"]["verdict"] == "healthy");
  CHECK(instants[0]["args"]["previous"].is_null());
  const auto& change = instants[1];
  CHECK(change["name"] == "verdict: oversubscribed");
  CHECK(change["s"] == "g");
  CHECK(change["args"]["verdict"] == "oversubscribed");
  CHECK(change["args"]["previous"] == "healthy");
  CHECK(change["ts"].get<double>() == Approx(3 * dt * us));  // the end of the interval that changed it
}

TEST_CASE("trace: a thread that stops running drops to 0 once and is then skipped", "[trace]") {
  const auto idle = thread(10, 11, 0, 0);
  const auto events =
      track(parse(feed({trace_interval({thread(10, 11, 0.4, 0.1)}), trace_interval({idle}), trace_interval({idle}),
                        trace_interval({idle}), trace_interval({thread(10, 11, 0.2, 0)})})),
            "worker 11");
  REQUIRE(events.size() == 4);  // ran, 0, ran again, closing 0
  CHECK(events[1]["ts"].get<double>() == Approx(dt * us));
  CHECK(events[1]["args"]["on_cpu"] == 0);
  CHECK(events[1]["args"]["waiting"] == 0);
  CHECK(events[2]["ts"].get<double>() == Approx(4 * dt * us));
}

TEST_CASE("trace: a thread that has gone drops to 0 once", "[trace]") {
  const auto events = track(
      parse(feed({trace_interval({thread(10, 11, 0.4, 0)}), trace_interval({}), trace_interval({})})), "worker 11");
  REQUIRE(events.size() == 2);
  CHECK(events[1]["ts"].get<double>() == Approx(dt * us));
  CHECK(events[1]["args"]["on_cpu"] == 0);
}

TEST_CASE("trace: a thread that never ran has no track and no name", "[trace]") {
  const auto trace = parse(feed({trace_interval({thread(10, 11, 0, 0), thread(10, 12, 0.1, 0)})}));
  CHECK(track(trace, "worker 11").empty());
  for (const auto& e : events_of(trace, "M")) CHECK(e["args"].value("name", std::string()) != "worker 11");
}

TEST_CASE("trace: a thread that only waited gets its counters", "[trace]") {
  const auto events = track(parse(feed({trace_interval({thread(10, 11, 0, 0.5)})})), "worker 11");
  REQUIRE(!events.empty());
  CHECK(events[0]["args"]["waiting"].get<double>() == Approx(1.0));
}

TEST_CASE("trace: metadata names threads \"<comm> <tid>\" under their process", "[trace]") {
  const auto trace =
      parse(feed({trace_interval({thread(10, 11, 0.4, 0, "omp_worker"), thread(20, 21, 0.1, 0, "main")})}));
  std::map<std::pair<int, int>, std::string> threads;
  std::map<int, std::string> processes;
  for (const auto& e : events_of(trace, "M")) {
    if (e["name"] == "thread_name") threads[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
  }
  CHECK(threads[{10, 11}] == "omp_worker 11");
  CHECK(threads[{20, 21}] == "main 21");
  CHECK(processes[10] == "proc10");
  CHECK(processes[20] == "proc20");
  CHECK(processes[cpus_pid] == "CPUs");
  CHECK(track(trace, "omp_worker 11").size() == 2);
}

TEST_CASE("trace: a name with quotes and bytes that are not UTF-8 stays valid JSON", "[trace]") {
  const auto trace = parse(feed({trace_interval({thread(10, 11, 0.4, 0, "a\"b\\c\xff")})}));
  CHECK(track(trace, "a\"b\\c\xef\xbf\xbd 11").size() == 2);
}

TEST_CASE("trace: counters stop at max_events, closed with 0, and the trace says from when", "[trace]") {
  std::vector<Evidence> intervals(10, trace_interval({thread(10, 11, 0.4, 0), thread(10, 12, 0.4, 0)}));
  const auto writer = feed(intervals, {}, 20);
  CHECK(writer.truncated());
  CHECK(writer.size() <= 20);
  const auto trace = parse(writer);
  const auto at = trace["otherData"]["truncated_at_us"].get<double>();
  const auto events = track(trace, "worker 11");
  REQUIRE(!events.empty());
  CHECK(events.back()["ts"].get<double>() == Approx(at));
  CHECK(events.back()["args"]["on_cpu"] == 0);
  CHECK(events_of(trace, "i").size() == 1);
}
