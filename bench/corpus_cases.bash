# Shared by bench/doctor_corpus.sh and bench/doctor_calibration.sh: the
# corpus's cases and variants, as "NAME VARIANT" lines, for all cases or
# for a comma-separated list.
#   corpus_runs [a,b,...]
corpus_runs() {
  local dir names name
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/corpus/cases" && pwd)"
  if [[ -n "${1:-}" ]]; then
    IFS=, read -r -a names <<<"$1"
  else
    names=()
    for name in "$dir"/*.bash; do names+=("$(basename "$name" .bash)"); done
  fi
  for name in "${names[@]}"; do
    [[ -f "$dir/$name.bash" ]] || { echo "no corpus case $name" >&2; return 2; }
    # The case's variants, from its line "variants=(...)".
    sed -n 's/^variants=(\(.*\))/\1/p' "$dir/$name.bash" | tr ' ' '\n' | sed "s/^/$name /"
  done
}
