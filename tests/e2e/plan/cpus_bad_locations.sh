# A --cpus location that cannot be resolved is a usage error saying what exists.
source "$(dirname "$0")/../lib.sh"
synthetic=(--topology-synthetic "package:2 numa:2 core:4 pu:2")
described='the topology \(synthetic: package:2 numa:2 core:4 pu:2\)'

check() {  # check PATTERN ARGS...: exit 2, stderr "mptrain: error: --cpus: …" matching PATTERN
  local pattern=$1
  shift
  run_mptrain plan "$@" "${synthetic[@]}"
  expect_usage_error "--cpus:? $pattern"
  [[ $(wc -l <"$WORK/err") == 1 ]] || { cat "$WORK/err" >&2; fail "more than one line on stderr"; }
  [[ ! -s "$WORK/out" ]] || fail "a refused plan printed something on stdout"
}

check "numa:4: $described has NUMA nodes 0-3" --cpus numa:4
check "core:16-17: $described has cores 0-15" --cpus core:16-17
check "l3:0: $described has no L3 cache" --cpus l3:0
check "package:1.core:8: package 1 has cores 0-7" --cpus package:1.core:8
check "core:0.numa:0: core 0 contains no NUMA node" --cpus core:0.numa:0
check "unknown object type 'cpu'.*use pu, core, l1, l2, l3, numa, package \(or socket\) or machine" --cpus cpu:0
check "bad index 'x' in 'core:x'" --cpus core:x
check "'0-3,core:4' mixes a CPU list and a location" --cpus 0-3,core:4
check "bad CPU number 'core'.*TYPE:INDEXES" --cpus core
check "no CPUs given" --cpus ' '
check "'pu' in 'core:0.pu' has no indexes" --cpus core:0.pu

# run refuses the same way, before starting anything.
run_mptrain run -n 1 --cpus numa:8191 -- true
expect_usage_error "--cpus: numa:8191: this machine has NUMA node"
