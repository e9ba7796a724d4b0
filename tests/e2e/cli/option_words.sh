# Option words CLI11 would misread or answer in its own jargon: a flag given
# a value (--json=abc, and --json=3 or --dry-run=1, which it took silently),
# an option whose value is missing because the next word is an option
# (-n --json), a short option glued to its value with '=' (-n=2), a long
# option written with one dash (-num-processes), two options that exclude
# each other, and a value that is not one of a set of names.
source "$(dirname "$0")/../lib.sh"

see="\(see 'mptrain plan --help'\)$"
run_mptrain plan --json=abc
expect_usage_error "--json takes no value: write --json $see"
! grep -q 'Could not convert' "$WORK/err" || fail "CLI11's words: $(cat "$WORK/err")"
for flag in --json=3 --json=yes --json= --physical-cores=0 --allow-oversubscribe=2; do
  run_mptrain plan "$flag"
  expect_usage_error "${flag%%=*} takes no value: write ${flag%%=*} $see"
  [[ ! -s $WORK/out ]] || fail "plan $flag printed a plan"
done
run_mptrain topo --json=false
expect_usage_error "--json takes no value: write --json \(see 'mptrain topo --help'\)$"
run_mptrain run --dry-run=1 -- touch "$WORK/ran"
expect_usage_error "--dry-run takes no value: write --dry-run \(see 'mptrain run --help'\)$"
[[ ! -e $WORK/ran ]] || fail "run --dry-run=1 ran the command"
run_mptrain doctor --threads=no --duration 0.1
expect_usage_error "--threads takes no value: write --threads"
# A flag's value after "--" belongs to the command.
run_mptrain run -n 1 --dry-run -- echo --json=abc
expect_code 0

run_mptrain plan -n --json
expect_usage_error "-n needs a value \(INT:from 1 to 1048576, auto or cpu\) right after it, but the next word is the option --json $see"
run_mptrain plan --num-processes -t 1
expect_usage_error "--num-processes needs a value .* but the next word is the option -t $see"
run_mptrain plan --cpus --physical-cores
expect_usage_error "--cpus needs a value \(TEXT\) right after it, but the next word is the option --physical-cores"
run_mptrain run --log-dir -- true
expect_usage_error "--log-dir needs a value \(DIR\) right after it, but the next word is '--'"
# A value that starts with '-' but is no option is still the value.
run_mptrain plan -n -5
expect_usage_error "--num-processes: -5 is not from 1 to 1048576"

run_mptrain plan -n=2
expect_usage_error "-n=2: a short option takes its value after a space: -n 2 \(or --num-processes=2\) $see"
run_mptrain plan -t=1
expect_usage_error "-t=1: a short option takes its value after a space: -t 1 \(or --threads-per-process=1\)"
run_mptrain plan -num-processes 2
expect_usage_error "-num-processes: did you mean --num-processes\? A long option starts with two dashes $see"
run_mptrain topo -json
expect_usage_error "-json: did you mean --json\?"
# Still accepted: a short option with its value glued on, and the = form of a long one.
run_mptrain plan -n2 --json
expect_code 0
expect_json '.num_processes == 2'
run_mptrain plan --num-processes=2 --json
expect_code 0

run_mptrain plan --topology x.xml --topology-synthetic "package:1 core:2 pu:1"
expect_usage_error "--topology and --topology-synthetic cannot be given together; give only one of them $see"
run_mptrain run --membind 0 --interleave 0 -- true
expect_usage_error "--membind and --interleave cannot be given together; give only one of them"
! grep -q excludes "$WORK/err" || fail "CLI11's words: $(cat "$WORK/err")"

run_mptrain run --bind wrong -- true
expect_usage_error "--bind: 'wrong' is not one of core, l3, numa, package or none \(see 'mptrain run --help'\)$"
run_mptrain doctor --fail-on bad
expect_usage_error "--fail-on: 'bad' is not one of oversubscribed, warning, idle, inconclusive or never"
run_mptrain plan --bind ''
expect_usage_error "--bind: '' is not one of core, l3, numa, package or none"
# --help still lists the names in CLI11's form, which the man pages match.
"$MPTRAIN" plan --help | grep -- '--bind TEXT:{core,l3,numa,package,none}' >/dev/null || fail "plan --help lost --bind's names"
echo PASS
