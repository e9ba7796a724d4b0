# An Intel Xeon with sub-NUMA clustering (SNC2: two NUMA nodes a socket under one L3): workers that
# fit in a cluster stay inside one, under bind core, l3 and numa; those that do not are named in a note.
source "$(dirname "$0")/../lib.sh"
snc=(--topology "$MPTRAIN_TEST_DATA/affinity/xeon-2s-snc2.xml")

for bind in core l3 numa; do
  run_mptrain plan -n 4 --bind "$bind" "${snc[@]}" --json
  expect_code 0
  expect_json '[.workers[] | .numa_node] == [0, 1, 2, 3] and .workers[1].cpus == "12-23,60-71"'
  expect_json 'all(.notes[]; contains("span NUMA nodes") | not)'
done

run_mptrain plan -n 8 -t 12 --bind l3 "${snc[@]}" --json
expect_code 0
expect_json '[.workers[] | .numa_node] == [0, 0, 1, 1, 2, 2, 3, 3] and .workers[2].cpus == "12-23,60-71"'

run_mptrain plan "${snc[@]}"
expect_code 0
grep -q 'note: ranks 0-1 span NUMA nodes (sub-NUMA clusters where the machine has them): 48 PUs per worker do not fit in one, which holds at most 24' "$WORK/out" ||
  { cat "$WORK/out"; fail "no note on workers spanning clusters"; }
