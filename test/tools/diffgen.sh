#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# test/diff's scripts without ovni (make diff-ovni runs them with it):
#   - every script parses (sh -n);
#   - classify.sh names the verdict and class of canned cases: agree, a
#     difference per file (records' kinds without their types, steps with
#     theirs), a refusal by weft only, by ovniemu only (its first ERROR and
#     the MCV it panicked on), both refusing on the same MCV, at the end of
#     the trace, or for other causes;
#   - summary.sh counts verdicts, and a differing trace once per class.
#
#   sh test/tools/diffgen.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
d=$top/test/diff

for s in "$d"/*.sh; do
	test_expect_success "$(basename "$s") parses" 'sh -n "'"$s"'"'
done

# mkcase NAME ORC WRC: a case folder with both exit statuses
mkcase() {
	mkdir -p "$tmp/$1" && echo "$2" >"$tmp/$1/o.rc" && echo "$3" >"$tmp/$1/w.rc" &&
		: >"$tmp/$1/o.log" && : >"$tmp/$1/w.log"
}
olog='ovniemu: INFO: loaded 3 streams
ovniemu: ERROR: chan_pop: nosv.thread3.subsystem: unexpected value {int64_t 12} (expected {int64_t 14})
ovniemu: ERROR: panic: @@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@
ovniemu: ERROR: panic:   mcv=VAS
ovniemu: ERROR: panic:   rclock=1002780'
wlog='weft: error: in/loom.a/proc.5/thread.6/stream.obs: event VAS at byte offset 1161 (clock 1018660, time 18630 ns), thread 6: pop of 14 from channel nosv.subsystem: expected the top, 12'
wlog2='weft: error: in/ovni: thread 6758 (loom node95.16, pid 6756) is Running at the end of the trace: expected Dead (OHe)'

test_expect_success "both accept, no difference: agree" '
	mkcase agree 0 0 && : >"$tmp/agree/diff.txt" &&
	test "$(sh "$d/classify.sh" "$tmp/agree")" = "agree -"
'
test_expect_success "both accept, files differ: each file, records by kind, steps by type" '
	mkcase differ 0 0 &&
	printf "%s\n" "cpu.prv records init0(20) init0(35) ovniemu-more(35) " "thread.prv order " \
		"nosv-breakdown.prv steps type 41 " >"$tmp/differ/diff.txt" &&
	test "$(sh "$d/classify.sh" "$tmp/differ")" = \
		"differ cpu.prv records init0 ovniemu-more; thread.prv order; nosv-breakdown.prv steps type 41"
'
test_expect_success "weft refuses alone: its message, numbers folded, without path and position" '
	mkcase wonly 0 1 && printf "%s\n" "$wlog" >"$tmp/wonly/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/wonly")" = \
		"weft-only-refuses VAS|pop of N from channel nosv.subsystem: expected the top, N"
'
test_expect_success "weft refuses a whole trace: no MCV" '
	mkcase wonly2 0 1 && printf "%s\n" "$wlog2" >"$tmp/wonly2/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/wonly2")" = \
		"weft-only-refuses ?|thread N (loom nodeN.N, pid N) is Running at the end of the trace: expected Dead (OHe)"
'
test_expect_success "ovniemu refuses alone: its first ERROR and the panic MCV" '
	mkcase oonly 1 0 && printf "%s\n" "$olog" >"$tmp/oonly/o.log" &&
	test "$(sh "$d/classify.sh" "$tmp/oonly")" = \
		"ovniemu-only-refuses VAS|chan_pop: nosv.threadN.subsystem: unexpected value {intN_t N} (expected {intN_t N})"
'
test_expect_success "both refuse on the same MCV: same" '
	mkcase same 1 1 && printf "%s\n" "$olog" >"$tmp/same/o.log" && printf "%s\n" "$wlog" >"$tmp/same/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/same")" = "both-refuse-same VAS"
'
test_expect_success "both refuse at the end of the trace: same" '
	mkcase end 1 1 &&
	echo "ovniemu: ERROR: end_lint: thread 5 ended with 1 stacked mpi functions" >"$tmp/end/o.log" &&
	echo "weft: error: /x/in: thread 5 (loom n, pid 4) ends with 1 value(s) on the stack of channel mpi.function" \
		>"$tmp/end/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/end")" = "both-refuse-same end"
'
test_expect_success "ovnisort refuses a stream without events, weft its thread at the end: same" '
	mkcase nosort 1 1 &&
	echo "ovniemu: ERROR: ovnisort: stream_step: stream is inactive, cannot step" >"$tmp/nosort/o.log" &&
	printf "%s\n" "$wlog2" >"$tmp/nosort/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/nosort")" = "both-refuse-same end"
'
test_expect_success "both refuse a clock going backwards: same, though only weft names the event" '
	mkcase back 1 1 &&
	echo "ovniemu: ERROR: stream_step: clock goes backwards 5 -> 4 in stream '"'"'x'"'"' at offset 9" >"$tmp/back/o.log" &&
	echo "weft: error: /x/in: clock goes backwards at byte offset 9 (event OM=): expected a clock >= 5" >"$tmp/back/w.log" &&
	test "$(sh "$d/classify.sh" "$tmp/back")" = "both-refuse-same clock-back"
'
test_expect_success "both refuse, other causes: both named" '
	mkcase other 1 1 && printf "%s\n" "$olog" >"$tmp/other/o.log" && printf "%s\n" "$wlog2" >"$tmp/other/w.log" &&
	sh "$d/classify.sh" "$tmp/other" >"$tmp/other.out" &&
	test_grep "^both-refuse-other o:VAS|chan_pop.* w:?|thread N .*Running" "$tmp/other.out"
'
test_expect_success "summary: verdicts, and a differing trace in each of its classes" '
	printf "%s\n" "1 agree -" "2 differ a.prv order; b.prv records init0" "3 differ b.prv records init0" \
		"4 weft-only-refuses X|y" >"$tmp/res.txt" &&
	sh "$d/summary.sh" "$tmp/res.txt" >"$tmp/sum.txt" &&
	test_grep "^4 cases$" "$tmp/sum.txt" &&
	test_grep "^  differ  *2$" "$tmp/sum.txt" &&
	test_grep "^  agree  *1$" "$tmp/sum.txt" &&
	test_grep "^ *2  differ b.prv records init0$" "$tmp/sum.txt" &&
	test_grep "^ *1  differ a.prv order$" "$tmp/sum.txt" &&
	test_grep "^ *1  weft-only-refuses X|y$" "$tmp/sum.txt" &&
	test_grep "^ *1  weft-only-refuses: other$" "$tmp/sum.txt"
'
test_expect_success "summary: families name issue 23's classes from the messages" '
	printf "%s\n" "1 weft-only-refuses ?|thread N ends while flushing (OF[ without OF])" \
		"2 ovniemu-only-refuses 6PA|simple: unknown NanosN subsystem event" \
		"3 both-refuse-same VTe" >"$tmp/res2.txt" &&
	sh "$d/summary.sh" "$tmp/res2.txt" >"$tmp/sum2.txt" &&
	test_grep "^ *1  weft-only-refuses: 3 lint: marks, flushes at the end$" "$tmp/sum2.txt" &&
	test_grep "^ *1  ovniemu-only-refuses: 5 unknown events$" "$tmp/sum2.txt" &&
	! grep -q "both-refuse-same:" "$tmp/sum2.txt"
'

finish
