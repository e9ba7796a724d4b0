# Shared helpers for the corpus cases (tests/corpus/cases/*.bash), the runner
# (run.sh), the benchmark (bench/doctor_corpus.sh) and the doctor's e2e
# regression scripts. Source it; it sets:
#   CORPUS   this folder;            WORKLOADS  its workloads/ folder
#   N        usable CPUs (this process's affinity: what the doctor judges against)
#   PY       the system interpreter (/usr/bin/python3: Debian's numpy and torch)
#   BIN      where compiled workloads are cached (per user, per source change)
CORPUS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORKLOADS="$CORPUS/workloads"
N=$(nproc)
PY=/usr/bin/python3
BIN="${TMPDIR:-/tmp}/mptrain-corpus-$(id -u)"
# The pthreads build of Debian's OpenBLAS, chosen per process (the machine's
# BLAS alternatives stay as they are).
OPENBLAS_PTHREAD_DIR=/usr/lib/x86_64-linux-gnu/openblas-pthread

# why_not MESSAGE: prints why a case cannot run here and fails (requires() uses it).
why_not() { echo "$*"; return 1; }

# need_command NAME [PACKAGE]: succeeds when NAME is on PATH.
need_command() { command -v "$1" >/dev/null || why_not "needs $1 (apt-get install ${2:-$1})"; }

# need_python_module MODULE PACKAGE: succeeds when $PY imports MODULE.
need_python_module() {
  [[ -x "$PY" ]] || why_not "needs $PY"
  "$PY" -c "import $1" 2>/dev/null || why_not "needs Python module $1 in $PY (apt-get install $2)"
}

# compiled NAME: the path of workloads/NAME.c (or burn.cpp for "burn") built
# with -O2 (and -fopenmp for NAME omp_*), compiled on first use and whenever
# the source is newer.
compiled() {
  local name=$1 src out
  if [[ $name == burn ]]; then
    src="$CORPUS/../monitor/burn.cpp"
  else
    src="$WORKLOADS/$name.c"
  fi
  out="$BIN/$name"
  if [[ ! -x "$out" || "$src" -nt "$out" ]]; then
    mkdir -p "$BIN"
    # Compile to a temporary name and rename: a half-written binary never runs.
    if [[ $src == *.cpp ]]; then
      c++ -O2 -std=c++20 -pthread -o "$out.$$" "$src" >&2 || return 1
    else
      local openmp=()
      [[ $name != omp_* ]] || openmp=(-fopenmp)
      cc -O2 -pthread "${openmp[@]}" -o "$out.$$" "$src" >&2 || return 1
    fi
    mv -f "$out.$$" "$out"
  fi
  echo "$out"
}

# compiled_two_runtimes: the path of workloads/two_runtimes.c built with
# gcc -fopenmp (GNU OpenMP) and linked to workloads/llvm_chunks.c built as a
# library with clang -fopenmp (LLVM OpenMP), rebuilt whenever a source is newer.
compiled_two_runtimes() {
  local out="$BIN/two_runtimes" lib="$BIN/libllvm_chunks.so"
  if [[ ! -x "$out" || "$WORKLOADS/two_runtimes.c" -nt "$out" || "$WORKLOADS/llvm_chunks.c" -nt "$out" ]]; then
    mkdir -p "$BIN"
    clang -O2 -fopenmp -shared -fPIC -o "$lib.$$" "$WORKLOADS/llvm_chunks.c" >&2 || return 1
    mv -f "$lib.$$" "$lib"
    cc -O2 -pthread -fopenmp -o "$out.$$" "$WORKLOADS/two_runtimes.c" -L"$BIN" -lllvm_chunks -Wl,-rpath,"$BIN" >&2 ||
      return 1
    mv -f "$out.$$" "$out"
  fi
  echo "$out"
}

# busy_share SECONDS SCALE FORMAT: the share of all CPUs' time spent working
# over the next SECONDS (from /proc/stat), times SCALE, printed with the awk
# printf FORMAT.
busy_share() {
  local before after
  before=$(head -1 /proc/stat)
  sleep "$1"
  after=$(head -1 /proc/stat)
  # Fields after "cpu": user nice system idle iowait irq softirq steal
  # (guest and guest_nice, which follow, are counted in user and nice already).
  awk -v a="$before" -v b="$after" -v scale="$2" -v format="$3" 'BEGIN {
    split(a, x); split(b, y)
    for (i = 2; i <= 9; i++) total += y[i] - x[i]
    idle = (y[5] - x[5]) + (y[6] - x[6])
    printf format, (total > 0 ? scale * (total - idle) / total : 0) }'
}

# busy_cpus: how many CPUs' worth of time the machine spent working over
# the next second (as a decimal).
busy_cpus() { busy_share 1 "$(nproc --all)" "%.2f"; }

# last_cpu: the last CPU this process may use (where pinned load goes).
last_cpu() { taskset -c -p $$ | sed 's/.*: //; s/.*[,-]//'; }

# start_duty PERCENT CPU: starts a burner keeping CPU about PERCENT% busy
# (spinning that share of every 10 ms) until stop_duty; not under the doctor.
DUTY_PID=
start_duty() {
  local duty
  duty=$(compiled duty) || return 1
  taskset -c "$2" "$duty" "$1" 3600 &
  DUTY_PID=$!
  sleep 0.3  # let it settle into its cycle before anything is measured
}
stop_duty() {
  [[ -n "$DUTY_PID" ]] || return 0
  kill "$DUTY_PID" 2>/dev/null || true
  wait "$DUTY_PID" 2>/dev/null || true  # killed by SIGTERM: status 143
  DUTY_PID=
}

# machine_busy_percent: how busy all CPUs were over the next half second, in
# percent of the machine (from /proc/stat), for cases whose premise is a
# quiet machine.
machine_busy_percent() { busy_share 0.5 100 "%d"; }

# need_quiet_machine LIMIT: succeeds when the machine is under LIMIT% busy.
need_quiet_machine() {
  local busy
  busy=$(machine_busy_percent)
  ((busy < $1)) || why_not "the machine is not quiet (${busy}% busy, limit $1%): the case's premise does not hold"
}

# The throughput of a case's job, for the loss that oversubscription costs
# it (naive against fixed): a workload that measures its work prints, at
# its end, a line "corpus-work UNITS SECONDS" (the work its timed loop did
# and how long it took); stress-ng's own --metrics-brief line counts as one.
# job_throughput FILE: the job's units per second in FILE (the doctor's
# stderr, where it relays the command's output tagged "[0] "), summed over
# its processes; "-" when no workload reported.
job_throughput() {
  awk '
    { sub(/^\[[0-9]+\] /, ""); n_f = split($0, f, " ") }
    f[1] == "corpus-work" && f[3] > 0 { rate += f[2] / f[3]; n++ }
    f[1] == "stress-ng:" && f[2] == "metrc:" && f[4] == "cpu" && f[6] > 0 { rate += f[5] / f[6]; n++ }
    END { if (n) printf "%.6g", rate; else printf "-" }' "$1"
}

# timed_work UNITS CMD [ARGS...]: runs CMD (a job of a known amount of work,
# such as a build of UNITS files) and reports it as "corpus-work UNITS
# SECONDS"; fails as CMD fails.
timed_work() {
  local units=$1 start
  shift
  start=$(date +%s.%N)
  "$@" || return
  awk -v u="$units" -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "corpus-work %s %.6f\n", u, e - s }'
}
