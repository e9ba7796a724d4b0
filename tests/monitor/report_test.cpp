// The doctor's report and advice: CPU lists in the short form mptrain also reads.
#include "monitor/report.hpp"

#include <catch2/catch.hpp>

#include "monitor/advice.hpp"
#include "monitor/detector.hpp"

using namespace mptrain;
using namespace mptrain::monitor;

TEST_CASE("the doctor's text and JSON give the kernel's long CPU lists in the short form", "[monitor]") {
  Diagnosis d;
  d.capacity.usable_cpus = 32;
  d.capacity.usable_cpu_list = CpuSet::parse("0-62:2").value();
  ProcessSummary process;
  process.pid = 42;
  process.comm = "train";
  process.cpus_allowed = "0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32,34,36,38,40,42,44,46,48,50,52,54,56,58,60,62";
  d.processes.push_back(process);
  ThreadSummary thread;
  thread.pid = 42;
  thread.tid = 43;
  thread.comm = "train";
  thread.cpus_allowed = "1,3,5,7,9,11,13,15,17,19,21,23,25,27,29,31,33,35,37,39,41,43,45,47,49,51,53,55,57,59,61,63";
  d.threads.push_back(thread);
  const auto json = to_json(d);
  CHECK(json["usable_cpu_list"] == "0-62:2");
  CHECK(json["processes"][0]["cpus_allowed"] == "0-62:2");
  CHECK(threads_json(d)[0]["cpus_allowed"] == "1-63:2");
  CHECK(to_text(d).find("(0-62:2)") != std::string::npos);
  CHECK(to_text(d).find(" 0-62:2 ") != std::string::npos);
  CHECK(threads_table(d).find("1-63:2") != std::string::npos);
}

TEST_CASE("a child's inherited CPU is named against its worker's CPUs as people read them", "[monitor]") {
  Diagnosis diagnosis;
  ProcessSummary child;
  child.pid = 31;
  child.comm = "python3";
  child.cpus_allowed = CpuSet({2}).to_string();
  child.pool_threads = 1;
  diagnosis.processes.push_back(child);
  const std::vector<LaunchedWorker> workers = {{0, 30, CpuSet({0, 2, 4, 6})}};
  const auto warnings = inherited_binding_warnings(workers, diagnosis, Unplaced::left);
  REQUIRE(warnings.size() == 1);
  CHECK(
      warnings[0].starts_with("pid 31 (python3), started by rank 0, ran on CPU 2 only though rank 0 has CPUs 0,2,4,6"));
}

TEST_CASE("outside load on CPUs another mptrain run holds names that run, in the text and the JSON", "[monitor]") {
  Finding outside;
  outside.kind = FindingKind::outside_load;
  outside.message = "processes outside the watched set used 1.00 CPUs on the job's CPUs 0-1";
  outside.fix = "stop or move the other load";
  outside.cpus = CpuSet({0, 1});
  Finding other = outside;
  other.kind = FindingKind::queueing;
  std::vector<Finding> findings{outside, other};
  name_other_runs(findings, {{12, CpuSet({1}), "pid 12 (uid 0, CPUs 1, 1x1): python3 a.py"},
                             {13, CpuSet({4}), "pid 13 (uid 0, CPUs 4, 1x1): python3 b.py"}});
  REQUIRE(findings[0].other_runs == std::vector<std::string>{"pid 12 (uid 0, CPUs 1, 1x1): python3 a.py"});
  CHECK_THAT(findings[0].message, Catch::EndsWith("; other mptrain runs hold CPUs there: pid 12 (uid 0, CPUs 1, "
                                                  "1x1): python3 a.py"));
  CHECK_THAT(findings[0].fix, Catch::StartsWith("these are other mptrain runs"));
  CHECK(findings[1].other_runs.empty());  // only outside load is about other processes
  CHECK(findings[1].fix == "stop or move the other load");
  Diagnosis d;
  d.findings = findings;
  const auto json = to_json(d);
  CHECK(json["findings"][0]["other_runs"][0] == "pid 12 (uid 0, CPUs 1, 1x1): python3 a.py");
  CHECK_FALSE(json["findings"][1].contains("other_runs"));
}
