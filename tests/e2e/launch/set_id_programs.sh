# A set-user-ID program that does not change who runs it (root running a
# set-user-ID-root program, a user their own) gets the placement library
# like any other and no warning; one that changes the user (set-user-ID to
# another user) is named: the loader runs it in secure mode, without the
# library.
source "$(dirname "$0")/../lib.sh"
cp "$(command -v grep)" "$WORK/sgrep"
chmod 4755 "$WORK/sgrep"  # set-user-ID, owned by whoever runs the test
run_mptrain run -n 1 -- "$WORK/sgrep" -c libmptrain_place /proc/self/maps
expect_code 0
grep -q '^\[0\] [1-9]' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "the library did not load into its owner's set-user-ID program"; }
! grep -q "cannot run inside" "$WORK/err" || { cat "$WORK/err" >&2; fail "warned that the library cannot run inside a program it ran in"; }

(($(id -u) == 0)) || { echo "not root: the case of another owner's set-user-ID program needs chown, not run"; exit 0; }
chown nobody "$WORK/sgrep" && chmod 4755 "$WORK/sgrep"
chmod o+x "$WORK"
run_mptrain run -n 1 -- "$WORK/sgrep" -c libmptrain_place /proc/self/maps
grep -q '^\[0\] 0$' "$WORK/out" || { cat "$WORK/out" "$WORK/err" >&2; fail "the library loaded into a secure exec?"; }
expect_stderr "sgrep is set-user-ID or set-group-ID, so mptrain's placement library cannot run inside it"
exit 0
