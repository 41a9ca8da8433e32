#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# ovni's own views on weft's outputs, where ovni's users keep them (issue
# 23, class 7). For one trace of each runtime model of the ovniemu
# fixtures (test/fixtures/ovniemu), weft's output must have, at ovni's path
# under cfg/ (cfg/thread/ovni/state.cfg, cfg/cpu/nosv/subsystem.cfg...),
# every view ovni 1.14.0 installs (test/fixtures/ovni-views.tsv) whose
# event type ovniemu wrote with a value other than 0 in the file the view
# opens (thread.prv, cpu.prv, the breakdown trace of -b); those views pass
# `weft check --views`; and every .pcf weft writes has ovniemu's colour
# table (STATES_COLOR), as the fixture's .pcf of the same name has it, in
# which `weft plot --type T` draws.
#
#   WEFT=/abs/weft sh test/e2e/ovniviews.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/ovniemu
list=$top/test/fixtures/ovni-views.tsv

# nonzero FILE: the event types FILE (a .prv, or .prv.gz) has a value
# other than 0 of, " T1 T2 ... "
nonzero() {
	gzip -dcf "$1" | awk -F: '$1 == 2 { for (i = 7; i < NF; i += 2) if ($(i + 1) != 0) t[$i] = 1 }
		END { for (k in t) printf " %s", k; print " " }'
}
# colours FILE: the STATES_COLOR lines of a .pcf, without blanks
colours() {
	sed -n '/^STATES_COLOR/,/^$/p' "$1" | tr -d ' '
}
# prv DIR NAME: DIR/NAME.prv or DIR/NAME.prv.gz, whichever is there
prv() {
	if [ -f "$1/$2.prv" ]; then echo "$1/$2.prv"; else echo "$1/$2.prv.gz"; fi
}

total=0
# Each row: CASE FLAGS BREAKDOWN, BREAKDOWN the folder (under the case)
# holding ovniemu's MODEL-breakdown.* for -b ("." the case itself, "-"
# none).
while read -r case flags bd; do
	name=$(echo "$case" | tr / -)
	cp -R "$fix/$case/trace" "$tmp/$name"
	find "$tmp/$name" -name '*.gz' -exec gzip -d {} \;
	out=$tmp/$name.out
	[ "$flags" = - ] && flags=
	# shellcheck disable=SC2086 # FLAGS: words
	if ! "$WEFT" emu -q $flags -o "$out" "$tmp/$name" 2>"$tmp/err" </dev/null; then
		fail "$case: emu" "$(head -3 "$tmp/err")"
		continue
	fi
	missing= n=0
	while IFS='	' read -r path file type; do
		case "$path" in '#'*) continue ;; esac
		model=${path#*/}
		model=${model%%/*}
		case "$file" in
		breakdown)
			[ "$bd" = - ] && continue
			ref=$(prv "$fix/$case/$bd" "$model-breakdown")
			;;
		*) ref=$(prv "$fix/$case" "$file") ;;
		esac
		[ -f "$ref" ] || continue
		case "$(nonzero "$ref")" in *" $type "*) ;; *) continue ;; esac
		n=$((n + 1))
		[ -f "$out/cfg/$path" ] || missing="$missing $path"
	done <"$list"
	total=$((total + n))
	if [ "$n" -eq 0 ]; then
		fail "$case: ovni's views" "no view of ovni's fits this trace: a useless case"
	else
		expect "$case: ovni's $n views of what ovniemu wrote, at ovni's paths" "$missing" ""
	fi
	if "$WEFT" check -q --views "$out" 2>"$tmp/err"; then
		pass "$case: weft check --views"
	else
		fail "$case: weft check --views" "$(head -3 "$tmp/err")"
	fi
	for pcf in thread cpu; do
		expect "$case: $pcf.pcf has ovniemu's colour table" "$(colours "$out/$pcf.pcf")" \
			"$(colours "$fix/$case/$pcf.pcf")"
	done
	if [ "$bd" != - ]; then
		for p in "$fix/$case/$bd"/*-breakdown.pcf; do
			b=$(basename "$p")
			expect "$case: $b has ovniemu's colour table" "$(colours "$out/$b")" "$(colours "$p")"
		done
	fi
done <<'EOF'
ovni/flush -l -
ovni/libovni-mark -l -
nosv/task-types -b breakdown
nosv/hwc -l -
nanos6/task-types -b breakdown
nanos6/breakdown-no-black -b .
openmp/nested-ws -b breakdown
mpi/func -l -
tampi/ss-comm -l -
EOF
# weft plot draws a value in the .pcf's colour: nOS-V subsystem 11 ("Task:
# In body") of nosv/task-types in ovniemu's entry 11, pink
out=$tmp/nosv-task-types.out
if "$WEFT" plot -q --type 13 -o "$tmp/plot.svg" "$out/thread.prv" 2>"$tmp/err"; then
	expect "plot --type 13: subsystem 11 in the .pcf's colour" \
		"$(colours "$out/thread.pcf" | grep '^11{'):$(grep -o '#[0-9a-f]\{6\}' "$tmp/plot.svg" | sort -u | tr '\n' ' ')" \
		"11{250,190,212}:#fabed4 "
else
	fail "plot --type 13" "$(head -3 "$tmp/err")"
fi
# the table names 53 views; the cases above reach most of them
expect "views of ovni's checked (at least 40 view x trace pairs)" "$([ "$total" -ge 40 ] && echo yes)" yes

finish
