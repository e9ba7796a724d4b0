# The placement library loaded into programs it was not written for changes
# nothing: the ELF programs of a directory (MPTRAIN_SWEEP_DIR, /usr/bin by
# default; at most MPTRAIN_SWEEP_MAX of them, evenly spread) run with --version, as an unprivileged user with stdin from
# /dev/null, prints the same and exits the same with the library preloaded
# as bare. A program whose bare runs differ from each other (a clock, a pid,
# a random name in its output) or that the time limit stops is left out and
# counted; a difference must show twice. A library that crashes one (a
# constructor calling dlsym before the library's own ran, as libGLdispatch
# does for stress-ng) fails this.
# ctest: timeout 600
# ctest: label long (5 s or more in a Release build, in the programs it runs and the windows it watches: Release stage only)
source "$(dirname "$0")/../lib.sh"
dir=${MPTRAIN_SWEEP_DIR:-/usr/bin}
library="$(dirname "$MPTRAIN")/libmptrain_place.so"
[[ -r $library ]] || fail "no placement library beside $MPTRAIN"
# The library is built alike in every tree (without sanitizer flags): one sweep, in the Release tree, is enough.
if sanitizer_build; then skip "the placement library is the same in this sanitizer tree; the Release tree's run sweeps it"; fi
command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed"
id nobody >/dev/null 2>&1 || fail "the user nobody is needed"

# The library and a working folder that nobody can read and write.
mkdir -p "$WORK/lib" "$WORK/cwd"
cp "$library" "$WORK/lib/libmptrain_place.so"
chmod 755 "$WORK" "$WORK/lib" "$WORK/lib/libmptrain_place.so"
chmod 1777 "$WORK/cwd"
setpriv --reuid=nobody --regid=nogroup --clear-groups test -r "$WORK/lib/libmptrain_place.so" ||
  fail "nobody cannot read $WORK/lib: give TMPDIR a folder every user can enter"

cat >"$WORK/compare.sh" <<'COMPARE'
#!/bin/bash
# compare.sh LIBRARY PROGRAM: one line, "same", "unstable" or "differs: ...". A run
# the time limit ended (124, 137) compares with nothing; a difference must show twice.
# (One bash per program, its output in one file per compare.sh: a sweep of a
# thousand programs spends its time starting processes.)
cd "$(dirname "$0")/cwd" || exit 1
out=../out.$$
# once PRELOAD: PROGRAM run once (PRELOAD a library path, or "" for bare): "CODE DIGEST".
once() {
  local run=("$2")
  [[ -n $1 ]] && run=(env LD_PRELOAD="$1" "$2")
  timeout -k 1 2 setpriv --reuid=nobody --regid=nogroup --clear-groups "${run[@]}" --version </dev/null >"$out" 2>&1
  local code=$? digest
  digest=$(head -c 4000 "$out" | md5sum)
  echo "$code ${digest%% *}"
}
timed_out() { [[ $1 == 124\ * || $1 == 137\ * ]]; }
bare=$(once "" "$2")
# A program that waits out the limit bare (a terminal, a display, a server it looks for) compares with
# nothing: left out at once, not run three more times to the limit.
timed_out "$bare" && { echo "unstable $2"; exit 0; }
placed=$(once "$1" "$2")
[[ $bare == "$placed" ]] && { echo "same $2"; exit 0; }
again=$(once "" "$2")
if timed_out "$bare" || timed_out "$placed" || timed_out "$again" || [[ $bare != "$again" ]]; then
  echo "unstable $2"
  exit 0
fi
placed_again=$(once "$1" "$2")
[[ $placed_again == "$bare" ]] && { echo "same $2"; exit 0; }
echo "differs $2: bare [$bare] preloaded [$placed] then [$placed_again]"
COMPARE
chmod 755 "$WORK/compare.sh"

for program in "$dir"/*; do
  [[ -f $program && -x $program && $(head -c 4 "$program" 2>/dev/null | tr -d '\0') == $'\x7fELF' ]] && echo "$program"
done >"$WORK/programs"
count=$(wc -l <"$WORK/programs")
((count >= 10)) || fail "$dir holds $count ELF programs: too few to sweep"
# At most MPTRAIN_SWEEP_MAX programs (default 80; 0: all), spread evenly over the sorted list: a
# Debian with the test packages holds ~1,400, and each costs a dozen process starts.
max=${MPTRAIN_SWEEP_MAX:-80}
if ((max > 0 && count > max)); then
  # stress-ng always: its libGLdispatch calls dlsym from a constructor, the crash this test found once.
  awk -v n="$count" -v m="$max" 'int((NR - 1) * m / n) != int(NR * m / n) || $0 ~ /\/stress-ng$/' \
    "$WORK/programs" >"$WORK/chosen"
  echo "sweeping $(wc -l <"$WORK/chosen") of the $count ELF programs of $dir, evenly spread (MPTRAIN_SWEEP_MAX=0: all)"
  mv "$WORK/chosen" "$WORK/programs"
  count=$(wc -l <"$WORK/programs")
fi

xargs -d '\n' -P "$(nproc)" -n 1 "$WORK/compare.sh" "$WORK/lib/libmptrain_place.so" <"$WORK/programs" >"$WORK/results"
(($(wc -l <"$WORK/results") == count)) || fail "$(wc -l <"$WORK/results") results for $count programs"
unstable=$(grep -c '^unstable ' "$WORK/results")
echo "swept $count programs of $dir: $(grep -c '^same ' "$WORK/results") the same, $unstable unstable bare (left out)"
grep '^unstable ' "$WORK/results" | head -20
# A directory whose programs mostly change run to run proves nothing.
((unstable * 10 <= count)) || fail "$unstable of $count programs print differently from run to run"
if grep -q '^differs ' "$WORK/results"; then
  grep '^differs ' "$WORK/results" >&2
  fail "the placement library changed what $(grep -c '^differs ' "$WORK/results") programs print or return"
fi
exit 0
