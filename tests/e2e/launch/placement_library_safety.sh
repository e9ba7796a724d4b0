# The placement library stays safe to load into any program: between fork
# and the program's own code it does only async-signal-safe work (a program
# whose other thread is in setenv when it forks does not deadlock its
# children; strace -f, which keeps its environ across fork, still execs);
# a wrapper (timeout, a shell script) holds no slice, so the program it
# runs spreads its workers over the slices; a pin the program brings
# across exec (taskset, numactl) is kept, with a warning; a static program,
# which the library cannot reach, is left alone and named.
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
use_program fork_setenv fork_setenv
use_program omp_gnu omp_self_sized_gnu
last=$("$MPTRAIN" plan -n 1 --json | jq -r "$cpus"' .workers[0].cpus | cpus | last')

# Forks under a concurrent setenv loop: every child ends (a deadlock would hit the timeout).
run_mptrain run -n 1 --children 2 -- timeout 60 "$WORK/fork_setenv" 300
expect_code 0
grep -q '^\[0\] forked 300$' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "forks under a setenv loop did not all end"; }

# strace -f forks and execs with the environ it keeps: the exec still works.
command -v strace >/dev/null || fail "strace is needed (scripts/setup.sh installs it)"
run_mptrain run -n 1 --children 2 -- strace -f -o /dev/null sh -c 'echo traced'
expect_code 0
grep -q '^\[0\] traced$' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "strace -f under --children failed"; }

# A wrapper holds no slice: the two workers the wrapped program forks get different slices.
printf '#!/bin/sh\n"$@"\n' >"$WORK/train.sh"
chmod +x "$WORK/train.sh"
for wrapper in timeout "$WORK/train.sh"; do
  args=("$WORK/omp_gnu" 2 0.5)
  [[ $wrapper == timeout ]] && args=(60 "${args[@]}")
  run_mptrain run -n 1 --children 2 -- "$wrapper" "${args[@]}"
  expect_code 0
  mapfile -t slices < <(sed -n 's/^\[0\] worker [0-9]* team [0-9]* regions [0-9]* allowed //p' "$WORK/out")
  [[ ${#slices[@]} == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "two workers did not report under $wrapper"; }
  [[ ${slices[0]} != "${slices[1]}" ]] || fail "under $wrapper both workers run on CPUs ${slices[0]}"
done

# A program run as another user (setpriv) cannot open mptrain's descriptors under /proc: it finds the
# table under the number the worker inherited, and its workers still get their slices.
if [[ $(id -u) == 0 ]] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
  chmod 755 "$WORK"
  run_mptrain run -n 1 --children 2 -- setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups \
    "$WORK/omp_gnu" 2 0.5
  expect_code 0
  mapfile -t slices < <(sed -n 's/^\[0\] worker [0-9]* team [0-9]* regions [0-9]* allowed //p' "$WORK/out")
  [[ ${#slices[@]} == 2 && ${slices[0]} != "${slices[1]}" ]] ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "as another user, the workers got no slices of their own"; }
  ! grep -q "cannot open its worker's tree table" "$WORK/err" || { cat "$WORK/err" >&2; fail "the table was not found"; }
fi

# A pin brought across exec is kept, and said once.
run_mptrain run -n 1 -- sh -c "taskset -c $last \"\$0\" 0 0.3" "$WORK/omp_gnu"
expect_code 0
grep -q "^\[0\] worker 0 team [0-9]* regions [0-9]* allowed $last$" "$WORK/out" ||
  { cat "$WORK/out" "$WORK/err" >&2; fail "taskset's pin to CPU $last was undone"; }
expect_stderr "mptrain: warning: process [0-9]+ \((taskset|omp_gnu)\) (set|started with) a CPU affinity of its own"
if command -v numactl >/dev/null; then
  run_mptrain run -n 1 --children 2 -- sh -c "numactl --physcpubind=$last \"\$0\" 0 0.3" "$WORK/omp_gnu"
  expect_code 0
  grep -q "^\[0\] worker 0 team [0-9]* regions [0-9]* allowed $last$" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "numactl's pin to CPU $last was undone"; }
  expect_stderr "started with a CPU affinity of its own"
fi

# A slice whose holder's pid now belongs to another process is free: the library tells a reused pid by
# its start time. A table written by hand (procmgr/place_table.h): slice 0 "held" by a live process
# under another start time, slice 1 by the same process under its own; a new process takes slice 0.
library="$(dirname "$MPTRAIN")/libmptrain_place.so"
sleep 30 &
holder=$!
started=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$holder/stat")
# table FILE START0: the table with slot 0 at START0 and slot 1 at the holder's own start.
table() {
  python3 - "$1" "$holder" "$2" "$started" <<'PY'
import struct, sys
path, holder, start0, start1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
data = bytearray(12304 + 512 * 256)
struct.pack_into("<Iiii", data, 0, 0x6D707432, 2, 0, 0)
struct.pack_into("<ii", data, 16, holder, holder)
struct.pack_into("<QQ", data, 16 + 4 * 1024, start0, start1)
open(path, "wb").write(data)
PY
}
# placed_by TABLE: the CPUs a fresh process gets from the library with TABLE.
placed_by() {
  env LD_PRELOAD="$library" MPTRAIN_PLACE_CPUS=0-1 MPTRAIN_PLACE_SLICES="0;1" MPTRAIN_PLACE_THREADS=1 \
    MPTRAIN_PLACE_POOL=2 MPTRAIN_PLACE_TABLE="$1" MPTRAIN_PLACE_LAUNCHER=1 \
    awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status
}
if "$MPTRAIN" plan -n 1 --cpus 0-1 >/dev/null 2>&1; then
  table "$WORK/reused.table" $((started + 1000))
  [[ $(placed_by "$WORK/reused.table") == 0 ]] || fail "a slice held by a reused pid was not taken"
  table "$WORK/held.table" "$started"
  [[ $(placed_by "$WORK/held.table") == 0-1 ]] || fail "a slice held by a live process was taken"
fi
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

# A library whose constructor calls dlsym through a handle runs before the placement library's
# constructor: the lookup still works (it crashed with SIGSEGV, as Debian's stress-ng did).
use_program dlsym_constructor dlsym_constructor
run_mptrain run -n 1 -- "$WORK/dlsym_constructor"
expect_code 0
grep -q '^\[0\] cos(0) = 1$' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "a constructor's dlsym through a handle failed under placement"; }

# A program the library cannot reach (statically linked) is left alone, and the run says so.
if printf 'int main(void) { return 0; }\n' | gcc -static -O1 -x c - -o "$WORK/static" 2>/dev/null; then
  run_mptrain run -n 1 --children 2 -- "$WORK/static"
  expect_code 0
  expect_stderr "warning: .*/static is statically linked, so mptrain's placement library cannot run inside it.*--children 2 gives its children no slices"
  run_mptrain run -n 1 -- "$WORK/omp_gnu" 0 0.1
  ! grep -q 'statically linked' "$WORK/err" || fail "a dynamic program was called static"
  # Unpinned, nothing is placed: the library only caps the program's own sizing calls, so no warning
  # that speaks of pinned workers.
  run_mptrain run -n 1 --bind none -- "$WORK/static"
  expect_code 0
  ! grep -q 'statically linked' "$WORK/err" || fail "an unpinned run warned of pinned workers"
else
  echo "note: gcc -static cannot link here (libc6-dev's libc.a): the static case not run" >&2
fi
exit 0
