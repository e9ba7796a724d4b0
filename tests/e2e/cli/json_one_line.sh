# Every --json document goes out as one line in one write when stdout is not
# a terminal: two ranks under mpirun never interleave their documents (the
# README's `mpirun -n 2 mptrain plan --json | jq …` failed 2 of 10 times
# when each pretty document went out in several writes).
source "$(dirname "$0")/../lib.sh"

for command in "topo --json" "plan -n 1 --json" "run -n 1 --json -- true"; do
  # shellcheck disable=SC2086
  run_mptrain $command
  expect_code 0
  [[ $(wc -l <"$WORK/out") == 1 ]] || { cat "$WORK/out" >&2; fail "mptrain $command wrote more than one line"; }
  jq -e . "$WORK/out" >/dev/null || fail "mptrain $command wrote no JSON document"
done

if command -v mpirun >/dev/null; then
  launch=(mpirun -n 2 --oversubscribe)
  [[ $(id -u) == 0 ]] && launch+=(--allow-run-as-root)
  for _ in $(seq 20); do
    "${launch[@]}" "$MPTRAIN" plan -n 1 --json >"$WORK/out" 2>"$WORK/err" || { cat "$WORK/err" >&2; fail "mpirun failed"; }
    [[ $(jq -s length "$WORK/out") == 2 ]] || { cat "$WORK/out" >&2; fail "two ranks' documents interleaved"; }
  done
fi
exit 0
