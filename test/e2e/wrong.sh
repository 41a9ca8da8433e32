#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Where a newcomer goes wrong (issue 29, item 8), and what weft says:
#   - a directory above the trace (weft emu /tmp): the walk stops at the
#     folders holding loom.* folders (trace roots), says how many there are
#     and names the first ones, or names the one trace below; someone
#     else's broken file outside every trace fails nothing;
#   - a file of a trace or an output given as TRACE (stream.obs,
#     stream.json, thread.prv, .prv.gz, .pcf, .row, .cfg): what it is and
#     what takes it;
#   - weft check DIR checks an output directory: every .prv and .prv.gz
#     and the views.
#
#   WEFT=/abs/weft sh test/e2e/wrong.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
need WEFT

test_setup '
	mkdir -p "$tmp/top/junk/x" "$tmp/top/a" "$tmp/top/b" &&
	echo "{}" >"$tmp/top/junk/x/stream.json" &&
	"$WEFT" synth -o "$tmp/top/a/trace" --events 2000 >/dev/null &&
	"$WEFT" synth -o "$tmp/one" --events 2000 >/dev/null
'

# ---- a directory above the trace ------------------------------------------------------
test_expect_success 'a tree with one trace below TRACE: named, not walked as one' '
	test_status 1 "$WEFT" emu -o "$tmp/o1" "$tmp/top" 2>"$tmp/err" &&
	test_grep "^weft: error: $tmp/top: not an ovni trace, but one is below it: $tmp/top/a/trace: give that as TRACE$" "$tmp/err" &&
	test_no_file "$tmp/o1/thread.prv"
'
test_expect_success 'two traces below TRACE: how many, the first ones' '
	"$WEFT" synth -o "$tmp/top/b/trace" --events 2000 >/dev/null &&
	test_status 1 "$WEFT" dump "$tmp/top" >/dev/null 2>"$tmp/err" &&
	test_grep "^weft: error: $tmp/top: 2 ovni traces under it \\(folders holding loom.\\* folders: a/trace, b/trace\\): give one of them as TRACE$" "$tmp/err"
'
test_expect_success 'a trace beside someone else'"'"'s broken stream: the trace is read' '
	mkdir -p "$tmp/side" && cp -R "$tmp/one" "$tmp/side/trace" && mkdir -p "$tmp/side/trace/other/x" &&
	echo "{}" >"$tmp/side/trace/other/x/stream.json" &&
	"$WEFT" dump "$tmp/side/trace" >"$tmp/d1" && "$WEFT" dump "$tmp/one" >"$tmp/d2" && test_cmp "$tmp/d2" "$tmp/d1"
'
test_expect_success 'a broken stream inside the trace is still an error' '
	cp -R "$tmp/one" "$tmp/broken" &&
	rm "$(find "$tmp/broken" -name stream.obs | head -n 1)" &&
	test_status 1 "$WEFT" dump "$tmp/broken" >/dev/null 2>"$tmp/err" &&
	test_grep "stream.json without stream.obs" "$tmp/err"
'
test_expect_success 'a tree with no trace and a broken stream: that error, as before' '
	test_status 1 "$WEFT" dump "$tmp/top/junk" >/dev/null 2>"$tmp/err" &&
	test_grep "junk/x: stream.json without stream.obs" "$tmp/err"
'
test_expect_success 'a loom folder given as TRACE is read' '
	"$WEFT" dump "$(ls -d "$tmp"/one/loom.* | head -n 1)" >"$tmp/dl" && test -s "$tmp/dl"
'

# ---- a file that is no input ----------------------------------------------------------
test_setup '"$WEFT" emu -q -z -o "$tmp/gz" "$tmp/one" && "$WEFT" emu -q -o "$tmp/out" "$tmp/one"'
test_expect_success 'stream.obs, stream.json: one thread'"'"'s stream, give its trace' '
	obs=$(find "$tmp/one" -name stream.obs | head -n 1) &&
	test_status 1 "$WEFT" emu "$obs" 2>"$tmp/err" &&
	test_grep "this is one thread.s ovni stream \\(stream.obs\\), not a trace: give its trace directory, the folder holding the loom.\\* folders \\($tmp/one\\), as TRACE" "$tmp/err" &&
	test_status 1 "$WEFT" dump "$(dirname "$obs")/stream.json" 2>"$tmp/err" >/dev/null &&
	test_grep "ovni stream \\(stream.json\\)" "$tmp/err" && test_no_file "$obs.paraver"
'
test_expect_success 'thread.prv, thread.prv.gz: a Paraver trace, what reads it' '
	for f in "$tmp/out/thread.prv" "$tmp/gz/thread.prv.gz"; do
		test_status 1 "$WEFT" emu "$f" 2>"$tmp/err" &&
		test_grep "this is a Paraver trace \\(what weft emu writes\\), which weft check, weft plot and wxParaver read" "$tmp/err" || return 1
	done
'
test_expect_success '.pcf, .row, .cfg: named' '
	test_status 1 "$WEFT" top "$tmp/out/thread.pcf" 2>"$tmp/err" && test_grep "a Paraver .pcf" "$tmp/err" &&
	test_status 1 "$WEFT" top "$tmp/out/thread.row" 2>"$tmp/err" && test_grep "a Paraver .row" "$tmp/err" &&
	test_status 1 "$WEFT" top "$(find "$tmp/out/cfg" -name "*.cfg" | head -n 1)" 2>"$tmp/err" &&
	test_grep "a Paraver view \\(.cfg; wxparaver TRACE.prv FILE.cfg" "$tmp/err"
'

# ---- weft check DIR ---------------------------------------------------------------------
test_expect_success 'weft check DIR: its traces and its views' '
	"$WEFT" check "$tmp/out" >"$tmp/ck" &&
	test "$(grep -c ": ok: " "$tmp/ck")" -eq 2 && test_grep "^$tmp/out: views ok: " "$tmp/ck" &&
	"$WEFT" check "$tmp/gz" >"$tmp/ck" && test_grep "thread.prv.gz: ok: " "$tmp/ck"
'
test_expect_success 'weft check DIR: a broken trace fails it; a folder without traces is an error' '
	cp -R "$tmp/out" "$tmp/bad" && echo "9:bad" >>"$tmp/bad/cpu.prv" &&
	test_status 1 "$WEFT" check -q "$tmp/bad" 2>"$tmp/err" && test_grep "cpu.prv:[0-9]+:" "$tmp/err" &&
	test_status 1 "$WEFT" check "$tmp/top" 2>"$tmp/err" &&
	test_grep "top: no Paraver trace in it" "$tmp/err"
'

finish
