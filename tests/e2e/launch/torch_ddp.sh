# A real torch.distributed job (gloo, env:// rendezvous, all_reduce, DDP
# steps) started by `mptrain run -n 2` just works. Needs Debian's python3-torch.
# ctest: timeout 300
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
