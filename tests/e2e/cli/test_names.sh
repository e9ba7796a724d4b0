# Every Catch2 test name is one CTest test, run by its name as Catch2's
# filter: CTest splits a name at each semicolon, and the filter reads a
# backslash as an escape, so such a name matches no
# test case, and the test then runs nothing and passes. No TEST_CASE name in
# the sources holds one.
source "$(dirname "$0")/../lib.sh"
found=$(grep -rnE 'TEST_CASE\("([^"\\]|\\.)*(;|\\\\)' "$MPTRAIN_SOURCE_DIR/tests" --include='*.cpp' || true)
[[ -z $found ]] || fail "test names with a semicolon or a backslash (CTest would run nothing for them): $found"
exit 0
