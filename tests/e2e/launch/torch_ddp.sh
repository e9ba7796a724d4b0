# A real torch.distributed job (gloo, env:// rendezvous, all_reduce, DDP
# steps) started by `mptrain run -n 2` just works. Needs Debian's python3-torch.
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "/usr/bin/python3 cannot import torch (apt-get install python3-torch)"

run_mptrain run -n 2 -- /usr/bin/python3 "$(dirname "$0")/ddp_check.py"
expect_code 0
for rank in 0 1; do
  grep -q "^\[$rank\] rank $rank/2: all_reduce sum 3 ok, 5 DDP steps ok" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "rank $rank did not finish the DDP job"; }
done

# The same job as run_cpu users start it: jemalloc preloaded (where Debian's
# libjemalloc2 is installed), and one worker of 2 intra-op threads placed one per PU.
if ldconfig -p | grep libjemalloc.so.2 >/dev/null; then
  run_mptrain run -n 2 --allocator jemalloc -- /usr/bin/python3 "$(dirname "$0")/ddp_check.py"
  expect_code 0
  [[ $(grep -c 'DDP steps ok' "$WORK/out") == 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "DDP under jemalloc failed"; }
else
  echo "NOTE: libjemalloc2 is not installed: DDP under --allocator jemalloc not checked" >&2
fi
run_mptrain run -n 1 -t 2 -- /usr/bin/python3 "$(dirname "$0")/ddp_check.py"
expect_code 0
grep -q '^\[0\] rank 0/1: .*2 threads on CPUs 0-1' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "1 x 2 DDP failed"; }
