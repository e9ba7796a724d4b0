# A real torch.distributed gloo DDP job across 2 "nodes" x 1 local rank,
# each node an mptrain under mpirun, rendezvous through node 0's address.
# ctest: timeout 300
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_mpi
/usr/bin/python3 -c 'import torch' 2>/dev/null || skip "/usr/bin/python3 cannot import torch (apt-get install python3-torch)"

address=()
if ! getent hosts "$(hostname)" >/dev/null; then
  echo "NOTE: this host's name does not resolve: node 0's address is given as 127.0.0.1" >&2
  address=(--master-addr 127.0.0.1)
fi
mpirun_mptrain 2 run -n 1 "${address[@]}" -- /usr/bin/python3 "$(dirname "$0")/../launch/ddp_check.py"
[[ $code == 0 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "the DDP job failed ($code)"; }
for rank in 0 1; do
  grep -q "^\[$rank\] rank $rank/2: all_reduce sum 3 ok, 5 DDP steps ok" "$WORK/out" ||
    { cat "$WORK/out" "$WORK/err" >&2; fail "global rank $rank did not finish the DDP job"; }
done
