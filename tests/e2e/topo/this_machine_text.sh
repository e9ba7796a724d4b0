# topo without --json prints a readable report ending in the usable CPU count.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo
expect_code 0
for label in 'Packages:' 'NUMA nodes:' 'Cores:' 'PUs:' 'Affinity:' 'Cgroup:' 'Usable CPUs:' 'Default bind:'; do
  grep -q "^$label" "$WORK/out" || { cat "$WORK/out"; fail "no '$label' line"; }
done
