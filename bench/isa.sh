#!/usr/bin/env bash
# One binary for every x86-64: the built-in training on each kernel build
# this CPU runs (forced with MPTRAIN_ISA), side by side in one run, and a
# -march=native build's figure when MPTRAIN_NATIVE_BUILD names its build
# directory (configured with -DMPTRAIN_NATIVE=ON). The bar: the portable
# default (the best build, chosen at start-up) within 10% of native.
# Runs alternate between the variants, REPEAT rounds; each line is the
# median of its samples/s (the report's `samples_per_second`).
# Usage: bench/isa.sh  (from the repository root; set any variable below to override)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
MPTRAIN_NATIVE_BUILD=${MPTRAIN_NATIVE_BUILD:-}  # a build directory configured with -DMPTRAIN_NATIVE=ON
M=${M:-2}                # workers of one thread each
EPOCHS=${EPOCHS:-1}
MODEL=${MODEL:-cnn}
REPEAT=${REPEAT:-3}      # rounds over the variants
ISAS=${ISAS:-}           # the kernel builds to run, e.g. "avx512 sse2" (default: every one this CPU runs)

require_mptrain
require_command jq
bench_tmpdir isa

default=$(env -u MPTRAIN_ISA "$MPTRAIN" --version | sed -n 's/^kernels: //p')
runnable=$(sed -n 's/.*(this CPU runs \(.*\))$/\1/p' <<<"$default")
best=${runnable%%,*}
# The default build always runs: the others' figures are shares of it (or of native).
variants=("$best")
for isa in ${ISAS:-${runnable//,/ }}; do [[ "$isa" == "$best" ]] || variants+=("$isa"); done
native=""
if [[ -n "$MPTRAIN_NATIVE_BUILD" ]]; then
  native=$MPTRAIN_NATIVE_BUILD/mptrain
  [[ -x "$native" ]] || bench_fail "no mptrain in $MPTRAIN_NATIVE_BUILD"
  variants+=(native)
fi

# measure VARIANT ROUND: one training run, its report kept as $OUT/VARIANT_ROUND.json.
measure() {
  local variant=$1 round=$2 binary=$MPTRAIN
  local -a environment=(env -u MPTRAIN_ISA)
  if [[ "$variant" == native ]]; then binary=$native; else environment+=("MPTRAIN_ISA=$variant"); fi
  "${environment[@]}" "$binary" run --data "$DATA" --json -n "$M" -t 1 --model "$MODEL" --epochs "$EPOCHS" \
    >"$OUT/${variant}_$round.json" 2>"$OUT/${variant}_$round.err" || { cat "$OUT/${variant}_$round.err" >&2; exit 1; }
}
median() { jq -s 'map(.samples_per_second) | sort | .[length / 2 | floor]' "$OUT"/"$1"_*.json; }

echo "== kernel builds: $MODEL, $M workers x 1 thread, $EPOCHS epoch(s), $REPEAT round(s); default kernels: $default"
for ((round = 1; round <= REPEAT; round++)); do
  for variant in "${variants[@]}"; do measure "$variant" "$round"; done
done
reference=$(median "$best")
[[ -n "$native" ]] && reference=$(median native)
for variant in "${variants[@]}"; do
  label=$variant
  [[ "$variant" == "$best" ]] && label="$variant (default)"
  [[ "$variant" == native ]] && label="native (-march=native build)"
  printf '%-30s %10.0f samples/s  %6.1f%% of %s\n' "$label" "$(median "$variant")" \
    "$(jq -n "100 * $(median "$variant") / $reference")" "$([[ -n "$native" ]] && echo native || echo "$best")"
done
if [[ -n "$native" ]]; then
  jq -n --argjson ours "$(median "$best")" --argjson native "$(median native)" -r \
    'if $ours >= 0.9 * $native then "bar met: the portable default is within 10% of native"
     else "bar NOT met: the portable default is more than 10% below native" end'
fi
