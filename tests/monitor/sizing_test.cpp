// The fixes for pools too large (monitor/sizing.hpp): a pool the program
// sized itself names its own call; inside `mptrain run` a fix never names
// the launch already running.
#include "monitor/sizing.hpp"

#include <catch2/catch.hpp>
#include <string>

#include "monitor/procfs.hpp"

namespace mptrain::monitor {
namespace {

// Process `pid` of parent `ppid` running `cmdline`, mapping `kind`, with OMP_NUM_THREADS=`omp` (0: unset).
ProcessEvidence sized_process(pid_t pid, pid_t ppid, const std::string& cmdline, RuntimeKind kind, int omp) {
  ProcessEvidence p;
  p.pid = pid;
  p.ppid = ppid;
  p.cmdline = cmdline;
  p.runtimes.push_back(Runtime{kind, "lib"});
  if (omp > 0) p.env.counts[0] = omp;  // thread_count_variables[0] is OMP_NUM_THREADS
  return p;
}

// Two workers forked by `python3 train.py` (pid 10), each with a pool of `pool` and OMP_NUM_THREADS=`omp`.
struct Forked {
  std::map<pid_t, ProcessEvidence> all;
  std::vector<const ProcessEvidence*> workers;
  std::map<pid_t, int> pools;
  Forked(RuntimeKind kind, int pool, int omp) {
    all[10] = sized_process(10, 1, "python3 train.py", kind, omp);
    all[11] = sized_process(11, 10, "python3 train.py", kind, omp);
    all[12] = sized_process(12, 10, "python3 train.py", kind, omp);
    workers = {&all.at(11), &all.at(12)};
    pools = {{11, pool}, {12, pool}};
  }
};

}  // namespace

TEST_CASE("a pool larger than its variables says was sized by the program: its call is named", "[monitor]") {
  const Forked torch(RuntimeKind::pytorch, 2, 1);
  CHECK(program_sizing_call(torch.all.at(11), 2) == "torch.set_num_threads");
  CHECK(program_sizing_call(torch.all.at(11), 1).empty());
  const Forked gomp(RuntimeKind::gnu_openmp, 4, 2);
  CHECK(program_sizing_call(gomp.all.at(11), 4) == "omp_set_num_threads");
  const Forked blas(RuntimeKind::openblas_pthreads, 2, 0);
  CHECK(program_sizing_call(blas.all.at(11), 2).empty());  // no variable says anything: nothing to compare with
}

TEST_CASE("the fix for a program's own call names the line to change, and mptrain's cap", "[monitor]") {
  const Forked torch(RuntimeKind::pytorch, 2, 1);
  const auto bare = sizing_fix(torch.workers, 2, torch.all, torch.pools);
  CHECK(bare.find("torch.set_num_threads(1)") != std::string::npos);
  CHECK(bare.find("start it with `mptrain run`, which caps") != std::string::npos);
  const auto kept = sizing_fix(torch.workers, 2, torch.all, torch.pools, Launch{true, 1, 2, true});
  CHECK(kept.find("without --keep-program-threads") != std::string::npos);
  CHECK(kept.find("--children") == std::string::npos);
}

TEST_CASE("inside mptrain run, the fix never proposes the launch already running", "[monitor]") {
  const Forked gomp(RuntimeKind::gnu_openmp, 2, 2);  // the variables account for the pools
  const auto bare = sizing_fix(gomp.workers, 2, gomp.all, gomp.pools);
  CHECK(bare.find("mptrain run -n 1 --children 2 -- python3 train.py") != std::string::npos);
  // The launch leads: the variable does nothing for a pool the program sizes itself.
  CHECK(bare.starts_with("start it with `mptrain run -n 1 --children 2 -- python3 train.py`"));
  CHECK(bare.find("or run it with 1 thread: `OMP_NUM_THREADS=1") != std::string::npos);
  const auto running = sizing_fix(gomp.workers, 2, gomp.all, gomp.pools, Launch{true, 1, 2, false});
  CHECK(running.find("mptrain run") == std::string::npos);
  CHECK(running.find("OMP_NUM_THREADS=1") != std::string::npos);
  const auto other = sizing_fix(gomp.workers, 2, gomp.all, gomp.pools, Launch{true, 1, 3, false});
  CHECK(other.find("--children 2") != std::string::npos);  // a different K moves forward
}

TEST_CASE("a process title written over argv is no command: the fix names the program that was started", "[monitor]") {
  CHECK(retitled("'stress-ng-cpu [run]'"));
  CHECK(retitled("'postgres: writer process'"));
  CHECK_FALSE(retitled("stress-ng --cpu 2"));
  CHECK_FALSE(retitled("python3 'my script.py'"));
  // stress-ng's workers retitle themselves; their parent is the command the user started.
  std::map<pid_t, ProcessEvidence> all;
  all[10] = sized_process(10, 1, "stress-ng --cpu 2", RuntimeKind::gnu_openmp, 2);
  all[11] = sized_process(11, 10, "'stress-ng-cpu [run]'", RuntimeKind::gnu_openmp, 2);
  all[12] = sized_process(12, 10, "'stress-ng-cpu [run]'", RuntimeKind::gnu_openmp, 2);
  const std::vector<const ProcessEvidence*> workers{&all.at(11), &all.at(12)};
  const auto fix = sizing_fix(workers, 2, all, {{11, 2}, {12, 2}});
  CHECK(fix.find("stress-ng-cpu") == std::string::npos);
  CHECK(fix.find("mptrain run -n 1 --children 2 -- stress-ng --cpu 2") != std::string::npos);
  // Watched alone (--pid of the workers), their parent seen only through them: its command all the same.
  std::map<pid_t, ProcessEvidence> alone{{11, all.at(11)}, {12, all.at(12)}};
  alone[11].parent_cmdline = alone[12].parent_cmdline = "stress-ng --cpu 2";
  const auto seen = sizing_fix({&alone.at(11), &alone.at(12)}, 2, alone, {{11, 2}, {12, 2}});
  CHECK(seen.find("stress-ng-cpu") == std::string::npos);
}

}  // namespace mptrain::monitor

namespace mptrain::monitor {

TEST_CASE("a process's environment says which mptrain run started it, so the doctor does not advise it again",
          "[monitor]") {
  using namespace std::string_literals;
  const auto env = parse_thread_env(
      "OMP_NUM_THREADS=1\0MPTRAIN_CPUS=0-1\0LOCAL_WORLD_SIZE=1\0"
      "MPTRAIN_PLACE_SLICES=0;1\0MPTRAIN_PLACE_KEEP=1\0"s);
  CHECK(env.mptrain_launched);
  CHECK(env.mptrain_workers == 1);
  CHECK(env.mptrain_children == 2);
  CHECK(env.mptrain_keep);
  const auto bare = parse_thread_env("OMP_NUM_THREADS=4\0"s);
  CHECK_FALSE(bare.mptrain_launched);
  CHECK(bare.mptrain_children == 0);
}

}  // namespace mptrain::monitor
