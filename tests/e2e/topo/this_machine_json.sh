# topo --json on this machine: every contract key, and N within the affinity mask.
source "$(dirname "$0")/../lib.sh"

run_mptrain topo --json
expect_code 0
for key in packages numa_nodes cores pus affinity_cpus cgroup usable_cpus usable_cpu_list limited_by; do
  expect_json "has(\"$key\")"
done
expect_json '.packages >= 1 and .numa_nodes >= 1 and .cores >= 1 and .pus >= .cores'
expect_json '.cgroup | has("version") and has("cpuset") and has("quota_cpus")'
expect_json '.cgroup.quota_cpus == null or (.cgroup.quota_cpus | type == "number")'
expect_json ".usable_cpus >= 1 and .usable_cpus <= $(nproc)"
allowed=$(awk '/^Cpus_allowed_list:/ {print $2}' /proc/self/status)
expect_json ".affinity_cpus == \"$allowed\""
