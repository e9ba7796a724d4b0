# Two runs in sibling PID namespaces (unshare -pf --mount-proc), where both
# mptrains are pid 1 and their run cgroups sit side by side: each makes a
# cgroup of its own, and kill -9 of one mptrain ends only its own job (its
# watchdog once killed the other job's worker, whose cgroup had the same name).
source "$(dirname "$0")/../lib.sh"
command -v unshare >/dev/null || skip "no unshare(1) here (util-linux)"
unshare -pf --mount-proc true 2>/dev/null || skip "this process may not make PID namespaces (unshare -pf --mount-proc)"
# Sleeps no other test runs, one per job.
nap_a=29.${$}1 nap_b=29.${$}2
unshare -pf --mount-proc "$MPTRAIN" run -n 1 -- sleep "$nap_a" >"$WORK/a.out" 2>"$WORK/a.err" &
job_a=$!
unshare -pf --mount-proc "$MPTRAIN" run -n 1 -- sleep "$nap_b" >"$WORK/b.out" 2>"$WORK/b.err" &
job_b=$!
# worker NAP: the pid of the job's worker, once it runs.
worker() { pgrep -f "^sleep $1\$"; }
for _ in $(seq 100); do
  worker "$nap_a" >/dev/null && worker "$nap_b" >/dev/null && break
  sleep 0.1
done
worker "$nap_a" >/dev/null && worker "$nap_b" >/dev/null ||
  { kill "$job_a" "$job_b"; cat "$WORK/a.err" "$WORK/b.err" >&2; fail "the two jobs' workers did not both start"; }
grep -h mptrain-run- "/proc/$(worker "$nap_a")/cgroup" | sed 's|.*/||' | sort -u >"$WORK/a.cgroup"
grep -h mptrain-run- "/proc/$(worker "$nap_b")/cgroup" | sed 's|.*/||' | sort -u >"$WORK/b.cgroup"
if [[ -s $WORK/a.cgroup && -s $WORK/b.cgroup ]]; then
  ! grep -qxFf "$WORK/a.cgroup" "$WORK/b.cgroup" ||
    fail "the two jobs share a run cgroup: $(cat "$WORK/a.cgroup")"
fi
mptrain_a=$(pgrep -P "$job_a" -x mptrain)
[[ -n $mptrain_a ]] || fail "job A's mptrain is not the child of its unshare"
kill -KILL "$mptrain_a"
wait "$job_a" 2>/dev/null
# A's watchdog ends A's worker; B's worker goes on.
for _ in $(seq 50); do
  worker "$nap_a" >/dev/null || break
  sleep 0.1
done
! worker "$nap_a" >/dev/null || fail "job A's worker outlived its mptrain by 5 s"
sleep 0.5
worker "$nap_b" >/dev/null || { cat "$WORK/b.err" >&2; fail "kill -9 of job A's mptrain ended job B's worker"; }
kill -TERM "$(pgrep -P "$job_b" -x mptrain)"
wait "$job_b" 2>/dev/null
! worker "$nap_b" >/dev/null || fail "job B's worker outlived its mptrain"
exit 0
