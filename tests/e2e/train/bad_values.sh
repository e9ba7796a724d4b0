# Empty, negative, fractional and non-finite training option values are
# usage errors (exit 2) naming the option, refused before any training.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data

# refused OPTION VALUE PATTERN: `run --OPTION VALUE` exits 2 with an error matching PATTERN and trains nothing.
refused() {
  run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg "$1" "$2"
  [[ $code -eq 2 ]] || { cat "$WORK/out" "$WORK/err" >&2; fail "$1 '$2': expected exit 2, got $code"; }
  grep -Eq -- "^mptrain: error: $1: $3" "$WORK/err" || { cat "$WORK/err" >&2; fail "$1 '$2': message does not match: $3"; }
  grep -q 'samples' "$WORK/out" "$WORK/err" && fail "$1 '$2' trained before it was refused"
  return 0
}

refused --save-model "" "the value is empty"
refused --resume "" "the value is empty"
refused --data "" "the value is empty"
refused --seed -1 "-1 is not from 0 to"
refused --seed 1.5 "1.5 is not a whole number"
refused --seed 18446744073709551615 "18446744073709551615 is too large: the most accepted is 9223372036854775807"
refused --lr nan "nan is not a finite number"
refused --lr inf "inf is not a finite number"
refused --lr -inf "-inf is not a finite number"
refused --lr 1e39 "1e39 is not from 0 to 3.40282e\+38 \(the largest float\)"
refused --lr -0.1 "-0.1 is not from 0 to"
refused --momentum nan "nan is not a finite number"
refused --momentum 1.5 "1.5 is not from 0 to 1"
refused --epochs -1 "-1 is not at least 0"
refused --epochs 1.5 "1.5 is not a whole number"
refused --batch-size 0 "0 is not from 1 to 1048576"
refused --batch-size 2.5 "2.5 is not a whole number"
refused --train-limit -5 "-5 is not at least 0"

# The largest seed and a learning rate of 0 are values, not errors.
run_mptrain run -n 1 -t 1 --data "$WORK/data" --model logreg --seed 9223372036854775807 --lr 0 --json
expect_code 0
expect_json '.seed == 9223372036854775807 and .lr == 0'
exit 0
