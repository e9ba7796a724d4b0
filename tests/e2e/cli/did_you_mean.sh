# A mistyped long option gets the near name of the command's options ("did
# you mean --children?"), still one usage error (exit 2) that runs nothing;
# a word far from every name gets no guess.
source "$(dirname "$0")/../lib.sh"

refused 2 "^mptrain run does not take: --childern --; did you mean --children\? \(see 'mptrain run --help'\)$" \
  run --childern 2 -- touch "$WORK/ran"
refused 2 "^mptrain run does not take: --childern=2 --; did you mean --children\?" \
  run --childern=2 -- touch "$WORK/ran"
refused 2 "^mptrain run does not take: --nproc-per-nod --; did you mean --nproc-per-node\?" \
  run --nproc-per-nod 2 -- touch "$WORK/ran"
refused 2 "^mptrain doctor does not take: --duraton --; did you mean --duration\? \(see 'mptrain doctor --help'\)$" \
  doctor --duraton 0.1 -- touch "$WORK/ran"
refused 2 "^mptrain plan does not take: --jsno; did you mean --json\?" plan --jsno
refused 2 "^mptrain run does not take: --bogus -- \(see 'mptrain run --help'\)$" run --bogus -- touch "$WORK/ran"
# doctor has no --children: no guess from another command's options.
refused 2 "^mptrain doctor does not take: --childern -- \(see 'mptrain doctor --help'\)$" \
  doctor --childern 2 -- touch "$WORK/ran"
# torchrun's own options and the mptrain options it takes.
refused 2 "^torchrun has no option --nprocs-per-node; did you mean --nproc-per-node\? \(see 'mptrain torchrun --help'" \
  torchrun --nprocs-per-node 2 --no-python touch "$WORK/ran"
refused 2 "^torchrun has no option --childern; did you mean --children\?" torchrun --childern 2 --no-python touch "$WORK/ran"
refused 2 "^torchrun has no option --bogus \(see" torchrun --bogus --no-python touch "$WORK/ran"
echo PASS
