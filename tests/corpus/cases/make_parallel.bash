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
scope_naive() { scope=(-- make -s -C "$project" -j $((8 * N))); }
scope_fixed() { scope=(-- make -s -C "$project" -j "$N"); }
