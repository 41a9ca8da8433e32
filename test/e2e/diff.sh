#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft diff (src/diff/, src/cli/diff.c): two Paraver traces compared for
# what they mean.
#   - weft emu's outputs against ovniemu's on every trace of test/corpus:
#     0 differences (thread.prv with its states against ovniemu's type 4,
#     cpu.prv), exit 0; a copy of itself, plain and gzipped;
#   - one record changed: the (row, type), the time and both values named,
#     exit 1; a record added, a row only in one trace, a repeated value
#     (equal as step functions, a difference with --records), rows in
#     another order (--order), other time units;
#   - errors: no .row, a name that is no .prv, records out of time order,
#     usage errors (exit 2).
#
#   WEFT=/abs/weft sh test/e2e/diff.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
need WEFT

# ---- weft against ovniemu, on the corpus -------------------------------------------
for d in "$corpus"/ovni/*/; do
	n=$(basename "$d")
	t=$d/trace
	[ -f "$t/thread.prv" ] || continue
	test_expect_success "$n: weft emu = ovniemu (thread.prv with states, cpu.prv)" '
		"$WEFT" emu -q -o "$tmp/'"$n"'" "'"$t"'" &&
		"$WEFT" diff --rows ovni --states --state-type 4 "'"$t"'/thread.prv" "$tmp/'"$n"'/thread.prv" >"$tmp/out" &&
		test_grep "^0 differences in [1-9][0-9]* \\(row, type\\) pairs$" "$tmp/out" &&
		"$WEFT" diff --rows ovni "'"$t"'/cpu.prv" "$tmp/'"$n"'/cpu.prv" >"$tmp/out" &&
		test_grep "^0 differences in [1-9][0-9]* \\(row, type\\) pairs$" "$tmp/out"
	'
done

# ---- one record changed, and other differences ------------------------------------
s=$corpus/ovni/o-small/trace
test_setup '
	cp "$s/cpu.prv" "$s/cpu.row" "$tmp/" &&
	cp "$tmp/cpu.row" "$tmp/b.row" && cp "$tmp/cpu.row" "$tmp/c.row"
'
test_expect_success 'a trace against itself, and its .prv.gz: no difference, exit 0' '
	"$WEFT" diff "$tmp/cpu.prv" "$tmp/cpu.prv" >"$tmp/out" &&
	test "$(cat "$tmp/out")" = "0 differences in 48 (row, type) pairs" &&
	gzip -c "$tmp/cpu.prv" >"$tmp/z.prv.gz" && cp "$tmp/cpu.row" "$tmp/z.row" &&
	"$WEFT" diff "$tmp/cpu.prv" "$tmp/z.prv.gz" >/dev/null
'
test_expect_success 'one record changed: the first difference named, exit 1' '
	sed "3s/^2:0:1:1:1:0:1:100000$/2:0:1:1:1:0:1:100007/" "$tmp/cpu.prv" >"$tmp/b.prv" &&
	! cmp -s "$tmp/cpu.prv" "$tmp/b.prv" &&
	test_status 1 "$WEFT" diff "$tmp/cpu.prv" "$tmp/b.prv" >"$tmp/out" &&
	test "$(head -n 1 "$tmp/out")" = "row CPU 0.0 type 1: first difference at time 0: A has 100000, B has 100007" &&
	test "$(tail -n 1 "$tmp/out")" = "1 differences in 48 (row, type) pairs"
'
test_expect_success 'a record added later: named at its time' '
	awk -F: "NR == 40 { print; print \$1 \":\" \$2 \":\" \$3 \":\" \$4 \":\" \$5 \":\" \$6 \":77:5\"; next } { print }" \
		"$tmp/cpu.prv" >"$tmp/b.prv" &&
	t=$(sed -n 40p "$tmp/cpu.prv" | cut -d: -f6) && row=$(sed -n 40p "$tmp/cpu.prv" | cut -d: -f5) &&
	name=$(sed -n "/^LEVEL THREAD/,\$p" "$tmp/cpu.row" | sed -n "$((row + 1))p" | sed "s/^ *//") &&
	test_status 1 "$WEFT" diff "$tmp/cpu.prv" "$tmp/b.prv" >"$tmp/out" &&
	test_grep "^row $name type 77: first difference at time $t: A has 0, B has 5$" "$tmp/out"
'
test_expect_success 'a repeated value: equal as step functions, not record by record (--records)' '
	sed "3p" "$tmp/cpu.prv" >"$tmp/b.prv" &&
	"$WEFT" diff "$tmp/cpu.prv" "$tmp/b.prv" >/dev/null &&
	test_status 1 "$WEFT" diff --records "$tmp/cpu.prv" "$tmp/b.prv" >"$tmp/out" &&
	test_grep "^row CPU 0.0 type 1: record 2 differs: A has .* at [0-9]+, B has 100000 at 0 \\(A has [0-9]+ records, B has [0-9]+\\)$" "$tmp/out"
'
test_expect_success 'rows renamed: each only in one trace (--rows name); the same first words (--rows ovni)' '
	sed "s/^ CPU 0.0$/ CPU 0.0 node00/" "$tmp/cpu.row" >"$tmp/b.row" && cp "$tmp/cpu.prv" "$tmp/b.prv" &&
	test_status 1 "$WEFT" diff "$tmp/cpu.prv" "$tmp/b.prv" >"$tmp/out" &&
	test_grep "^row CPU 0.0 type 1: first difference at time 0: A has 100000, B has 0 \\(row only in A\\)$" "$tmp/out" &&
	"$WEFT" diff --rows ovni "$tmp/cpu.prv" "$tmp/b.prv" >/dev/null
'
test_expect_success 'a name on two rows: matched in row order (ovniemu'"'"'s pid in two looms)' '
	sed "s/^ CPU 0.1$/ CPU 0.0/" "$tmp/cpu.row" >"$tmp/d.row" && cp "$tmp/cpu.prv" "$tmp/d.prv" &&
	cp "$tmp/d.row" "$tmp/f.row" && cp "$tmp/d.prv" "$tmp/f.prv" &&
	"$WEFT" diff --rows ovni --records "$tmp/d.prv" "$tmp/f.prv" >/dev/null &&
	cp "$tmp/d.row" "$tmp/e.row" &&
	awk -F: -v OFS=: "NR > 1 && \$1 == 2 && \$5 <= 2 { \$5 = 3 - \$5 } { print }" "$tmp/cpu.prv" >"$tmp/e.prv" &&
	test_status 1 "$WEFT" diff "$tmp/d.prv" "$tmp/e.prv" >"$tmp/out" &&
	test_grep "^row CPU 0.0 #2 type 1: first difference" "$tmp/out"
'
test_expect_success '--order: the rows in another order' '
	awk "/^ CPU 0.0$/ { a = \$0; next } /^ CPU 0.1$/ { print; print a; next } { print }" "$tmp/cpu.row" >"$tmp/c.row" &&
	awk -F: -v OFS=: "NR > 1 && \$1 == 2 && \$5 <= 2 { \$5 = 3 - \$5 } { print }" "$tmp/cpu.prv" >"$tmp/c.prv" &&
	"$WEFT" diff "$tmp/cpu.prv" "$tmp/c.prv" >/dev/null &&
	test_status 1 "$WEFT" diff --order "$tmp/cpu.prv" "$tmp/c.prv" >"$tmp/out" &&
	test "$(head -n 1 "$tmp/out")" = "row 1: A has CPU 0.0, B has CPU 0.1"
'
test_expect_success 'times in us against ns: compared in ns' '
	awk -F: -v OFS=: "NR == 1 { sub(/_ns:/, \"_us:\") } { print }" "$tmp/cpu.prv" >"$tmp/us.prv" &&
	cp "$tmp/cpu.row" "$tmp/us.row" &&
	test_status 1 "$WEFT" diff "$tmp/cpu.prv" "$tmp/us.prv" >"$tmp/out" 2>"$tmp/err" &&
	test_grep "different time units; times are in ns" "$tmp/err"
'

# ---- errors ----------------------------------------------------------------------------
test_expect_success 'no .row beside B: exit 2, named' '
	cp "$tmp/cpu.prv" "$tmp/norow.prv" &&
	test_status 2 "$WEFT" diff "$tmp/cpu.prv" "$tmp/norow.prv" 2>"$tmp/err" &&
	test_grep "norow.row: cannot open: the rows are matched by their names there" "$tmp/err"
'
test_expect_success 'a name that is no .prv, out of time order, usage: exit 2' '
	test_status 2 "$WEFT" diff "$tmp/cpu.prv" "$tmp/cpu.row" 2>"$tmp/err" &&
	test_grep "must end in .prv or .prv.gz" "$tmp/err" &&
	{ head -n 1 "$tmp/cpu.prv"; tail -n 1 "$tmp/cpu.prv"; sed -n "2,\$p" "$tmp/cpu.prv"; } >"$tmp/late.prv" &&
	cp "$tmp/cpu.row" "$tmp/late.row" &&
	test_status 2 "$WEFT" diff "$tmp/late.prv" "$tmp/cpu.prv" 2>"$tmp/err" >/dev/null &&
	test_grep "late.prv:3: a record at 0 after one at [0-9]+: weft diff reads traces sorted by time" "$tmp/err" &&
	test_status 2 "$WEFT" diff "$tmp/cpu.prv" 2>/dev/null &&
	test_status 2 "$WEFT" diff --state-type 4 "$tmp/cpu.prv" "$tmp/cpu.prv" 2>"$tmp/err" &&
	test_grep "needs --states" "$tmp/err" &&
	test_status 2 "$WEFT" diff --types 5-3 "$tmp/cpu.prv" "$tmp/cpu.prv" 2>/dev/null
'

finish
