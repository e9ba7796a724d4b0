description="make building 40 generated C files with cc -O2: make -j 8N vs make -j N"
variants=(naive fixed)
expected_naive=oversubscribed
expected_fixed=healthy
requires="make, cc"
check_requires() { need_command make && need_command cc gcc; }
# A fresh project per run, so every run compiles everything.
setup() {
  project=$(mktemp -d "${TMPDIR:-/tmp}/mptrain-corpus-make.XXXXXX")
  "$WORKLOADS/gen_make.sh" "$project" 40
}
cleanup() { [[ -z "${project:-}" ]] || rm -rf "$project"; }
# (Timed by a shell of the job's, for its throughput: files built per second.)
make_job() { scope=(-- bash -c "source '$CORPUS/lib.bash'; timed_work 40 make -s -C '$project' -j $1"); }
scope_naive() { make_job $((8 * N)); }
scope_fixed() { make_job "$N"; }
