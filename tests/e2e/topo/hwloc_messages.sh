# What hwloc itself writes to stderr when it refuses a topology goes into
# mptrain's one error line, never onto the terminal on its own.
source "$(dirname "$0")/../lib.sh"

# A topology hwloc reads but refuses: one core, one PU, no NUMA node.
cat >"$WORK/no-numa.xml" <<'XML'
<?xml version="1.0"?>
<topology version="2.0">
<object type="Machine" os_index="0" cpuset="0x1" complete_cpuset="0x1" allowed_cpuset="0x1" nodeset="0x1" complete_nodeset="0x1" allowed_nodeset="0x1" gp_index="1">
<object type="Core" os_index="0" cpuset="0x1" gp_index="2"><object type="PU" os_index="0" cpuset="0x1" gp_index="3"/></object>
</object>
</topology>
XML
for command in topo plan; do
  run_mptrain "$command" --topology "$WORK/no-numa.xml"
  expect_code 1
  [[ $(wc -l <"$WORK/err") == 1 ]] || fail "$command: more than one line on stderr: $(cat "$WORK/err")"
  expect_stderr "^mptrain: error: --topology: .*no-numa.xml is not a valid hwloc XML topology \(hwloc: .*NUMA node.*\) \(write one with 'lstopo --of xml FILE'\)$"
done
# A good topology afterwards: stderr is the terminal's again (nothing captured for good).
run_mptrain plan --topology "$MPTRAIN_TEST_DATA/affinity/two-sockets.xml" -n 2
expect_code 0
[[ ! -s $WORK/err ]] || fail "a good topology printed on stderr: $(cat "$WORK/err")"
echo PASS
