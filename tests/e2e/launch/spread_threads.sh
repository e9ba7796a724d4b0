# Every thread placed (SPEC "Process trees"): the busy threads of a pool
# that reads no OMP_PLACES — a C program's pthreads, the pthreads build of
# OpenBLAS under numpy — get a CPU each of the worker's set while a thread
# that sleeps keeps the whole set; more busy threads than CPUs float; a
# thread the program bound itself stays there, with a warning;
# --spread-threads off leaves them all floating.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
use_program thread_pool thread_pool
plan=$("$MPTRAIN" plan -n 1 --json)
set_cpus=$(jq -r '.workers[0].cpus' <<<"$plan")
threads=$(jq -r '.threads_per_process' <<<"$plan")

# allowed WHAT: the allowed list the program printed for WHAT ("busy 0", "sleeper").
allowed() { sed -n "s/^\[0\] $1 \([0-9][-0-9,]*\)$/\1/p" "$WORK/out"; }
# one_cpu LIST: true when LIST is a single CPU of the worker's set.
one_cpu() { [[ $1 =~ ^[0-9]+$ ]] && cpu_in_set "$1"; }
cpu_in_set() {
  tr ',' '\n' <<<"$set_cpus" | awk -F- -v c="$1" '{ last = NF > 1 ? $2 : $1; if (c >= $1 && c <= last) found = 1 } END { exit !found }'
}

# As many busy threads as the worker has CPUs: one CPU each, all different.
run_mptrain run -n 1 -- "$WORK/thread_pool" "$threads" 3
expect_code 0
declare -A seen=()
for ((i = 0; i < threads; i++)); do
  cpu=$(allowed "busy $i")
  one_cpu "$cpu" || { cat "$WORK/out" "$WORK/err" >&2; fail "busy thread $i may run on '$cpu', not one CPU of the worker's $set_cpus"; }
  [[ -z ${seen[$cpu]:-} ]] || fail "busy threads ${seen[$cpu]} and $i share CPU $cpu"
  seen[$cpu]=$i
done
[[ $(allowed sleeper) == "$set_cpus" ]] || fail "the sleeping thread got '$(allowed sleeper)', not the worker's CPUs $set_cpus"
expect_stderr "gave $threads busy threads that no runtime placed a PU of its own"
run_mptrain run -n 1 --json -- "$WORK/thread_pool" "$threads" 2
expect_code 0
expect_json ".spread_threads == $threads"

# One busy thread more than CPUs: none is pinned, the monitor reports them (independent threads of
# one process: a warning at least, oversubscribed only when the loss range's low end says so).
run_mptrain run -n 1 -- "$WORK/thread_pool" "$((threads + 1))" 3
expect_code 0
for ((i = 0; i <= threads; i++)); do
  [[ $(allowed "busy $i") == "$set_cpus" ]] || { cat "$WORK/out" >&2; fail "with more busy threads than CPUs, busy thread $i was pinned"; }
done
expect_stderr "monitor verdict: (warning|oversubscribed)"
expect_stderr "thread_pool_too_large: 1 process . $((threads + 1)) pool threads"

# The program binds one thread itself: it stays there, with a warning, and
# the pool's threads get the other CPUs.
run_mptrain run -n 1 -- "$WORK/thread_pool" "$((threads - 1))" 3 own
expect_code 0
chosen=$(allowed "own chose")
[[ $(allowed own) == "$chosen" ]] || { cat "$WORK/out" >&2; fail "the thread the program bound to $chosen was moved to '$(allowed own)'"; }
expect_stderr "set a CPU affinity of its own; mptrain leaves it"
for ((i = 0; i < threads - 1; i++)); do
  cpu=$(allowed "busy $i")
  one_cpu "$cpu" && [[ $cpu != "$chosen" ]] || fail "busy thread $i got '$cpu' beside the program's own CPU $chosen"
done

# --spread-threads off: the pool floats over the worker's CPUs.
run_mptrain run -n 1 --spread-threads off -- "$WORK/thread_pool" "$threads" 2
expect_code 0
[[ $(allowed "busy 0") == "$set_cpus" ]] || fail "--spread-threads off pinned a thread to '$(allowed "busy 0")'"
run_mptrain run -n 1 --spread-threads sometimes -- /bin/true
expect_usage_error "--spread-threads"

# numpy on Debian's pthreads OpenBLAS: its threads (the main one included) one CPU each.
blas=/usr/lib/x86_64-linux-gnu/openblas-pthread
[[ -e $blas/libblas.so.3 ]] || fail "libopenblas0-pthread is needed (scripts/setup.sh installs it)"
/usr/bin/python3 -c 'import numpy' || fail "python3-numpy is needed (scripts/setup.sh installs it)"
cat >"$WORK/blas.py" <<'PY'
import os, sys, time
import numpy as np
a = np.random.default_rng(1).random((512, 512))
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    a = (a @ a.T) * (1.0 / 512)
tick = os.sysconf("SC_CLK_TCK")
rows = []
for tid in os.listdir("/proc/self/task"):
    fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
    allowed = [l.split()[1] for l in open(f"/proc/self/task/{tid}/status") if l.startswith("Cpus_allowed_list")][0]
    rows.append(((int(fields[11]) + int(fields[12])) / tick, tid, allowed))
for cpu_s, tid, allowed in sorted(rows, reverse=True):
    print("blas", tid, f"{cpu_s:.2f}", allowed)
PY
LD_LIBRARY_PATH=$blas run_mptrain run -n 1 -- /usr/bin/python3 "$WORK/blas.py" 3
expect_code 0
# The T threads that ran the most (the pool: main thread and BLAS threads).
busiest=$(sed -n 's/^\[0\] blas //p' "$WORK/out" | head -n "$threads")
[[ $(wc -l <<<"$busiest") == "$threads" ]] || { cat "$WORK/out" >&2; fail "fewer than T = $threads threads in the BLAS program"; }
distinct=$(awk '$3 ~ /^[0-9]+$/ {print $3}' <<<"$busiest" | sort -u | wc -l)
[[ $distinct == "$threads" ]] || { cat "$WORK/out" >&2; fail "the $threads busiest BLAS threads are not on $threads CPUs of their own"; }

# A program busy on one thread before its BLAS loads (an import that takes
# a while): the spreader leaves a lone thread floating, so OpenBLAS, which
# caps its pool at the CPUs of the thread that loads it, still gets T.
cat >"$WORK/late_blas.py" <<'PY'
import ctypes, time
end = time.monotonic() + 1.5
while time.monotonic() < end:
    pass
import numpy
paths = {l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.split()[-1] and ".so" in l.split()[-1]}
print("late blas", ctypes.CDLL(sorted(paths)[0]).openblas_get_num_threads())
PY
LD_LIBRARY_PATH=$blas run_mptrain run -n 1 -- /usr/bin/python3 "$WORK/late_blas.py"
expect_code 0
late=$(sed -n 's/^\[0\] late blas //p' "$WORK/out")
[[ $late == "$threads" ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "OpenBLAS loaded after 1.5 s of work runs '$late' threads, not T = $threads"; }
echo "PASS"
