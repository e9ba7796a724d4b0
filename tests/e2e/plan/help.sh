# plan --help documents every placement and topology option.
source "$(dirname "$0")/../lib.sh"

run_mptrain plan --help
expect_code 0
for option in --num-processes --threads-per-process --bind --cpus --physical-cores --reserve \
  --allow-oversubscribe --topology --topology-synthetic --json; do
  grep -q -- "$option" "$WORK/out" || fail "plan --help does not document $option"
done
