# How torchrun users name what runs: a script (under python3 -u, or
# MPTRAIN_PYTHON/PYTHON_EXEC), -m MODULE, --no-python CMD, --run-path; the
# script's own arguments (even "--" and "--help") reach it untouched; and
# every worker gets torchrun's variables, a run id and an error file of its
# own per rank and attempt.
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/common.bash"
need_cpus 2

cat >"$WORK/show.py" <<'PY'
import os, sys
print("script", os.environ["RANK"], os.environ["LOCAL_RANK"], os.environ["WORLD_SIZE"], "unbuffered" if "-u" in sys.orig_argv else "buffered",
      sys.argv[1:], flush=True)
PY
mkdir -p "$WORK/pkg"
cat >"$WORK/pkg/showmod.py" <<'PY'
import os, sys
print("module", __name__, os.environ["RANK"], sys.argv[1:], flush=True)
PY

run_mptrain torchrun --nproc-per-node 2 "$WORK/show.py" a -- --help
expect_code 0
for rank in 0 1; do
  grep -qF "[$rank] script $rank $rank 2 unbuffered ['a', '--', '--help']" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "script rank $rank"; }
done

PYTHONPATH=$WORK/pkg run_mptrain torchrun --nproc_per_node=2 -m showmod x y
expect_code 0
grep -qF "[1] module __main__ 1 ['x', 'y']" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "-m"; }
PYTHONPATH=$WORK/pkg run_mptrain torchrun --module --nproc_per_node 1 showmod
expect_code 0
grep -qF "[0] module __main__ 0 []" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "--module"; }

run_mptrain torchrun --run-path --nproc-per-node 1 "$WORK/show.py" z
expect_code 0
grep -qF "[0] script 0 0 1 unbuffered ['z']" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "--run-path"; }

# The interpreter: MPTRAIN_PYTHON first, then torchrun's PYTHON_EXEC.
cat >"$WORK/fake-python" <<'SH'
#!/bin/sh
echo "fake python: $*"
SH
chmod +x "$WORK/fake-python"
MPTRAIN_PYTHON=$WORK/fake-python run_mptrain torchrun --nproc-per-node 1 train.py --lr 1
expect_code 0
grep -qF "[0] fake python: -u train.py --lr 1" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "MPTRAIN_PYTHON"; }
MPTRAIN_PYTHON= PYTHON_EXEC=$WORK/fake-python run_mptrain torchrun --nproc-per-node 1 -m pkg.train
expect_code 0
grep -qF "[0] fake python: -u -m pkg.train" "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "PYTHON_EXEC"; }

# --no-python (both spellings): the program itself, with torchrun's variables.
show_env='echo "$RANK $LOCAL_RANK $WORLD_SIZE $ROLE_NAME $TORCHELASTIC_RUN_ID $TORCHELASTIC_USE_AGENT_STORE $TORCHELASTIC_RESTART_COUNT $TORCHELASTIC_ERROR_FILE $OMP_NUM_THREADS $MASTER_PORT"'
run_mptrain torchrun --nproc_per_node 2 --no_python --rdzv_id job42 --role trainer --master-port 29617 sh -c "$show_env"
expect_code 0
for rank in 0 1; do
  line=$(grep "^\[$rank\] " "$WORK/out") || { cat "$WORK/out" "$WORK/err" >&2; fail "no line of rank $rank"; }
  read -r _ r lr ws role id store restart errfile threads port <<<"$line"
  [[ "$r $lr $ws $role $id $store $restart $threads $port" == "$rank $rank 2 trainer job42 False 0 1 29617" ]] ||
    fail "rank $rank's variables: $line"
  [[ $errfile == */attempt_0/$rank/error.json ]] || fail "rank $rank's error file: $errfile"
done
[[ $(grep -o '/[^ ]*error.json' "$WORK/out" | sort -u | wc -l) == 2 ]] || fail "the ranks share an error file"

# Without --rdzv-id, a fresh id every run, the same for every rank of a run.
run_mptrain torchrun --nproc-per-node 2 --no-python sh -c 'echo "$TORCHELASTIC_RUN_ID"'
first=$(sed 's/^\[.\] //' "$WORK/out" | sort -u)
[[ $(wc -l <<<"$first") == 1 && $first =~ ^[0-9a-f]{32}$ ]] || fail "the ranks' run ids: $first"
run_mptrain torchrun --nproc-per-node 1 --no-python sh -c 'echo "$TORCHELASTIC_RUN_ID"'
[[ $(sed 's/^\[.\] //' "$WORK/out") != "$first" ]] || fail "two runs got the same fresh id"

# Each restart attempt gets its own error file and TORCHELASTIC_RESTART_COUNT.
run_mptrain torchrun --nproc-per-node 1 --max-restarts 1 --no-python sh -c \
  'echo "attempt $TORCHELASTIC_RESTART_COUNT $TORCHELASTIC_ERROR_FILE"; exit 4'
expect_code 4
grep -q "^\[0\] attempt 0 .*/attempt_0/0/error.json$" "$WORK/out" || { cat "$WORK/out" >&2; fail "attempt 0"; }
grep -q "^\[0\] attempt 1 .*/attempt_1/0/error.json$" "$WORK/out" || { cat "$WORK/out" >&2; fail "attempt 1"; }

# PET_ variables stand for options not given, as torchrun reads them; an option wins.
PET_NPROC_PER_NODE=2 run_mptrain torchrun --dry-run --json --no-python true
expect_code 0
expect_json '(.ranks | length) == 2'
PET_NPROC_PER_NODE=2 run_mptrain torchrun --nproc-per-node 1 --dry-run --json --no-python true
expect_json '(.ranks | length) == 1'
