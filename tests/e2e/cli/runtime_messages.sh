# Messages that say what happened and what to do (issue 20, class 13, the
# rows of docs/message_audit.md fixed on branch msgb): where a node count
# came from, --resume/--save-model/--trace/--log-dir named with the part of
# the path at fault, fixes for --children/--reserve that work, what became
# of the other workers, escaped program names, and runtime limits (memory,
# open files, cgroups, NUMA) named with what to do.
# ctest: timeout 240
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../train/fixtures.bash"
make_small_data
train=(run -n 1 -t 1 --data "$WORK/data" --model logreg --train-limit 64)
usable=$(jq -r .usable_cpus <("$MPTRAIN" topo --json))

# nobody ARGS...: runs mptrain as user nobody (stdout, stderr and code as run_mptrain).
nobody() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$MPTRAIN" "$@" >"$WORK/out" 2>"$WORK/err"
  code=$?
}
can_be_nobody=0
if [[ $(id -u) == 0 ]] && setpriv --reuid=nobody --regid=nogroup --clear-groups "$MPTRAIN" --version >/dev/null 2>&1; then
  can_be_nobody=1
  chmod 755 "$WORK"  # mktemp made it 0700: nobody must reach the files it is given
fi

# Row 12: the node count's real source, not --nnodes.
PET_NNODES=2 PET_NODE_RANK=1 run_mptrain run
expect_usage_error "this mptrain learned of 2 nodes from PET_NNODES=2 \(a Kubernetes PyTorchJob\), which starts no MPI; .*start one mptrain per node with mpirun"
SLURM_STEP_ID=0 SLURM_PROCID=1 SLURM_NTASKS=2 run_mptrain run
expect_usage_error "learned of 2 nodes from Slurm's srun \(SLURM_NTASKS=2\), which starts no MPI"
run_mptrain run --nnodes 3 --node-rank 1
expect_usage_error "learned of 3 nodes from --nnodes 3, which starts no MPI; .*mpirun -n 3 mptrain run"
PET_NNODES=2 PET_NODE_RANK=1 run_mptrain run
! grep -q -- "--nnodes" "$WORK/err" || fail "a PyTorchJob's node count is blamed on --nnodes: $(cat "$WORK/err")"

# Rows 14, 15: --resume named, what it is, what to give instead; the magic before the size.
run_mptrain "${train[@]}" --resume "$WORK/none.ckpt"
expect_code 1
expect_stderr "^mptrain: error: --resume: cannot open $WORK/none.ckpt: No such file or directory; give the path of a checkpoint written by --save-model$"
run_mptrain "${train[@]}" --resume /etc/passwd
expect_code 1
expect_stderr "^mptrain: error: --resume: /etc/passwd: not an mptrain checkpoint \(it does not start with MPTRCKPT\); give a file written by --save-model$"
run_mptrain "${train[@]}" --resume "$WORK"
expect_code 1
expect_stderr "^mptrain: error: --resume: $WORK is a directory, not a regular file; give a checkpoint file written by --save-model$"
head -c 2000000 /dev/urandom >"$WORK/program"
run_mptrain "${train[@]}" --resume "$WORK/program"
expect_code 1
expect_stderr "program: not an mptrain checkpoint \(it does not start with MPTRCKPT\)"
! grep -q "larger than\|may hold" "$WORK/err" || fail "a large file of another kind is called too large: $(cat "$WORK/err")"
if [[ $can_be_nobody == 1 ]]; then
  install -m 600 /etc/passwd "$WORK/private.ckpt"
  nobody "${train[@]}" --resume "$WORK/private.ckpt"
  expect_code 1
  expect_stderr "^mptrain: error: --resume: cannot open $WORK/private.ckpt: Permission denied; give a checkpoint you may read$"
fi

# Row 17: a program's own name is escaped in the doctor's tables.
ln -s "$(command -v sh)" "$WORK/"$'\e[31mRED'
run_mptrain doctor --interval 100ms --threads -- "$WORK/"$'\e[31mRED' -c 'end=$(($(date +%s) + 1)); while [ "$(date +%s)" -le $end ]; do :; done'

expect_code 0
LC_ALL=C grep -q $'\e' "$WORK/out" && fail "an escape byte of a program's name reached the report: $(cat -v "$WORK/out")"
grep -q '\\x1b\[31mRED' "$WORK/out" || fail "the escaped name is not shown: $(cat "$WORK/out")"

# Row 19: --children, with fixes that work (-t only where N has room, else fewer workers).
run_mptrain run -n 1 --children $((usable + 1)) -- true
expect_usage_error "--children $((usable + 1)): each worker has $usable CPUs? \($usable usable CPUs?, 1 worker\) and each working child needs one of its own; use --children $usable or fewer, or --allow-oversubscribe$"
if ((usable >= 2)); then
  run_mptrain run -n 2 --children 2 -- true
  expect_usage_error "--children 2: each worker has .* use --children [0-9]+ or fewer, fewer workers \(-n 1\) so that each gets [0-9]+ CPUs, or --allow-oversubscribe$"
  run_mptrain run -n 1 -t 1 --children 2 -- true
  expect_usage_error "use --children 1 or fewer, -t 2 \(the usable CPUs leave room for it\), or --allow-oversubscribe$"
fi

# Row 20: --reserve, with fixes that work.
synthetic=(--topology-synthetic "package:1 core:2 pu:1")
run_mptrain plan -n 2 --reserve 1 "${synthetic[@]}"
expect_usage_error "--reserve 1 leaves no compute thread of each worker's 1 PU; use -n 1 \(2 PUs per worker\), or leave out --reserve$"
run_mptrain plan -n 1 --reserve 5 "${synthetic[@]}"
expect_usage_error "--reserve 5 leaves no compute thread of each worker's 2 PUs; use --reserve 1 or less, or leave out --reserve$"
run_mptrain plan -n 2 -t 1 --reserve 1 --topology-synthetic "package:1 core:4 pu:1"
expect_usage_error "use -t 2, or leave out --reserve$"
! grep -q "raise -t" "$WORK/err" || fail "still advises raising -t"

# Row 21: what became of the other workers.
if ((usable >= 2)); then
  run_mptrain run -n 2 -- sh -c 'exit 3'
  expect_code 3
    # Both end by themselves, unless the first one's exit is seen before the other ran at all
  # (a loaded machine): then that one was stopped, and is said to be.
  expect_stderr "^mptrain: error: rank [01] \(pid [0-9]+\) exited with code 3; rank [01] ((had )?exited with code 3 too|was stopped)$"
  if grep -q "was stopped" "$WORK/err"; then grep -Eq "killed by SIGTERM" "$WORK/err" || fail "called stopped though it ended by itself: $(cat "$WORK/err")"; fi
  run_mptrain run -n 2 -- sh -c '[ "$RANK" = 1 ] && exit 4; exec sleep 30'
  expect_code 4
  expect_stderr "^mptrain: error: rank 1 \(pid [0-9]+\) exited with code 4; rank 0 was stopped$"
  run_mptrain run -n 2 -- sh -c '[ "$RANK" = 1 ] && { sleep 1; exit 4; }; exit 0'
  expect_code 4
  expect_stderr "^mptrain: error: rank 1 \(pid [0-9]+\) exited with code 4; rank 0 had finished$"
fi

# Rows 22, 23: --save-model and --trace name the option and the part of the path at fault; exit 1.
run_mptrain "${train[@]}" --save-model /etc/passwd/x
expect_code 1
expect_stderr "^mptrain: error: --save-model /etc/passwd/x: /etc/passwd is a regular file, not a directory; give a path in an existing directory$"
run_mptrain "${train[@]}" --save-model "$WORK/none/deeper/x.ckpt"
expect_code 1
expect_stderr "^mptrain: error: --save-model $WORK/none/deeper/x.ckpt: directory $WORK/none does not exist; create it or give another path$"
run_mptrain doctor --trace /etc/passwd/x.json --duration 0.2
expect_code 1
expect_stderr "^mptrain: error: --trace /etc/passwd/x.json: /etc/passwd is a regular file, not a directory"
run_mptrain "${train[@]}" --save-model /proc/x.ckpt
expect_code 1
expect_stderr "^mptrain: error: --save-model /proc/x.ckpt: cannot create files in /proc \(mptrain writes a temporary file there first, then renames it\): .*; choose a directory you can write to$"
if [[ $can_be_nobody == 1 ]]; then
  mkdir -m 755 "$WORK/roots"
  nobody "${train[@]}" --save-model "$WORK/roots/x.ckpt"
  expect_code 1
  expect_stderr "^mptrain: error: --save-model $WORK/roots/x.ckpt: cannot create files in $WORK/roots: Permission denied; choose a directory you can write to$"
  mkdir -m 700 "$WORK/closed"
  nobody "${train[@]}" --save-model "$WORK/closed/sub/x.ckpt"
  expect_code 1
  expect_stderr "^mptrain: error: --save-model $WORK/closed/sub/x.ckpt: cannot reach directory $WORK/closed/sub: Permission denied"
fi

# Row 39: --log-dir under a file names that file.
run_mptrain run --log-dir /etc/passwd/x -- true
expect_code 1
expect_stderr "^mptrain: error: --log-dir /etc/passwd/x: /etc/passwd is a regular file, not a directory; give another path$"

# Row 33: MPTRAIN_RUN_CGROUP=v1/v2 that cannot be made is said, not dropped.
if [[ $can_be_nobody == 1 ]]; then
  for choice in v1 v2; do
    MPTRAIN_RUN_CGROUP=$choice nobody run -n 1 -- true
    expect_code 0
    expect_stderr "^mptrain: warning: MPTRAIN_RUN_CGROUP=$choice: cannot make a cgroup for this run \(.*\); it runs without one, so processes that call setsid may outlive it"
  done
  MPTRAIN_RUN_CGROUP=auto nobody run -n 1 -- true
  expect_code 0
  ! grep -q "MPTRAIN_RUN_CGROUP" "$WORK/err" || fail "auto warns: $(cat "$WORK/err")"
fi

# Row 34: --data that cannot be read is not "no such directory".
if [[ $can_be_nobody == 1 ]]; then
  mkdir -m 700 "$WORK/private"
  cp -r "$WORK/data" "$WORK/private/data"
  nobody run -n 1 -t 1 --data "$WORK/private/data" --model logreg
  expect_code 1
  expect_stderr "^mptrain: error: --data $WORK/private/data: cannot read it: Permission denied; give a directory you can read$"
fi

# Row 35: shared memory that cannot be had: how much, for what, what to do.
mkdir "$WORK/big"
{ printf "\\x00\\x00\\x08\\x03$(be32 100000)$(be32 28)$(be32 28)"; head -c 784 /dev/zero; } >"$WORK/big/train-images-idx3-ubyte"
cp "$WORK/data/train-labels-idx1-ubyte" "$WORK/data/t10k-"* "$WORK/big/"
# (Not with AddressSanitizer, which reserves terabytes of address space at
# start: a 60 MB limit stops the binary before mptrain runs.)
if sanitizer_build; then
  echo "NOTE: row 35 not checked: this binary is built with AddressSanitizer" >&2
else
  (ulimit -v 60000; exec "$MPTRAIN" run -n 1 -t 1 --data "$WORK/big" --model logreg) >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 1
  expect_stderr "^mptrain: error: cannot reserve 75 MiB of shared memory for the data of $WORK/big/train-images-idx3-ubyte: Cannot allocate memory; free memory, or raise the limit on this process's memory \(ulimit -v\)$"
fi

# Row 36: too many open files: the limit and what to do. The limit counts the
# descriptors the caller left open too, so the case closes them first.
(close_inherited_fds; ulimit -n 12; exec "$MPTRAIN" run -n 2 --allow-oversubscribe -- true) >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 1
expect_stderr "^mptrain: error: cannot (open /dev/null|create a pipe for rank [01]'s output|start rank [01]( \([^)]*\))?|start the watchdog): too many open files \(the limit is 12\); raise the limit \(ulimit -n\)(, or start fewer workers)?$"

# Row 40: --membind where the NUMA nodes cannot be read.
MPTRAIN_FSROOT="$MPTRAIN_TEST_DATA/cgroup-v2-quota" run_mptrain run -n 1 --membind 0 --dry-run -- true
expect_code 1
expect_stderr "^mptrain: error: --membind: cannot read this machine's NUMA nodes \(.*\); leave out --membind and --interleave on a machine without NUMA support$"

# Row 41: a file that is no IDX file: the bytes it should start with.
mkdir "$WORK/notidx"
cp "$WORK/data/"* "$WORK/notidx/"
printf 'PK\x03\x04 a zip file, not IDX' >"$WORK/notidx/train-images-idx3-ubyte"
run_mptrain run -n 1 -t 1 --data "$WORK/notidx" --model logreg
expect_code 1
expect_stderr "train-images-idx3-ubyte: not an IDX file \(it does not start with the bytes 00 00 08 03\); give MNIST-format files \(compressed ones must end in .gz\)$"

# Row 46: the preload warns only when a program's own call changed its mask.
if ((usable >= 2)) && command -v python3 >/dev/null; then
  run_mptrain run -n 1 -- python3 -c 'import os; os.sched_setaffinity(0, os.sched_getaffinity(0))'
  expect_code 0
  ! grep -q "affinity of its own" "$WORK/err" || fail "re-setting the same mask warns: $(cat "$WORK/err")"
  run_mptrain run -n 1 -- python3 -c '
import os
try:
    os.sched_setaffinity(0, {100000})
except OSError:
    pass'
  expect_code 0
  ! grep -q "affinity of its own" "$WORK/err" || fail "a failed call warns: $(cat "$WORK/err")"
  first=$(jq -r '.workers[0].cpus' <("$MPTRAIN" plan -n 1 --json) | cut -d, -f1 | cut -d- -f1)
  run_mptrain run -n 1 -- python3 -c "import os; os.sched_setaffinity(0, {$first})"
  expect_code 0
  expect_stderr "warning: process [0-9]+ \(python3\) set a CPU affinity of its own; mptrain leaves it"
fi

# Row 37: a missing placement library is named as the cause, not --descendants leave.
if ((usable >= 2)); then
  use_program omp_spawn omp_spawn
  mkdir "$WORK/bin"
  cp "$MPTRAIN" "$WORK/bin/mptrain"
  "$WORK/bin/mptrain" run -n 1 -t 2 -- "$WORK/omp_spawn" >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 0
  expect_stderr "^mptrain: warning: the placement library libmptrain_place.so is neither in $WORK/bin"
  expect_stderr "warning: pid [0-9]+ \(omp_spawn\), started by rank 0, ran on CPU .* mptrain could not give it the worker's CPUs: its placement library was not found \(see the warning above\); reinstall mptrain$"
  ! grep -q "Without --descendants leave" "$WORK/err" || fail "blames --descendants leave, which was not given"
fi
echo PASS
