#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The habits a newcomer brings from git and ovni (issue 29):
#   - `weft help CMD` prints CMD's help; a mistyped command gets "did you
#     mean"; every command takes --version, which names the licence;
#   - the bash completion written by `weft completion bash` (from the
#     option tables) completes commands, options, option values and model
#     names, driven here through compgen; the zsh one is written too;
#   - `weft models` is one line per model, `weft models NAME` adds its table;
#   - `weft import FILE -o DIR` detects the format and says what it wrote,
#     as `weft synth --format visandor` now does; the loom folders are
#     named as the looms inside them; `weft emu -d` (ovniemu's) is accepted;
#     `weft emu -b` on a trace without a breakdown model says so;
#   - make install PREFIX=... DESTDIR=... installs the binary, the pages, the
#     completions, the views and a modulefile, and make uninstall leaves no
#     file behind (make is called with this build's FLAVOUR: nothing is
#     compiled).
#
#   WEFT=/abs/weft sh test/e2e/habits.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
need WEFT

# ---- help, typos, --version -------------------------------------------------------

test_expect_success 'weft help emu prints emu'"'"'s help' '
	"$WEFT" help emu >"$tmp/help" &&
	"$WEFT" emu --help >"$tmp/help2" &&
	test_cmp "$tmp/help2" "$tmp/help" &&
	test_grep "^Usage: weft emu " "$tmp/help"
'

test_expect_success 'weft help alone lists the commands' '
	"$WEFT" help >"$tmp/help" &&
	test_grep "^  emu  " "$tmp/help" && test_grep "weft help COMMAND" "$tmp/help"
'

test_expect_success 'weft emmu: did you mean emu, exit 2, no list' '
	test_status 2 "$WEFT" emmu 2>"$tmp/err" &&
	echo "weft: unknown command '"'"'emmu'"'"'; did you mean '"'"'emu'"'"'?" >"$tmp/want" &&
	test_cmp "$tmp/want" "$tmp/err"
'

test_expect_success 'weft help sats: did you mean stats' '
	test_status 2 "$WEFT" help sats 2>"$tmp/err" &&
	test_grep "did you mean .stats.\?" "$tmp/err"
'

test_expect_success 'a word far from every command: the commands listed' '
	test_status 2 "$WEFT" frobnicate 2>"$tmp/err" &&
	test_grep "unknown command .frobnicate.; the commands are: emu sync" "$tmp/err"
'

test_expect_success '--version names the licence' '
	"$WEFT" --version >"$tmp/v" &&
	test_grep "^weft [0-9]+\.[0-9]+\.[0-9]+$" "$tmp/v" &&
	test_grep "^License GPL-3.0-or-later" "$tmp/v"
'

test_expect_success 'every command takes --version' '
	for c in emu sync dump top query synth import models check stats plot diff completion; do
		"$WEFT" $c --version >"$tmp/vc" && test_cmp "$tmp/v" "$tmp/vc" || return 1
	done &&
	"$WEFT" synth --format picl --version >"$tmp/vc" && test_cmp "$tmp/v" "$tmp/vc"
'

# ---- completion ----------------------------------------------------------------------

if command -v bash >/dev/null 2>&1; then
	test_setup '"$WEFT" completion bash >"$tmp/weft.bash"'
	# comp WORD...: what the completion offers for the last word
	cat >"$tmp/comp.bash" <<'EOF'
. "$1"
shift
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMPREPLY=()
_weft
printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' '
EOF
	comp() { bash "$tmp/comp.bash" "$tmp/weft.bash" "$@"; }
	test_expect_success 'bash completion: commands' '
		test "$(comp weft em)" = "emu " && test "$(comp weft s)" = "serve stats sync synth "
	'
	test_expect_success 'bash completion: a command'"'"'s options, from its table' '
		test "$(comp weft emu --ou)" = "--output " &&
		test "$(comp weft plot --t)" = "--type " &&
		"$WEFT" plot --help | awk "/^ +-/ { print \$1; if (\$2 ~ /^--/) print \$2 }" | tr -d , |
			LC_ALL=C sort | tr "\n" " " >"$tmp/want" &&
		comp weft plot - >"$tmp/got" && echo >>"$tmp/got" && echo >>"$tmp/want" &&
		test_cmp "$tmp/want" "$tmp/got"
	'
	test_expect_success 'bash completion: option values (--sync, --sync=, --format, synth --format picl)' '
		test "$(comp weft emu --sync "")" = "file messages none " &&
		test "$(comp weft emu --sync = m)" = "messages " &&
		test "$(comp weft emu --format "")" = "charisma picl visandor " &&
		test "$(comp weft synth --format picl --traffic r)" = "random ring "
	'
	test_expect_success 'bash completion: model names, help'"'"'s commands, the shells' '
		test "$(comp weft models no)" = "nodes nosv " &&
		test "$(comp weft help pl)" = "plot " &&
		test "$(comp weft completion "")" = "bash zsh "
	'
	test_expect_success 'bash completion: -o DIR completes directories' '
		mkdir -p "$tmp/dirs/adir" && : >"$tmp/dirs/afile" &&
		test "$(cd "$tmp/dirs" && comp weft emu -o a)" = "adir "
	'
else
	skip "bash completion" "no bash"
fi

test_expect_success 'zsh completion: written, every command in it' '
	"$WEFT" completion zsh >"$tmp/_weft" &&
	test "$(head -n 1 "$tmp/_weft")" = "#compdef weft" &&
	for c in emu sync dump top query synth import models check stats plot; do
		test_grep "^	$c\) _arguments" "$tmp/_weft" || return 1
	done
'

test_expect_success 'weft completion fish: a usage error' '
	test_status 2 "$WEFT" completion fish 2>"$tmp/err" && test_grep "expected bash or zsh" "$tmp/err"
'

# ---- weft models -------------------------------------------------------------------

test_expect_success 'weft models: one line per model, built in' '
	"$WEFT" models >"$tmp/models" &&
	test "$(wc -l <"$tmp/models")" -eq "$(grep -c "^[^ ]" "$tmp/models")" &&
	test_grep "^O ovni +[0-9.]+ +[0-9]+ events  built in$" "$tmp/models" &&
	test_grep "^V nosv +[0-9.]+ +[0-9]+ events  built in \(model file\)$" "$tmp/models" &&
	! grep -q "models/" "$tmp/models"
'

test_expect_success 'weft models nosv: its line, then its events' '
	"$WEFT" models nosv >"$tmp/nosv" &&
	test_grep "^V nosv " "$tmp/nosv" && test_grep "^  VTc " "$tmp/nosv" &&
	test "$(grep -c "^[^ ]" "$tmp/nosv")" -eq 1
'

test_expect_success 'weft models -e: every table' '
	"$WEFT" models -e >"$tmp/all" &&
	test_grep "^  OHx " "$tmp/all" && test_grep "^  VTc " "$tmp/all"
'

# ---- import, synth: detection, summary lines, loom folders ---------------------------

test_setup '"$WEFT" synth --format picl -o "$tmp/p.trf" --records 3000 >"$tmp/synth-picl" &&
	"$WEFT" synth --format charisma -o "$tmp/c.dat" --clients 12 >/dev/null'
test_expect_success 'synth --format visandor says what it wrote, as the others do' '
	"$WEFT" synth --format visandor -o "$tmp/v.vao" >"$tmp/out" &&
	test_grep "^wrote [0-9]+ events \(4 agents, and-parallel\) to $tmp/v.vao$" "$tmp/out" &&
	test_grep "^wrote [0-9]+ records \(" "$tmp/synth-picl"
'
test_expect_success 'weft import FILE -o DIR: the format detected, a summary line' '
	"$WEFT" import "$tmp/p.trf" -o "$tmp/ip" >"$tmp/out" &&
	test "$(cat "$tmp/out")" = "wrote 16 streams of 16 looms ($(find "$tmp/ip" -type f -exec cat {} + | wc -c | tr -d " ") bytes) to $tmp/ip" &&
	"$WEFT" import picl "$tmp/p.trf" -o "$tmp/ip2" >/dev/null &&
	diff -r "$tmp/ip" "$tmp/ip2" &&
	"$WEFT" import -q "$tmp/v.vao" -o "$tmp/iv" >"$tmp/out" && test_cmp /dev/null "$tmp/out"
'
test_expect_success 'weft import visandor FILE --format picl: they differ, exit 2' '
	test_status 2 "$WEFT" import visandor "$tmp/v.vao" --format picl -o "$tmp/bad" 2>"$tmp/err" &&
	test_grep "FORMAT visandor and --format picl differ" "$tmp/err" && test_no_file "$tmp/bad"
'
# looms: "FOLDER LOOM" for each loom folder of a trace that differ
looms() {
	for l in "$1"/loom.*; do
		sed -n 's/^ *"loom": "\(.*\)",$/\1/p' "$l"/*/*/stream.json | sort -u | sed "s|^|$(basename "$l") |"
	done | awk '"loom." $2 != $1'
}
test_expect_success 'import: the loom folders are named as the looms in them (PICL, CHARISMA)' '
	looms "$tmp/ip" >"$tmp/bad" && test_cmp /dev/null "$tmp/bad" &&
	test -d "$tmp/ip/loom.picl.03" &&
	"$WEFT" import -q "$tmp/c.dat" -o "$tmp/ic" &&
	looms "$tmp/ic" >"$tmp/bad" && test_cmp /dev/null "$tmp/bad" &&
	test -d "$tmp/ic/loom.node03"
'

# ---- ovniemu's -d ----------------------------------------------------------------------

test_expect_success 'emu -d (ovniemu'"'"'s debug flag) is accepted, with a note; -q silences it' '
	"$WEFT" synth -o "$tmp/t" --events 2000 >/dev/null &&
	"$WEFT" emu -d -l -o "$tmp/d" "$tmp/t" 2>"$tmp/err" &&
	test_grep "-d \(ovniemu.s debug output\) has no counterpart" "$tmp/err" &&
	"$WEFT" emu -q -d -o "$tmp/d2" "$tmp/t" 2>"$tmp/err" && test_cmp /dev/null "$tmp/err" &&
	cmp "$tmp/d/thread.prv" "$tmp/d2/thread.prv"
'

# ---- emu -b without a breakdown model --------------------------------------------------

test_expect_success 'emu -b on a trace without a breakdown model says so' '
	"$WEFT" emu -b -o "$tmp/b" "$tmp/t" 2>"$tmp/err" &&
	test_grep "^weft: warning: -b: no model of .* has a breakdown view \(nosv with nosv.can_breakdown" "$tmp/err" &&
	! ls "$tmp/b" | grep -q breakdown &&
	"$WEFT" synth -o "$tmp/tn" --models nosv --events 5000 >/dev/null &&
	"$WEFT" emu -b -o "$tmp/bn" "$tmp/tn" 2>"$tmp/err" &&
	! grep -q "no model of" "$tmp/err" && test -f "$tmp/bn/nosv-breakdown.prv"
'

test_expect_success 'a run without -b into the same directory retires the breakdown trace' '
	"$WEFT" emu -q -o "$tmp/bn" "$tmp/tn" &&
	test -f "$tmp/bn/thread.prv" && ! ls "$tmp/bn" | grep -q breakdown
'

# ---- make install, make uninstall ---------------------------------------------------

if command -v make >/dev/null 2>&1 && [ -n "${FLAVOUR:-}" ] && [ -f "$top/config.mk" ]; then
	inst() {
		env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES make -s -C "$top" FLAVOUR="$FLAVOUR" \
			PREFIX=/opt/weft DESTDIR="$tmp/root" "$@"
	}
	test_expect_success 'make install: binary, pages, completions, views, modulefile' '
		inst install &&
		test -x "$tmp/root/opt/weft/bin/weft" &&
		test -f "$tmp/root/opt/weft/share/man/man1/weft-emu.1" &&
		test -f "$tmp/root/opt/weft/share/bash-completion/completions/weft" &&
		test -f "$tmp/root/opt/weft/share/zsh/site-functions/_weft" &&
		test -d "$tmp/root/opt/weft/share/weft/cfg" &&
		test -f "$tmp/root/opt/weft/share/doc/weft/LICENSE" &&
		test_grep "^set prefix /opt/weft$" "$tmp/root/opt/weft/share/weft/modulefile" &&
		"$tmp/root/opt/weft/bin/weft" --version >/dev/null
	'
	test_expect_success 'make uninstall leaves no file behind' '
		inst uninstall &&
		find "$tmp/root" ! -type d >"$tmp/left" &&
		test_cmp /dev/null "$tmp/left"
	'
else
	skip "make install, make uninstall" "run from make check (FLAVOUR set, a configured tree)"
fi

finish
