# Empty, negative, fractional and non-finite training option values are
# usage errors (exit 2) naming the option, refused before any training.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/fixtures.bash"
make_small_data

train=(run -n 1 -t 1 --data "$WORK/data" --model logreg)

refused 2 "^--save-model: the value is empty" "${train[@]}" --save-model ""
refused 2 "^--resume: the value is empty" "${train[@]}" --resume ""
refused 2 "^--data: the value is empty" "${train[@]}" --data ""
refused 2 "^--seed: -1 is not from 0 to" "${train[@]}" --seed -1
refused 2 "^--seed: 1.5 is not a whole number" "${train[@]}" --seed 1.5
refused 2 "^--seed: 18446744073709551615 is too large: the most accepted is 9223372036854775807" "${train[@]}" --seed 18446744073709551615
refused 2 "^--lr: nan is not a finite number" "${train[@]}" --lr nan
refused 2 "^--lr: inf is not a finite number" "${train[@]}" --lr inf
refused 2 "^--lr: -inf is not a finite number" "${train[@]}" --lr -inf
refused 2 "^--lr: 1e39 is not from 0 to 3.40282e\+38 \(the largest float\)" "${train[@]}" --lr 1e39
refused 2 "^--lr: -0.1 is not from 0 to" "${train[@]}" --lr -0.1
refused 2 "^--momentum: nan is not a finite number" "${train[@]}" --momentum nan
refused 2 "^--momentum: 1.5 is not from 0 to 1" "${train[@]}" --momentum 1.5
refused 2 "^--epochs: -1 is not at least 0" "${train[@]}" --epochs -1
refused 2 "^--epochs: 1.5 is not a whole number" "${train[@]}" --epochs 1.5
refused 2 "^--batch-size: 0 is not from 1 to 1048576" "${train[@]}" --batch-size 0
refused 2 "^--batch-size: 2.5 is not a whole number" "${train[@]}" --batch-size 2.5
refused 2 "^--train-limit: -5 is not at least 0" "${train[@]}" --train-limit -5

# The largest seed and a learning rate of 0 are values, not errors.
run_mptrain "${train[@]}" --seed 9223372036854775807 --lr 0 --json
expect_code 0
expect_json '.seed == 9223372036854775807 and .lr == 0'
exit 0
