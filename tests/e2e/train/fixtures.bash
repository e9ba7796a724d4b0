# Helpers for the training end-to-end tests (sourced; not a test itself).

# REAL_DATA: the installed Fashion-MNIST set.
REAL_DATA=/usr/share/datasets/fashion-mnist

# require_real_data: skip unless the Fashion-MNIST package is installed.
require_real_data() {
  [[ -e "$REAL_DATA/train-images-idx3-ubyte.gz" || -e "$REAL_DATA/train-images-idx3-ubyte" ]] ||
    skip "no Fashion-MNIST in $REAL_DATA (Debian package dataset-fashion-mnist)"
}

# be32 N: N as four big-endian bytes (printf escapes).
be32() { printf '\\x%02x\\x%02x\\x%02x\\x%02x' $(($1 >> 24 & 255)) $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }

# make_idx_set DIR PREFIX COUNT: writes COUNT random 28x28 images and labels 0,1,…,9,0,… as DIR/PREFIX-*-ubyte.
make_idx_set() {
  local dir=$1 prefix=$2 count=$3
  mkdir -p "$dir"
  { printf "\\x00\\x00\\x08\\x03$(be32 "$count")$(be32 28)$(be32 28)"; head -c $((count * 784)) /dev/urandom; } \
    >"$dir/$prefix-images-idx3-ubyte"
  { printf "\\x00\\x00\\x08\\x01$(be32 "$count")"; for ((i = 0; i < count; i++)); do printf "\\x0$((i % 10))"; done; } \
    >"$dir/$prefix-labels-idx1-ubyte"
}

# make_small_data [TRAIN [TEST [DIR]]]: a random data set in DIR ($WORK/data by default) with
# TRAIN training images (64 by default) and TEST test images (16 by default), as make_idx_set writes them.
make_small_data() {
  make_idx_set "${3:-$WORK/data}" train "${1:-64}"
  make_idx_set "${3:-$WORK/data}" t10k "${2:-16}"
}

# start_endless_training ARGS...: starts `mptrain run -n 2 -t 1 --data $WORK/data --model logreg
# --epochs 100000 ARGS` in the background (start_mptrain: its pid in $launcher) and waits until its two
# workers run; their pids in $workers.
start_endless_training() {
  start_mptrain run -n 2 -t 1 --data "$WORK/data" --model logreg --epochs 100000 "$@"
  workers=$(wait_for_workers "$launcher" 2) || exit 1
}

# expect_resumes CHECKPOINT [MODEL]: `mptrain run` resumes from CHECKPOINT (a MODEL, logreg by default,
# trained on $WORK/data) and exits 0.
expect_resumes() {
  run_mptrain run -n 1 -t 1 --data "$WORK/data" --model "${2:-logreg}" --resume "$1" --epochs 0
  expect_code 0
}

# expect_save_refused PATH PATTERN: `mptrain run -n 1 -t 1 --data $WORK/data --model logreg
# --save-model PATH` is refused before training (refused 2 PATTERN), and a regular file PATH is left as it was.
expect_save_refused() {
  [[ -f "$1" ]] && cp "$1" "$WORK/before-save"
  refused 2 "$2" run -n 1 -t 1 --data "$WORK/data" --model logreg --save-model "$1"
  [[ ! -f "$1" ]] || cmp -s "$1" "$WORK/before-save" || fail "$1 was changed"
}

# shm_listing: the names in /dev/shm that could be mptrain's, sorted (the training keeps its
# memory in memfds, which have no name there; other tests' programs, torch's among them, come and go).
shm_listing() { ls -A /dev/shm 2>/dev/null | grep -i mptrain | sort; }

# worker_pids PARENT: the training workers of mptrain PARENT — its children
# in a process group of their own (its watchdog stays in PARENT's group).
worker_pids() {
  local group
  group=$(ps -o pgid= -p "$1" | tr -d ' ')
  [[ -n "$group" ]] || return 0
  ps -o pid=,pgid= --ppid "$1" | awk -v group="$group" '$2 != group { print $1 }'
}

# wait_for_workers PARENT N: waits (up to 60 s) until mptrain PARENT runs N
# workers; prints their pids, fails when they do not appear.
wait_for_workers() {
  local workers
  for _ in $(seq 600); do
    workers=$(worker_pids "$1")
    if [[ $(wc -w <<<"$workers") -ge $2 ]]; then
      echo "$workers"
      return 0
    fi
    sleep 0.1
  done
  kill -9 "$1" 2>/dev/null
  fail "mptrain did not start $2 workers"
}
