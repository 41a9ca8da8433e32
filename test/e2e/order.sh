#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft's order against ovniemu 1.14.0's (issue 23, classes 1 and 6):
#   - rows: thread.prv and cpu.prv have ovniemu's rows in ovniemu's order
#     (looms by name or smallest rank, processes by rank or pid, threads by
#     tid; CPUs by phyid, the vCPU last), whatever the applications: on the
#     traces of test/fixtures/ovniemu-order (written through libovni, with
#     ovniemu's outputs) and on every ok case of test/fixtures/ovniemu;
#   - the .prv header names those rows in that order (Paraver's appl, task,
#     thread numbering follows the rows) and weft check accepts it;
#   - equal clocks in streams of one loom are taken in ovniemu's order
#     (its player's heap, src/emu/merge.h): the tie cases of
#     test/fixtures/ovniemu-order give ovniemu's outputs, values and row
#     order, with -j 1 and -j 2 alike; across looms too (ovniemu's one heap
#     over every stream: ties-across-looms*).
#
#   WEFT=/abs/weft sh test/e2e/order.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/ovniemu-order

# The row names of a .row file's THREAD level, ovni's way: the first two
# words ("TH 1.5", "CPU 0.3", "vCPU 0.*"), one a line.
row_keys() { # ROW
	awk '/^LEVEL THREAD/ { on = 1; next } on && NF { print $1, $2 }' "$1"
}

# ---- the fixtures: ovniemu's outputs, its row order included ------------------------
# A case ovniemu refuses has no outputs but error.regex: weft must exit 1
# with a message matching it (grep -E, weft's words for ovniemu's cause).
for d in "$fix"/*/; do
	n=$(basename "$d")
	if [ -f "$d/error.regex" ]; then
		test_expect_success "$n: weft emu -l refuses it, as ovniemu -l -b does" '
			test_status 1 "$WEFT" emu -q -l -o "$tmp/'"$n"'" "'"$d"'trace" 2>"$tmp/err" &&
			test_grep "$(cat "'"$d"'error.regex")" "$tmp/err"
		'
		continue
	fi
	test_expect_success "$n: weft emu -l = ovniemu -l -b (thread.prv with states, cpu.prv, row order)" '
		"$WEFT" emu -q -l -o "$tmp/'"$n"'" "'"$d"'trace" &&
		"$WEFT" diff --rows ovni --order --states --state-type 4 "'"$d"'thread.prv" "$tmp/'"$n"'/thread.prv" >"$tmp/out" &&
		test_grep "^0 differences in [1-9][0-9]* \\(row, type\\) pairs$" "$tmp/out" &&
		"$WEFT" diff --rows ovni --order "'"$d"'cpu.prv" "$tmp/'"$n"'/cpu.prv" >"$tmp/out" &&
		test_grep "^0 differences in [1-9][0-9]* \\(row, type\\) pairs$" "$tmp/out" &&
		"$WEFT" check "$tmp/'"$n"'/thread.prv" >"$tmp/out" && "$WEFT" check "$tmp/'"$n"'/cpu.prv" >"$tmp/out"
	'
done

# ---- ties across looms: ovniemu's one heap, on one worker and on two ---------------
# ties-across-looms*: a loom's ties come out as ovniemu's single heap over
# every stream gives them, the other looms' streams included; a -j 2 run,
# each worker with one loom, writes the bytes of -j 1.
for n in ties-across-looms ties-across-looms-offsets; do
	test_expect_success "$n: -j 2 gives the bytes of -j 1" '
		"$WEFT" emu -q -l -j 1 -o "$tmp/'"$n"'-j1" "'"$fix/$n"'/trace" &&
		"$WEFT" emu -q -l -j 2 -o "$tmp/'"$n"'-j2" "'"$fix/$n"'/trace" &&
		cmp "$tmp/'"$n"'-j1/thread.prv" "$tmp/'"$n"'-j2/thread.prv" &&
		cmp "$tmp/'"$n"'-j1/cpu.prv" "$tmp/'"$n"'-j2/cpu.prv"
	'
done
test_expect_success 'ties-across-looms-refused: -j 2 refuses it too' '
	test_status 1 "$WEFT" emu -q -l -j 2 -o "$tmp/refused-j2" "'"$fix"'/ties-across-looms-refused/trace" 2>"$tmp/err" &&
	test_grep "$(cat "'"$fix"'/ties-across-looms-refused/error.regex")" "$tmp/err"
'

# ---- ties in several looms: -j 2 = -j 1 ---------------------------------------------
# Two looms, each a copy of ties-three-at-once (its three threads tie at
# 30). Alone, each loom is accepted; in ovniemu's one heap over the six
# streams thread 10's execute at 30 comes out before thread 30's in both
# looms, and ovniemu 1.14.0 -l -b refuses the trace ("physical cpu CPU 1.0
# has 2 threads running at the same time"). weft refuses it too, with -j 1
# and -j 2 alike.
test_setup '
	mkdir -p "$tmp/two" &&
	cp -R "$fix/ties-three-at-once/trace/loom.node.a" "$tmp/two/loom.node.a" &&
	cp -R "$fix/ties-three-at-once/trace/loom.node.a" "$tmp/two/loom.node.b" &&
	for j in "$tmp"/two/loom.node.b/*/*/stream.json; do
		sed "s/\"loom\": \"node\.a\"/\"loom\": \"node.b\"/" "$j" >"$j.new" && mv "$j.new" "$j" || exit 1
	done
'
test_expect_success 'two looms with ties: refused as ovniemu refuses it, with -j 1 and -j 2' '
	test_status 1 "$WEFT" emu -q -l -j 1 -o "$tmp/j1" "$tmp/two" 2>"$tmp/err1" &&
	test_status 1 "$WEFT" emu -q -l -j 2 -o "$tmp/j2" "$tmp/two" 2>"$tmp/err2" &&
	test_grep "physical cpu 0 \\(phyid 0\\) of loom node\.[ab] has 2 threads running at once" "$tmp/err1" &&
	test_grep "physical cpu 0 \\(phyid 0\\) of loom node\.[ab] has 2 threads running at once" "$tmp/err2"
'

# ---- the header: applications as runs of processes in row order --------------------
# rows-by-rank: node.x (ranks 0 app 2, 3 app 1), then node.w (ranks 1 app 2,
# 2 app 1 with two threads): four applications, one task each, in row order.
test_expect_success 'rows-by-rank: the header and .row levels follow ovniemu'"'"'s rows' '
	head -n 1 "$tmp/rows-by-rank/thread.prv" | cut -d: -f4- >"$tmp/hdr" &&
	echo "2(3,3):4:1(1:1),1(1:1),1(1:2),1(2:2)" >"$tmp/want" &&
	test_cmp "$tmp/want" "$tmp/hdr" &&
	sed -n "/^LEVEL APPL/,/^\$/p" "$tmp/rows-by-rank/thread.row" >"$tmp/appl" &&
	printf "LEVEL APPL SIZE 4\napp 2\napp 1\napp 2\napp 1\n\n" >"$tmp/want" &&
	test_cmp "$tmp/want" "$tmp/appl"
'

# ---- every ok case of ovni's own tests: the same rows in the same order -------------
while IFS="$(printf '\t')" read -r c models expect rest; do
	[ "$expect" = ok ] || continue
	t=$top/test/fixtures/ovniemu/$c
	if [ -n "$(find "$t/trace" -name '*.gz' | head -n 1)" ]; then
		continue # the gzipped streams: models.sh unpacks them; rows need no such trace
	fi
	test_expect_success "ovniemu/$c: thread and cpu rows in ovniemu's order" '
		rm -rf "$tmp/o" && "$WEFT" emu -q -a -o "$tmp/o" "'"$t"'/trace" 2>"$tmp/err" &&
		row_keys "'"$t"'/thread.row" >"$tmp/want" && row_keys "$tmp/o/thread.row" >"$tmp/got" &&
		test_cmp "$tmp/want" "$tmp/got" &&
		row_keys "'"$t"'/cpu.row" >"$tmp/want" && row_keys "$tmp/o/cpu.row" >"$tmp/got" &&
		test_cmp "$tmp/want" "$tmp/got"
	'
done <"$top/test/fixtures/ovniemu/cases.tsv"

finish
