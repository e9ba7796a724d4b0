# Every man page is clean under mandoc's lint (warnings and errors), names
# every option its command's --help lists, gives the same default as --help
# for every option that has one (so does the README where it names one), and
# is installed by cmake --install.
source "$(dirname "$0")/../lib.sh"
command -v mandoc >/dev/null || skip "mandoc is not installed (Debian package mandoc)"

# help_defaults COMMAND: "--option<TAB>default" for each option whose --help
# line shows a default ("--batch-size INT:at least 1 [64]"): the first
# bracketed text on the option's line.
help_defaults() {
  "$MPTRAIN" "$1" --help | sed -nE 's/^ +(-[a-zA-Z],)?(--[a-z][a-z-]*) [^[]*\[([^]]*)\].*/\2\t\3/p'
}

# man_entry PAGE OPTION: the text of the list entry whose .It line names
# OPTION, up to the next entry of the same list, on one line with the mdoc
# macro names and escapes taken out (".Cm core )" reads "core )").
man_entry() {
  awk -v name="Fl ${2#-} " '
    function flatten(line) {
      gsub(/\\-/, "-", line)
      gsub(/\\&/, "", line)
      if (line !~ /^\./) return line
      sub(/^\.[A-Za-z]+ */, "", line)
      gsub(/(^| )(Em|Ar|Cm|Pa|Fl|Pq|Ql|Ns|No|Li|Dv|Ev|Xr|Sx|Dq|Sy|Va) /, " ", line)
      return line
    }
    inside && /^\.Bl/ { depth++ }
    inside && /^\.El/ { if (depth == 0) exit; depth-- }
    inside && /^\.It/ && depth == 0 { exit }
    inside { text = text " " flatten($0) }
    !inside && /^\.It / && index($0 " ", name) { inside = 1 }
    END { print text }
  ' "$1" | tr -s ' '
}

# says_default TEXT VALUE: TEXT says "default VALUE" or "Default: VALUE",
# VALUE not followed by more of a word or number ("default 0.5" is not "default 0.50").
says_default() {
  grep -qP -- "[Dd]efault:? \Q$2\E(?![\w]|\.\d)" <<<"$1"
}

for page in "$MPTRAIN_SOURCE_DIR"/man/*.1; do
  mandoc -T lint -W warning "$page" >"$WORK/lint" 2>&1 || { cat "$WORK/lint"; fail "mandoc lint: $page"; }
done

for command in topo plan run doctor tune; do
  page="$MPTRAIN_SOURCE_DIR/man/mptrain-$command.1"
  [[ -f "$page" ]] || fail "no man page for $command"
  "$MPTRAIN" "$command" --help | grep -oE -- '^ +(-[a-zA-Z],)?--[a-z][a-z-]*' | sed 's/.*--/--/' | sort -u >"$WORK/options"
  while read -r option; do
    [[ "$option" == --help ]] && continue
    grep -q -- "^\.It Fl ${option#-}\b\|Fl ${option#-}\b" "$page" || fail "mptrain-$command(1) does not document $option"
  done <"$WORK/options"
done

# mptrain torchrun prints its own help (torchrun's options and mptrain's): each is in its page.
page="$MPTRAIN_SOURCE_DIR/man/mptrain-torchrun.1"
[[ -f "$page" ]] || fail "no man page for torchrun"
"$MPTRAIN" torchrun --help | grep -oE -- '^  --?[a-z][a-z-]*' | sed 's/^ *//' | sort -u >"$WORK/options"
[[ $(wc -l <"$WORK/options") -gt 30 ]] || fail "torchrun --help lists too few options"
while read -r option; do
  grep -q -- "Fl ${option#-}\b" "$page" || fail "mptrain-torchrun(1) does not document $option"
done <"$WORK/options"

disagreements=()
for command in topo plan run doctor tune; do
  page="$MPTRAIN_SOURCE_DIR/man/mptrain-$command.1"
  help_defaults "$command" >"$WORK/defaults"
  while IFS=$'\t' read -r option value; do
    says_default "$(man_entry "$page" "$option")" "$value" ||
      disagreements+=("mptrain-$command(1) does not say the default $command --help shows for $option: $value")
    # The README names some defaults as "`--epochs` (1)".
    readme=$(grep -oP -- "\`\Q$option\E\` \(\K[^)]*" "$MPTRAIN_SOURCE_DIR/README.md" | head -n 1)
    [[ -z "$readme" || "$readme" == "$value" ]] ||
      disagreements+=("README.md gives $option the default $readme, $command --help $value")
  done <"$WORK/defaults"
done
[[ ${#disagreements[@]} -eq 0 ]] || { printf '%s\n' "${disagreements[@]}" >&2; fail "defaults disagree"; }
[[ $(grep -c -- --batch-size <(help_defaults run)) == 1 ]] || fail "no default read from run --help"

# mptrain(1)'s synopsis names every command `mptrain --help` lists, and its --bind every value run takes.
page="$MPTRAIN_SOURCE_DIR/man/mptrain.1"
synopsis=$(sed -n '/^\.Sh SYNOPSIS/,/^\.Sh DESCRIPTION/p' "$page")
for command in $("$MPTRAIN" --help | sed -n '/^Subcommands:/,/^$/p' | awk 'NF && !/^Subcommands:/ { print $1 }'); do
  grep -q "^\.Cm $command\$" <<<"$synopsis" || fail "mptrain(1)'s synopsis leaves out $command"
done
binds=$("$MPTRAIN" run --help | grep -oP -- '--bind TEXT:\{\K[^}]*' | tr ',' ' ')
[[ -n "$binds" ]] || fail "no --bind values read from run --help"
for value in $binds; do
  grep -q "^\.It Fl -bind Cm .*\b$value\b" "$page" || fail "mptrain(1)'s --bind leaves out $value"
done
# --keep-env names in mptrain-run(1) every variable its --help names.
keep=$(man_entry "$MPTRAIN_SOURCE_DIR/man/mptrain-run.1" --keep-env)
for variable in $("$MPTRAIN" run --help | grep -A1 -- '--keep-env' | grep -oE '[A-Z][A-Z_]+_(THREADS|COUNT)|GOMAXPROCS'); do
  grep -q "\b$variable\b" <<<"$keep" || fail "mptrain-run(1)'s --keep-env leaves out $variable"
done

build_dir=$(dirname "$MPTRAIN")
if [[ -f "$build_dir/cmake_install.cmake" ]]; then
  cmake --install "$build_dir" --prefix "$WORK/prefix" >/dev/null || fail "cmake --install failed"
  for page in mptrain mptrain-topo mptrain-plan mptrain-run mptrain-doctor mptrain-torchrun mptrain-tune; do
    [[ -f "$WORK/prefix/share/man/man1/$page.1" ]] || fail "$page.1 is not installed"
  done
  [[ -x "$WORK/prefix/bin/mptrain" ]] || fail "the binary is not installed"
fi
