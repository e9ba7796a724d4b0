# Every man page is clean under mandoc's lint (warnings and errors), names
# every option its command's --help lists, and is installed by cmake --install.
source "$(dirname "$0")/../lib.sh"
command -v mandoc >/dev/null || skip "mandoc is not installed (Debian package mandoc)"

for page in "$MPTRAIN_SOURCE_DIR"/man/*.1; do
  mandoc -T lint -W warning "$page" >"$WORK/lint" 2>&1 || { cat "$WORK/lint"; fail "mandoc lint: $page"; }
done

for command in topo plan run doctor; do
  page="$MPTRAIN_SOURCE_DIR/man/mptrain-$command.1"
  [[ -f "$page" ]] || fail "no man page for $command"
  "$MPTRAIN" "$command" --help | grep -oE -- '^ +(-[a-zA-Z],)?--[a-z][a-z-]*' | sed 's/.*--/--/' | sort -u >"$WORK/options"
  while read -r option; do
    [[ "$option" == --help ]] && continue
    grep -q -- "^\.It Fl ${option#-}\b\|Fl ${option#-}\b" "$page" || fail "mptrain-$command(1) does not document $option"
  done <"$WORK/options"
done

build_dir=$(dirname "$MPTRAIN")
if [[ -f "$build_dir/cmake_install.cmake" ]]; then
  cmake --install "$build_dir" --prefix "$WORK/prefix" >/dev/null || fail "cmake --install failed"
  for page in mptrain mptrain-topo mptrain-plan mptrain-run mptrain-doctor; do
    [[ -f "$WORK/prefix/share/man/man1/$page.1" ]] || fail "$page.1 is not installed"
  done
  [[ -x "$WORK/prefix/bin/mptrain" ]] || fail "the binary is not installed"
fi
