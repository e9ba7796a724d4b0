# The placement library goes into every process of every worker, as root
# too: mptrain preloads it only from a path LD_PRELOAD does not split (a
# space or colon made the workers run unplaced and load the rest of the path
# relative to their folder) and where no user but root and this one could
# have put or changed it (a copy of mptrain in a world-writable folder
# loaded ../lib/mptrain/libmptrain_place.so unchecked). Otherwise it says
# why: an error where --children needs the library, a warning and unplaced
# descendants where not.
source "$(dirname "$0")/../lib.sh"
library="$(dirname "$MPTRAIN")/libmptrain_place.so"
[[ -f $library ]] || fail "no placement library beside $MPTRAIN"
"$MPTRAIN" plan -n 1 -t 2 >/dev/null 2>&1 || skip "fewer than 2 usable CPUs"

# install DIR: a copy of mptrain in DIR/bin and its library in DIR/lib/mptrain, as cmake --install lays them out.
install() {
  mkdir -p "$1/bin" "$1/lib/mptrain"
  cp "$MPTRAIN" "$1/bin/mptrain"
  cp "$library" "$1/lib/mptrain/"
}
# refuses_to_place BINARY PATTERN: --children 2 (which needs the library) is refused naming PATTERN, and a plain
# run warns and preloads nothing of that folder.
refuses_to_place() {
  "$1" run -n 1 -t 2 --children 2 -- true >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 1
  expect_stderr "^mptrain: error: .*$2"
  "$1" run -n 1 -t 2 -- sh -c 'echo "preload=${LD_PRELOAD-}"' >"$WORK/out" 2>"$WORK/err"
  code=$?
  expect_code 0
  expect_stderr "^mptrain: warning: .*$2"
  ! grep -q "preload=.*$(dirname "$(dirname "$1")")" "$WORK/out" || fail "$1: the library was preloaded: $(cat "$WORK/out")"
}

install "$WORK/with space"
refuses_to_place "$WORK/with space/bin/mptrain" "holds a space or colon, which LD_PRELOAD would split"
install "$WORK/with:colon"
refuses_to_place "$WORK/with:colon/bin/mptrain" "holds a space or colon, which LD_PRELOAD would split"

install "$WORK/shared"
chmod 777 "$WORK/shared/lib/mptrain"
refuses_to_place "$WORK/shared/bin/mptrain" "$WORK/shared/lib/mptrain \(everyone may write to it\)"
chmod 755 "$WORK/shared/lib/mptrain"
if [[ $(id -u) == 0 ]]; then
  chown "$(id -u nobody)" "$WORK/shared/lib/mptrain/libmptrain_place.so"
  refuses_to_place "$WORK/shared/bin/mptrain" "libmptrain_place.so \(it belongs to uid $(id -u nobody)\)"
  chown 0 "$WORK/shared/lib/mptrain/libmptrain_place.so"
else
  echo "note: not root: a library of another user's was not tried (it needs chown)" >&2
fi
# Installed right, the same copy places its workers.
"$WORK/shared/bin/mptrain" run -n 1 -t 2 --children 2 -- true >"$WORK/out" 2>"$WORK/err"
code=$?
expect_code 0
echo PASS
