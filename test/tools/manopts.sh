#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The man pages name exactly the options the commands have. Each command's
# options are one table (src/cli/opts.h), which `weft CMD --help` prints;
# its page's OPTIONS section (the .TP tags) must name the same short and
# long options, no more, no fewer, and its SYNOPSIS none the command lacks.
# A new option without its page entry, or a page keeping a removed one,
# fails here.
#
#   WEFT=/abs/weft sh test/tools/manopts.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT

# The option tokens (-x, --name) of the "Options:" block of a --help text.
help_opts() {
	awk '/^Options:$/ { on = 1; next } on && /^$/ { exit }
	     on && /^  -[A-Za-z], --/ { print substr($1, 1, 2); sub(/^  -[A-Za-z], /, ""); print $1; next }
	     on && /^      --/ { print $1 }' | sed 's/\[*=.*//' | sort -u
}

# The option tokens of roff lines: \- as -, font escapes dropped.
roff_opts() {
	sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -o -E '(^|[] "(,[])--?[A-Za-z][A-Za-z0-9-]*' |
		sed 's/^[] "(,[]//' | sort -u
}

# The tags (the line after each .TP or .TQ) of the section of PAGE whose heading
# line is exactly HEAD (".SH OPTIONS", ".SS PICL options"), up to the next
# heading.
section_tags() {
	awk -v head="$2" '$0 == head { on = 1; next } on && /^\.S[HS] / { exit }
	     on && tag { print; tag = 0 } on && /^\.T[PQ]/ { tag = 1 }' "$1"
}

# check NAME PAGE HEAD ARGS...: the section's tags against `weft ARGS --help`.
check() {
	name=$1 pagefile=$2 head=$3
	shift 3
	if ! "$WEFT" "$@" --help >"$tmp/help" 2>"$tmp/err"; then
		fail "$name: --help" "exit $? ($(head -n 1 "$tmp/err"))"
		return
	fi
	help_opts <"$tmp/help" >"$tmp/have"
	if [ ! -s "$tmp/have" ]; then
		fail "$name: --help" "lists no option"
		return
	fi
	cat "$tmp/have" >>"$tmp/all.$pagefile"
	section_tags "$top/doc/man/$pagefile" "$head" | roff_opts >"$tmp/doc"
	expect "$name: $pagefile '$head' names the options of weft $* --help (< table only, > page only)" \
		"$(diff "$tmp/have" "$tmp/doc" | grep '^[<>]' | tr '\n' ' ')" ""
}

check emu weft-emu.1 ".SH OPTIONS" emu
check sync weft-sync.1 ".SH OPTIONS" sync
check dump weft-dump.1 ".SH OPTIONS" dump
check top weft-top.1 ".SH OPTIONS" top
check query weft-query.1 ".SH OPTIONS" query
check serve weft-serve.1 ".SH OPTIONS" serve
check attach weft-attach.1 ".SH OPTIONS" attach
check stats weft-stats.1 ".SH OPTIONS" stats
check check weft-check.1 ".SH OPTIONS" check
check import weft-import.1 ".SH OPTIONS" import
check models weft-models.1 ".SH OPTIONS" models
check plot weft-plot.1 ".SH OPTIONS" plot
check completion weft-completion.1 ".SH OPTIONS" completion
check diff weft-diff.1 ".SH OPTIONS" diff
check synth weft-synth.1 ".SH OPTIONS" synth
check "synth picl" weft-synth.1 ".SS PICL options" synth --format picl
check "synth visandor" weft-synth.1 ".SS VisAndOr options" synth --format visandor
check "synth charisma" weft-synth.1 ".SS CHARISMA options" synth --format charisma

# every page's SYNOPSIS names only options its command (or its formats) has
for f in "$tmp"/all.*; do
	page=${f#"$tmp/all."}
	sort -u "$f" >"$tmp/have"
	cmd=${page#weft-}
	cmd=${cmd%.1}
	# the lines of its own forms (query's page also shows weft dump --filter)
	awk -v cmd="$cmd" '/^\.SH SYNOPSIS/ { on = 1; next } on && /^\.SH / { exit }
	     on && /^\.B weft / { cur = $3 } on && cur == cmd' "$top/doc/man/$page" |
		roff_opts >"$tmp/syn"
	expect "$page: SYNOPSIS names no option the command lacks" \
		"$(comm -13 "$tmp/have" "$tmp/syn" | tr '\n' ' ')" ""
done

# every command of `weft --help` has its page
"$WEFT" --help | awk '/^Commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }' >"$tmp/cmds"
nopage=
while read -r c; do
	[ -f "$top/doc/man/weft-$c.1" ] || nopage="$nopage $c"
done <"$tmp/cmds"
expect "every command of weft --help has a page doc/man/weft-CMD.1" \
	"$([ -s "$tmp/cmds" ] && echo listed):$nopage" "listed:"

# and no weft-CMD page is left out
for p in "$top"/doc/man/weft-*.1; do
	p=$(basename "$p")
	expect "$p: checked" "$([ -f "$tmp/all.$p" ] && echo yes)" yes
done

finish
