# Two more real runtimes, each sized from outside mptrain's plan: a Rust
# program on rayon's global pool (librust-rayon-dev, built offline with
# cargo from Debian's crate registry: RAYON_NUM_THREADS, else the CPUs Rust's
# available_parallelism sees) and a C program whose BLAS is BLIS
# (libblis4-pthread: BLIS_NUM_THREADS, or the program's own
# bli_thread_set_num_threads). A container image that exports a pool size
# for the whole machine is the common way such pools come out too large.
#   - Under -n 2 pinning: each worker's pool is one thread, the variable the
#     user exported replaced, the program's own BLIS call capped.
#   - In a cgroup with a 1-CPU quota (no pinning: bind none): the same, the
#     call capped to the plan's one thread although the worker spans every
#     CPU, and the monitor finds no pool too large for the quota.
#   - Bare in that cgroup under the doctor: the pools are as large as the
#     variables say, and the doctor names the runtime and its variable.
# ctest: timeout 240
# ctest: lock quiet_cpus (it judges the scheduling of its own load)
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
command -v cargo >/dev/null || fail "cargo is needed (scripts/setup.sh --test installs cargo and librust-rayon-dev)"
registry=/usr/share/cargo/registry
compgen -G "$registry/rayon-1.*" >/dev/null ||
  fail "rayon's sources are needed in $registry (scripts/setup.sh --test installs librust-rayon-dev)"
blis=/usr/lib/x86_64-linux-gnu/blis-pthread/libblis.so.4
[[ -f $blis ]] || fail "$blis is needed (scripts/setup.sh --test installs libblis4-pthread)"
n=$("$MPTRAIN" topo --json | jq -r .usable_cpus)

# The programs, built in $WORK: rayon offline against Debian's registry, BLIS linked by its path.
cp -r "$PROGRAMS/rayon_pool" "$WORK/"
mkdir -p "$WORK/rayon_pool/.cargo"
cat >"$WORK/rayon_pool/.cargo/config.toml" <<EOF
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$registry"
[net]
offline = true
EOF
(cd "$WORK/rayon_pool" && CARGO_HOME=$WORK/cargo cargo build --release --quiet) >"$WORK/cargo.log" 2>&1 ||
  { cat "$WORK/cargo.log" >&2; fail "cannot build the rayon program offline"; }
rayon=$WORK/rayon_pool/target/release/rayon_pool
gcc -O2 -I"$PROGRAMS" "$PROGRAMS/blis_pool.c" "$blis" -Wl,-rpath,"$(dirname "$blis")" -lpthread -o "$WORK/blis_pool" ||
  fail "cannot build blis_pool.c"
blis_pool=$WORK/blis_pool

# expect_lines FILE PATTERN COUNT WHAT: FILE has COUNT lines matching PATTERN, else fails saying WHAT.
expect_lines() {
  (($(grep -cE "$2" "$1") == $3)) || { cat "$WORK/out" "$WORK/err" >&2; fail "$4"; }
}

# -n 2: each worker pinned to its own CPU; the user's machine-wide RAYON_NUM_THREADS and
# BLIS_NUM_THREADS are replaced with the plan's one thread, the program's own BLIS call capped.
RAYON_NUM_THREADS=$n run_mptrain run -n 2 -- "$rayon" 0
expect_code 0
expect_lines "$WORK/out" '^\[[01]\] rayon_threads 1$' 2 "rayon's pools under -n 2 are not 1 each"
expect_stderr "RAYON_NUM_THREADS=$n is set; the workers get RAYON_NUM_THREADS=1"
BLIS_NUM_THREADS=$n run_mptrain run -n 2 -- "$blis_pool" 0.3
expect_code 0
expect_lines "$WORK/out" '^\[[01]\] blis_threads 1$' 2 "BLIS's pools under -n 2 are not 1 each"
expect_lines "$WORK/out" '^\[[01]\] blis_running 1$' 2 "BLIS ran more than one thread in a worker under -n 2"
run_mptrain run -n 2 -- "$blis_pool" 0.3 self
expect_code 0
expect_lines "$WORK/out" '^\[[01]\] blis_threads 1$' 2 "the program's own BLIS calls under -n 2 were not capped to 1"
expect_stderr "asked for $n threads \(bli_thread_set_num_threads\) in a worker of 1 CPU: capped to 1"

# A cgroup with a 1-CPU quota.
quota_cgroup "mptrain-rayon-blis-$$"

# Under mptrain: one thread each, the program's own call capped to the plan although the worker spans
# every CPU, and no pool too large for the quota (judged in the Release tree only: a sanitizer
# build's own sampling shares the quota; load from other tests may earn a warning of its own).
judge_fit() { sanitizer_build || expect_json "$fits"; }
fits='([.monitor.findings[] | select(.severity != "info") | .kind] - ["outside_load", "queueing"] | length == 0) and ([.monitor.findings[].kind] | index("cgroup_throttling") == null and index("thread_pool_too_large") == null)'
RAYON_NUM_THREADS=$n in_quota "$MPTRAIN" run --json -- "$rayon" 2
expect_code 0
expect_json '.plan.bind == "none" and .plan.threads_per_process == 1'
expect_lines "$WORK/err" '^\[0\] rayon_threads 1$' 1 "rayon's pool in a 1-CPU quota under mptrain is not 1"
judge_fit
in_quota "$MPTRAIN" run --json -- "$blis_pool" 2 self
expect_code 0
expect_lines "$WORK/err" '^\[0\] blis_threads 1$' 1 "the program's own BLIS call in a 1-CPU quota was not capped to 1"
expect_lines "$WORK/err" '^\[0\] blis_running 1$' 1 "BLIS ran more than one thread in a 1-CPU quota under mptrain"
expect_lines "$WORK/err" "asked for $n threads \(bli_thread_set_num_threads\) in a worker planned for 1 thread on $n CPUs: capped to 1" 1 \
  "the cap in a 1-CPU quota is not said with the plan's thread"
expect_json '.pools[0].asked == '"$n"' and .pools[0].got == 1 and .pools[0].call == "bli_thread_set_num_threads"'
judge_fit

# Bare under the doctor, with the machine-wide sizes a container image exports: pools of every CPU
# against the quota's one; the fixes name the runtime's variable, and the processes their runtime.
RAYON_NUM_THREADS=$n in_quota "$MPTRAIN" doctor --json --fail-on never -- "$rayon" 2
expect_code 0
expect_lines "$WORK/err" "^(\\[0\\] )?rayon_threads $n\$" 1 "bare rayon did not start $n threads"
expect_json '[.findings[].fix] | any(contains("RAYON_NUM_THREADS=1"))'
expect_json '[.processes[] | select(.comm == "rayon_pool")][0].runtimes | any(.name == "Rust rayon" and .knob == "RAYON_NUM_THREADS")'
# BLIS starts its threads inside each call and joins them before it returns: threads that may come
# and go between two samples, counted from the process's own CPU time.
BLIS_NUM_THREADS=$n in_quota "$MPTRAIN" doctor --json --fail-on never -- "$blis_pool" 2
expect_code 0
expect_lines "$WORK/err" "^(\\[0\\] )?blis_running $n\$" 1 "bare BLIS did not run $n threads"
expect_json '[.findings[].fix] | any(contains("BLIS_NUM_THREADS=1"))'
expect_json '[.processes[] | select(.comm == "blis_pool")][0] | .pool_threads == '"$n"' and (.runtimes | any(.name == "BLIS" and .knob == "BLIS_NUM_THREADS"))'
expect_json '[.processes[].runtimes[] | select(.name == "Rust rayon")] | length == 0' # a C program is no Rust one
exit 0
