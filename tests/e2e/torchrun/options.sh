# torchrun's options that mptrain cannot honour, and mistakes, are refused
# with a clear message and exit 2 before anything runs; accepted spellings
# (underscores, =, a unique prefix, PET_ variables) plan the same as the
# dashed ones; and `mptrain run` takes --nproc-per-node auto|cpu too.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"

refused 2 "--nnodes 1:4: an elastic range .* give --nnodes 4" torchrun --nnodes 1:4 train.py
refused 2 "--nnodes 0: not a number of nodes" torchrun --nnodes 0 train.py
refused 2 "--nproc_per_node gpu: mptrain runs CPU workers" torchrun --nproc_per_node gpu train.py
refused 2 "--nproc-per-node xpu: mptrain runs CPU workers" torchrun --nproc-per-node=xpu train.py
refused 2 "--nproc-per-node two: not a number of workers" torchrun --nproc-per-node two train.py
refused 2 "torchrun has no option --bogus" torchrun --bogus 1 train.py
refused 2 "--rdzv is ambiguous: it could be --rdzv-backend, --rdzv-endpoint, --rdzv-id, --rdzv-conf" torchrun --rdzv x train.py
refused 2 "torchrun needs a script to run" torchrun --nproc-per-node 2
refused 2 "torchrun needs a module to run \(-m MODULE\)" torchrun -m
refused 2 "torchrun needs a program to run" torchrun --no-python
refused 2 "-m/--module runs a Python module and --no-python" torchrun -m --no-python x
refused 2 "--run-path runs a script by its path; it does not go with -m/--module" torchrun --run-path -m x
refused 2 "--standalone runs one node on this host, but --nnodes 2 asks for 2" torchrun --standalone --nnodes 2 train.py
refused 2 "--rdzv-backend etcd: mptrain's rendezvous is static" torchrun --rdzv-backend etcd --rdzv-endpoint h:2379 train.py
refused 2 "--rdzv-endpoint :29400: no host" torchrun --rdzv-endpoint :29400 train.py
refused 2 "--rdzv-endpoint h:99999: 99999 is not a port" torchrun --rdzv-endpoint h:99999 train.py
refused 2 "--rdzv-conf timeout: 'timeout' is not key=value" torchrun --rdzv-conf timeout train.py
refused 2 "--start_method thread: torchrun's start methods are spawn, fork and forkserver" torchrun --start_method thread train.py
refused 2 "--monitor-interval -1: not a number of seconds" torchrun --monitor-interval -1 train.py
refused 2 "--max-restarts: x is not a whole number" torchrun --max-restarts x train.py
refused 2 "--nnodes was given twice \(--nnodes and --nnodes=2\)" torchrun --nnodes 1 --nnodes=2 train.py
refused 2 "--standalone=1 takes no value: write --standalone" torchrun --standalone=1 train.py
refused 2 "--rdzv-backend c10d across 2 nodes: .*give each node its --node-rank" torchrun \
  --nnodes 2 --rdzv-backend c10d --rdzv-endpoint node0:29400 train.py
refused 2 "--redirects 9" torchrun --redirects 9 train.py

# Both spellings, =, a prefix and PET_ variables plan alike (a dry run shows the plan).
plan_of() {
  run_mptrain torchrun --dry-run --json "$@" --no-python true
  expect_code 0
  jq -c '[.plan.num_processes, .plan.threads_per_process, .ranks[0].env.GROUP_WORLD_SIZE, .ranks[0].env.MASTER_PORT]' "$WORK/out"
}
n=$("$MPTRAIN" plan -n 1 --json | jq .threads_per_process)
want=$(plan_of --nproc-per-node 1 --master-port 29611)
[[ $want == "[1,$n,\"1\",\"29611\"]" ]] || fail "dashed: $want"
[[ $(plan_of --nproc_per_node=1 --master_port=29611) == "$want" ]] || fail "underscores"
[[ $(plan_of --nproc 1 --master-p 29611) == "$want" ]] || fail "prefixes"
[[ $(PET_NPROC_PER_NODE=1 PET_MASTER_PORT=29611 plan_of) == "$want" ]] || fail "PET_ variables"
[[ $(plan_of --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29611) == "$want" ]] || fail "c10d endpoint"
# torchrun's default is one worker, and auto/cpu mean one per usable CPU.
[[ $(plan_of | jq '.[0]') == 1 ]] || fail "the default is not one worker"
usable=$("$MPTRAIN" topo --json | jq .usable_cpus)
[[ $(plan_of --nproc-per-node auto | jq '.[0:2]' -c) == "[$usable,1]" ]] || fail "auto is not $usable workers of 1 thread"
[[ $(plan_of --nproc-per-node cpu | jq '.[0]') == "$usable" ]] || fail "cpu is not $usable workers"

# mptrain run and plan take auto and cpu too; gpu is refused there as well.
run_mptrain plan --nproc-per-node auto --json
expect_code 0
expect_json ".num_processes == $usable and .threads_per_process == 1"
run_mptrain run --nproc-per-node cpu --dry-run --json -- true
expect_code 0
expect_json "(.ranks | length) == $usable"
run_mptrain plan --nproc-per-node gpu
expect_usage_error "gpu counts GPUs, and mptrain runs CPU workers"

# --help prints torchrun's options and mptrain's, exit 0; so does -h.
run_mptrain torchrun --help
expect_code 0
grep -q -- "--nproc-per-node V" "$WORK/out" && grep -q -- "--children V" "$WORK/out" || fail "--help"
run_mptrain torchrun -h
expect_code 0

# The text dry run says which command it stands for.
run_mptrain torchrun --nproc-per-node 1 --dry-run --no-python true
expect_code 0
head -1 "$WORK/out" | grep -q '^# mptrain torchrun --dry-run: 1 worker' ||
  fail "the dry run's header: $(head -1 "$WORK/out")"
run_mptrain run -n 1 --dry-run -- true
head -1 "$WORK/out" | grep -q '^# mptrain run --dry-run: 1 worker' || fail "run's dry run header: $(head -1 "$WORK/out")"
