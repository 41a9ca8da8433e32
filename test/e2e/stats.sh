#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft stats`: the state and operation tables of every
# model (ovni, msg, fileio, andfork), --json, and the PICL statistics
# records beside what weft measured (the seed's Table 20: -101's 0.001212 s
# for -52 beside the measured 0.001213 s is a rounding-size difference).
#
#   WEFT=/abs/weft sh test/e2e/stats.sh
#
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fx="$here/picl"
small="$corpus/ovni/o-small/trace"
# stats FILE OUT [OPTIONS]: run weft stats, tables squeezed to single spaces
stats() {
	_in=$1 _out=$2
	shift 2
	if "$WEFT" stats -q "$@" "$_in" >"$tmp/$_out.raw" 2>"$tmp/err"; then
		tr -s ' ' <"$tmp/$_out.raw" >"$tmp/$_out"
		return 0
	fi
	fail "stats $_out" "$(head -3 "$tmp/err")"
	return 1
}
row() { grep -F -e "$2" "$tmp/$1" | head -1; }

# ---- the seed's Table 20 -------------------------------------------------------
if stats "$fx/table20.trf" t20; then
	expect "table20 -101 recv0 rounding" "$(row t20 'picl.6/7/7 -101 -1 recv0 (blocking) [-52]')" \
		"picl.6/7/7 -101 -1 recv0 (blocking) [-52] 0.001212 s 0.001213 s +0.000001 s rounding within 0.0000025 s: the stated resolution and the timestamps'"
	expect "table20 -101 clocksync0 rounding" "$(row t20 'picl.6/7/7 -101 -1 clocksync0 [-401]' | cut -d' ' -f6-12)" \
		"0.008083 s 0.008084 s +0.000001 s rounding"
	expect "table20 -101 within user event 0" "$(row t20 '-101 user event 0 [0] recv0' | cut -d' ' -f10-16)" \
		"0.000387 s 0.000388 s +0.000001 s rounding"
	expect "table20 -102 recv0 equal" "$(row t20 'picl.6/7/7 -102 -1 recv0 (blocking) [-52]' | cut -d' ' -f7-)" \
		"2 2 +0 equal"
	expect "table20 -103 tracing not measured" "$(row t20 '-103 -1 tracing [-901]' | cut -d' ' -f6-)" \
		"428 - - not measured weft counts no bytes for this operation"
	expect "table20 summary" "$(tail -1 "$tmp/t20")" \
		"32 stated values: 27 equal, 4 within rounding, 0 differ, 1 not measured"
	expect "table20 Sending" "$(row t20 'msg state - Sending' | cut -d' ' -f6-)" "0.000046000 1 -"
	expect "table20 Receiving" "$(row t20 'msg state - Receiving (blocked)' | cut -d' ' -f7-)" "0.001213000 2 -"
	expect "table20 op recv0" "$(row t20 'msg op - recv0 (blocking) [-52]' | cut -d' ' -f8-)" "0.001213000 2 16"
	expect "table20 op within user 1" "$(row t20 'msg op user event 1 [1] send0 [-21]' | cut -d' ' -f10-)" \
		"0.000046000 1 8"
	expect "table20 header" "$(head -1 "$tmp/t20")" "weft stats: $fx/table20.trf: 1 threads, 0.717018 s"
fi
if stats "$fx/table20-cont.trf" t20c; then
	expect "table20 continued lines: same comparison" \
		"$(sed -n '/^Statistics/,$p' "$tmp/t20c")" "$(sed -n '/^Statistics/,$p' "$tmp/t20")"
fi

# ---- JSON ---------------------------------------------------------------------------
if stats "$fx/table20.trf" t20j --json; then
	j="$tmp/t20j.raw"
	expect "json rounding verdicts" "$(grep -c '"verdict":[[:space:]]*"rounding"' "$j")" 4
	expect "json recv0 measured" "$(grep -A12 '"record":[[:space:]]*-101' "$j" |
		grep -A8 '"op":[[:space:]]*-52' | grep -m1 '"measured"' | tr -d ' \t,')" '"measured":1213000'
	expect "json summary" "$(sed -n '/"summary"/,/}/p' "$j" | tr -d ' \t\n')" \
		'"summary":{"stated":32,"equal":27,"rounding":4,"differs":0,"not_measured":1}'
	expect "json Sending" "$(grep -B3 -A2 '"label":[[:space:]]*"Sending"' "$j" | grep time_ns | tr -d ' \t,')" \
		'"time_ns":46000'
	if command -v python3 >/dev/null 2>&1; then
		python3 -m json.tool "$j" >/dev/null 2>&1 && pass "json parses" || fail "json parses" "python3 rejects it"
	fi
fi

# ---- marks of communication events (test/e2e/picl/README.md, marks.trf) -------------
if stats "$fx/marks.trf" marks; then
	expect "marks: every count and volume equal" "$(tail -1 "$tmp/marks")" \
		"14 stated values: 14 equal, 0 within rounding, 0 differ, 0 not measured"
	expect "marks: volume of a send mark" "$(row marks 'picl.0/1/1 -103 -1 send0 [-21]' | cut -d' ' -f6-)" "100 100 +0 equal"
fi

# ---- statistics of event subsets and of processor -1 (README.md, subsets.trf) ----------
if stats "$fx/subsets.trf" subsets; then
	expect "subsets: the statistics as worked out" "$(sed -n '/^Statistics/,$p' "$tmp/subsets")" \
		"$(cat "$fx/subsets.stats")"
fi

# ---- PICL file I/O: the fileio model measures what -101..-103 state --------------
if stats "$fx/files.trf" files; then
	expect "files summary" "$(tail -1 "$tmp/files")" \
		"12 stated values: 12 equal, 0 within rounding, 0 differ, 0 not measured"
	expect "files Writing" "$(row files 'fileio state - Writing' | cut -d' ' -f6-)" "0.000030000 2 -"
	expect "files op write" "$(row files 'fileio op - write [-221]' | cut -d' ' -f7-)" "0.000030000 2 4104"
	expect "files op read within user 1" "$(row files 'fileio op user event 1 [1] read [-251]' | cut -d' ' -f10-)" \
		"0.000010000 1 100"
fi

# ---- a synthetic PICL log: its own statistics within rounding -------------------------
"$WEFT" synth --format picl -o "$tmp/syn.trf" --procs 4 -n 6000 --offset 5us --drift 20 --seed 2 >/dev/null
if stats "$tmp/syn.trf" syn; then
	# not measured: the trace data volume of -901, one per processor
	expect "synth picl: no value differs" "$(tail -1 "$tmp/syn" | sed 's/.* within rounding, //')" \
		"0 differ, 4 not measured"
	n=$(tail -1 "$tmp/syn" | cut -d' ' -f1)
	[ "$n" -gt 100 ] && pass "synth picl: $n stated values compared" || fail "synth picl stated" "$n"
fi

# ---- ovni: every thread's ovni states add up to the trace's span ----------------------
if [ -d "$small" ] && stats "$small" ovni; then
	end=$(head -1 "$tmp/ovni" | awk '{printf "%.9f", $(NF-1)}')
	sums=$(awk '$2 == "ovni" && $3 == "state" {s[$1] += $(NF - 2)} END {for (t in s) printf "%.9f\n", s[t]}' "$tmp/ovni" |
		sort -u | tr '\n' ' ')
	expect "ovni states span the trace" "$sums" "$end "
	expect "ovni threads" "$(awk '$2 == "ovni" && $3 == "state" {print $1}' "$tmp/ovni" | sort -u | wc -l | tr -d ' ')" 8
	expect "ovni no operations" "$(awk '$3 == "op"' "$tmp/ovni" | wc -l | tr -d ' ')" 0
fi

# ---- VisAndOr: and-fork states ------------------------------------------------------------
if stats "$here/visandor/and-nested.vao" vao; then
	n=$(awk '$2 == "andfork" && $3 == "state"' "$tmp/vao" | wc -l | tr -d ' ')
	[ "$n" -gt 0 ] && pass "andfork states ($n rows)" || fail "andfork states" "none"
fi

# ---- errors -----------------------------------------------------------------------------------
"$WEFT" stats >/dev/null 2>"$tmp/err"
expect "no TRACE" "$? $(head -1 "$tmp/err")" "2 weft stats: expected one TRACE, found 0 arguments"
"$WEFT" stats --bogus "$fx/table20.trf" >/dev/null 2>"$tmp/err"
expect "unknown option" "$? $(head -1 "$tmp/err")" "2 weft stats: unknown option '--bogus'"
printf '%s\n' '-3 -901 0.0 0 0 0' '-3 -21 0.0x1 0 0 3 2 8 1 7' >"$tmp/bad.trf"
"$WEFT" stats "$tmp/bad.trf" >/dev/null 2>"$tmp/err"
expect "bad input" "$? $(sed 's|^weft: error: .*/||' "$tmp/err" | head -1)" \
	"1 bad.trf:2: field 3 (timestamp): expected decimal seconds, found '0.0x1'"


# ---- state 0 has the .pcf's name --------------------------------------------------
test_expect_success 'state 0: the name the .pcf gives it, in the table and in --json' '
	"$WEFT" synth -o "$tmp/s0" --events 20000 >/dev/null &&
	"$WEFT" emu -q -o "$tmp/s0o" "$tmp/s0" &&
	name=$(sed -n "/^STATES$/,/^$/s/^0 //p" "$tmp/s0o/thread.pcf") && test -n "$name" &&
	"$WEFT" stats "$tmp/s0" >"$tmp/s0.txt" && grep -q " state  -  *$name  *[0-9.]* " "$tmp/s0.txt" &&
	! grep -q "Unknown" "$tmp/s0.txt" &&
	"$WEFT" stats --json "$tmp/s0" | grep -q "\"label\":[[:space:]]*\"$name\""
'

finish
