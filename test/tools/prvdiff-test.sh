#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Self-test of prvdiff, the Paraver comparison oracle (test/tools/prvdiff.c).
#
#   BUILD=build sh test/tools/prvdiff-test.sh      (PRVDIFF=/path overrides)
#
# 1. Every reference trace of the ovni corpus (thread.prv and cpu.prv) equals
#    itself, plain and gzipped; a changed copy and another trace differ.
# 2. Hand-made pairs: the same step functions written differently are equal;
#    real differences exit 1 with the expected report line.
# 3. Usage and input errors exit 2 with a message naming the problem.
#
# Needs sh, awk, sed, grep, gzip (gzip cases are skipped without it). Prints
# "ok NAME", "FAIL NAME: why" or "skip NAME: why", then "N passed, M failed";
# exits 1 when a case failed.

set -u

BUILD=${BUILD:-build}
PRVDIFF=${PRVDIFF:-$BUILD/prvdiff}
case $PRVDIFF in
/*) ;;
*) PRVDIFF=$(pwd)/$PRVDIFF ;;
esac
. "$(dirname "$0")/../lib.sh"

if [ ! -x "$PRVDIFF" ]; then
	result "prvdiff binary" "$PRVDIFF is missing (make $PRVDIFF)"
	finish
fi

OUT=$tmp/out
ERR=$tmp/err

# ---- helpers -----------------------------------------------------------------

run() { # ARGS...: runs prvdiff, sets rc; stdout in $OUT, stderr in $ERR
	"$PRVDIFF" "$@" </dev/null >"$OUT" 2>"$ERR"
	rc=$?
}

first_err() {
	head -n 3 "$ERR" | tr '\n' ' '
}

# Exit 0, and stdout is only "0 differences in M (row, type) pairs", M > 0.
expect_equal() { # NAME ARGS...
	name=$1
	shift
	run "$@"
	why=""
	if [ "$rc" -ne 0 ]; then
		why="exit $rc, expected 0; $(head -n 2 "$OUT" | tr '\n' ' ')$(first_err)"
	elif [ "$(wc -l <"$OUT")" -ne 1 ] ||
		! grep -q '^0 differences in [1-9][0-9]* (row, type) pairs$' "$OUT"; then
		why="unexpected report: $(head -n 2 "$OUT" | tr '\n' ' ')"
	fi
	result "$name" "$why"
}

# Exit 1, and stdout has exactly the line LINE.
expect_diff() { # NAME LINE ARGS...
	name=$1
	line=$2
	shift 2
	run "$@"
	why=""
	if [ "$rc" -ne 1 ]; then
		why="exit $rc, expected 1; $(head -n 2 "$OUT" | tr '\n' ' ')$(first_err)"
	elif ! grep -qxF "$line" "$OUT"; then
		why="no line '$line' in: $(head -n 3 "$OUT" | tr '\n' ' ')"
	fi
	result "$name" "$why"
}

# Exit 2, nothing on stdout, and stderr contains TEXT.
expect_error() { # NAME TEXT ARGS...
	name=$1
	text=$2
	shift 2
	run "$@"
	why=""
	if [ "$rc" -ne 2 ]; then
		why="exit $rc, expected 2; $(first_err)"
	elif [ -s "$OUT" ]; then
		why="something on stdout: $(head -n 1 "$OUT")"
	elif ! grep -qF -- "$text" "$ERR"; then
		why="stderr lacks '$text': $(first_err)"
	fi
	result "$name" "$why"
}

# at TEXT: TEXT with @B@ (the base trace) and @T@ (the temporary folder)
# replaced, for rows of the tables below.
at() {
	printf '%s\n' "$1" | sed "s|@B@|${B:-}|g; s|@T@|$tmp|g"
}

# mk NAME HDR ROW...: writes $tmp/NAME.prv (header "...:1000_ns:HDR", body from
# stdin) and $tmp/NAME.row (a NODE block, then the THREAD block of ROWs).
mk() {
	f=$tmp/$1
	hdr=$2
	shift 2
	{
		printf '#Paraver (01/01/25 at 00:00):00000000000000001000_ns:%s\n' "$hdr"
		cat
	} >"$f.prv"
	{
		printf 'LEVEL NODE SIZE 1\nhostname\n\nLEVEL THREAD SIZE %d\n' $#
		for r in "$@"; do
			printf '%s\n' "$r"
		done
	} >"$f.row"
}

# ---- 1. the ovni corpus --------------------------------------------------------

if [ ! -d "$corpus/ovni" ]; then
	result "corpus" "not found at $corpus/ovni"
else
	for d in o-small o-ties o-skew om-small ok-small on-small small small-split; do
		for v in thread cpu; do
			p=$corpus/ovni/$d/trace/$v.prv
			if [ ! -f "$p" ]; then
				result "corpus $d $v.prv = itself" "$p is missing"
				continue
			fi
			expect_equal "corpus $d $v.prv = itself" "$p" "$p"
			expect_equal "corpus $d $v.prv = itself (--states --rows ovni)" \
				--states --rows ovni "$p" "$p"
		done
	done

	small=$corpus/ovni/small/trace
	if command -v gzip >/dev/null 2>&1; then
		mkdir "$tmp/gz"
		gzip -c "$small/thread.prv" >"$tmp/gz/thread.prv.gz"
		cp "$small/thread.row" "$tmp/gz/thread.row"
		expect_equal "corpus small thread.prv = its gzipped copy" \
			"$small/thread.prv" "$tmp/gz/thread.prv.gz"
		head -c 3000 "$tmp/gz/thread.prv.gz" >"$tmp/gz/cut.prv.gz"
		cp "$small/thread.row" "$tmp/gz/cut.row"
		expect_error "truncated gzip file" "cut.prv.gz" "$small/thread.prv" "$tmp/gz/cut.prv.gz"
	else
		echo "skip gzip cases: no gzip"
	fi

	# A copy with one more value at the end of the first row must differ.
	mkdir "$tmp/chg"
	cp "$small/thread.prv" "$tmp/chg/thread.prv"
	cp "$small/thread.row" "$tmp/chg/thread.row"
	ftime=$(sed -n '1s/^.*):0*\([0-9][0-9]*\)_ns:.*$/\1/p' "$small/thread.prv")
	row1=$(sed -n '/^LEVEL THREAD/{n;p;q;}' "$small/thread.row")
	echo "2:0:1:1:1:$ftime:4:999" >>"$tmp/chg/thread.prv"
	run "$small/thread.prv" "$tmp/chg/thread.prv"
	why=""
	if [ "$rc" -ne 1 ]; then
		why="exit $rc, expected 1; $(first_err)"
	elif ! grep -q "^row $row1 type 4: first difference at time $ftime: A has [0-9]*, B has 999\$" "$OUT" ||
		! grep -qx '1 differences in [0-9]* (row, type) pairs' "$OUT"; then
		why="unexpected report: $(head -n 2 "$OUT" | tr '\n' ' ')"
	fi
	result "corpus small thread.prv != a copy with one value more" "$why"

	run --rows ovni "$corpus/ovni/small/trace/thread.prv" "$corpus/ovni/o-small/trace/thread.prv"
	if [ "$rc" -eq 1 ] && grep -q '^[1-9][0-9]* differences in ' "$OUT"; then
		result "corpus small != o-small" ""
	else
		result "corpus small != o-small" "exit $rc; $(tail -n 1 "$OUT")"
	fi
fi

# ---- 2. hand-made pairs ----------------------------------------------------------

# The base trace: two threads. Step functions: TH 1.1 type 4: 1@0 2@10 0@30;
# type 6: 3@0 0@10; type 7: 1@30; TH 1.2 type 4: 1@5 3@20. States: TH 1.1
# 1 on [0,10), 3 on [10,25); TH 1.2 2 on [5,15).
mk base '0:1:1(2:1)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:0:1:1:1:0:4:1
2:0:1:1:1:0:6:3
1:0:1:1:1:0:10:1
2:0:1:1:2:5:4:1
1:0:1:1:2:5:15:2
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
1:0:1:1:1:10:25:3
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
B=$tmp/base.prv

expect_equal "base = itself" "$B" "$B"
run "$B" "$B"
result "count of (row, type) pairs" \
	"$(grep -qx '0 differences in 4 (row, type) pairs' "$OUT" || echo "got: $(cat "$OUT")")"
run --states "$B" "$B"
result "count of (row, type) pairs with --states" \
	"$(grep -qx '0 differences in 6 (row, type) pairs' "$OUT" || echo "got: $(cat "$OUT")")"

mk zeros '0:1:1(2:1)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:0:1:1:1:0:4:0
2:0:1:1:1:0:7:0
2:0:1:1:1:0:4:1
2:0:1:1:1:0:6:3
2:0:1:1:2:0:4:0
2:0:1:1:2:0:9:0
1:0:1:1:1:0:10:1
2:0:1:1:2:5:4:1
1:0:1:1:2:5:15:2
2:0:1:1:2:7:4:1
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
1:0:1:1:1:10:25:3
2:0:1:1:1:12:4:2
2:0:1:1:1:12:6:0
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
2:0:1:1:1:40:7:1
2:0:1:1:1:50:4:0
EOF
expect_equal "extra initial zeros and repeated values" "$B" "$tmp/zeros.prv"
expect_equal "extra initial zeros and repeated values (--states)" --states "$B" "$tmp/zeros.prv"

mk order '0:1:1(2:1)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:0:1:1:1:0:6:3:4:5:4:1
1:0:1:1:1:0:5:1
1:0:1:1:1:5:10:1
2:0:1:1:2:5:4:1
1:0:1:1:2:5:10:2
2:0:1:1:1:10:6:0
2:0:1:1:1:10:4:7
2:0:1:1:1:10:4:2
1:0:1:1:1:10:25:3
1:0:1:1:2:10:15:2
2:0:1:1:2:20:4:9
2:0:1:1:2:20:4:0
2:0:1:1:2:20:4:3
2:0:1:1:1:30:7:1:4:0
EOF
expect_equal "other order at equal times, multi-pair lines, split states" \
	--states "$B" "$tmp/order.prv"

mk swapped '0:1:1(2:1)' 'TH 1.2' 'TH 1.1' <<'EOF'
2:0:1:1:2:0:4:1
2:0:1:1:2:0:6:3
1:0:1:1:2:0:10:1
2:0:1:1:1:5:4:1
1:0:1:1:1:5:15:2
2:0:1:1:2:10:4:2
2:0:1:1:2:10:6:0
1:0:1:1:2:10:25:3
2:0:1:1:1:20:4:3
2:0:1:1:2:30:4:0
2:0:1:1:2:30:7:1
EOF
expect_equal "rows in another order in .row, records renumbered" --states "$B" "$tmp/swapped.prv"
expect_equal "rows in another order (B first)" --states "$tmp/swapped.prv" "$B"

# Two applications, the first with two tasks; TH 9.9 has only zeros.
mk appls '0:2:2(1:1,1:1),1(1:1)' 'TH 1.1' 'TH 1.2' 'TH 9.9' <<'EOF'
2:0:1:1:1:0:4:1
2:0:1:1:1:0:6:3
2:0:2:1:1:3:4:0
2:0:1:2:1:5:4:1
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
2:0:1:2:1:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
expect_equal "several applications and tasks; a row of zeros in one file only" \
	"$B" "$tmp/appls.prv"

# The header 1:2(2:1,3:1) has threads 1.1.1 1.1.2 1.2.1 1.2.2 1.2.3 = rows 1..5.
mk tasks5 '0:1:2(2:1,3:1)' R1 R2 R3 R4 R5 <<'EOF'
2:0:1:1:1:1:4:1
2:0:1:1:2:2:4:2
2:0:1:2:1:3:4:3
2:0:1:2:2:4:4:4
2:0:1:2:3:5:4:5
EOF
mk flat5 '0:1:1(5:1)' R1 R2 R3 R4 R5 <<'EOF'
2:0:1:1:1:1:4:1
2:0:1:1:2:2:4:2
2:0:1:1:3:3:4:3
2:0:1:1:4:4:4:4
2:0:1:1:5:5:4:5
EOF
expect_equal "global thread order appl, task, thread" "$tmp/tasks5.prv" "$tmp/flat5.prv"

# With a resource model: CPU fields of the task's node are accepted.
mk nodes '2(2,2):1:2(1:1,1:2)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:2:1:1:1:0:4:1
2:0:1:1:1:0:6:3
2:3:1:2:1:5:4:1
2:1:1:1:1:10:4:2
2:0:1:1:1:10:6:0
2:4:1:2:1:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
expect_equal "resource model, CPU fields on the task's node" "$B" "$tmp/nodes.prv"

mk ovni '0:1:1(2:1)' 'TH 1.1 node00/3' '  TH 1.2	node00/4 ' <<'EOF'
2:0:1:1:1:0:4:1
2:0:1:1:1:0:6:3
2:0:1:1:2:5:4:1
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
expect_equal "--rows ovni: TH 1.1 matches TH 1.1 node00/3" --rows ovni "$B" "$tmp/ovni.prv"
expect_diff "--rows name: TH 1.1 does not match TH 1.1 node00/3" \
	'row TH 1.1 type 4: first difference at time 0: A has 1, B has 0 (row only in A)' \
	"$B" "$tmp/ovni.prv"
expect_diff "--rows name: rows of B only are reported" \
	'row TH 1.1 node00/3 type 4: first difference at time 0: A has 0, B has 1 (row only in B)' \
	--rows=name "$B" "$tmp/ovni.prv"

mk cpuref '0:1:1(3:1)' ' CPU 0.0' ' CPU 0.3' 'vCPU 0.*' <<'EOF'
2:0:1:1:1:0:2:7
2:0:1:1:2:0:2:8
2:0:1:1:3:0:3:1
EOF
mk cpuweft '0:1:1(3:1)' 'vCPU 0.* node00' 'CPU 0.3 node00' 'CPU 0.0 node00' <<'EOF'
2:0:1:1:1:0:3:1
2:0:1:1:2:0:2:8
2:0:1:1:3:0:2:7
EOF
expect_equal "--rows ovni: ' CPU 0.3' and 'vCPU 0.*' match weft's names" \
	--rows ovni "$tmp/cpuref.prv" "$tmp/cpuweft.prv"
mk cpuname '0:1:1(3:1)' 'CPU 0.0' 'CPU 0.3  ' 'vCPU 0.*' <<'EOF'
2:0:1:1:1:0:2:7
2:0:1:1:2:0:2:8
2:0:1:1:3:0:3:1
EOF
expect_equal "--rows name trims blanks" "$tmp/cpuref.prv" "$tmp/cpuname.prv"

mk noise '0:1:1(2:1),1' 'TH 1.1' 'TH 1.2' <<'EOF'
c:1:1:1:1
# a comment
2:0:1:1:1:0:4:1

2:0:1:1:1:0:6:3
3:0:1:1:1:0:0:0:1:1:2:7:7:100:1
2:0:1:1:2:5:4:1
4:0:1:1:1:6:0:0:0
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
#2:0:1:1:1:15:4:9
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
expect_equal "communicators, comments, empty lines, kinds 3 and 4 ignored" "$B" "$tmp/noise.prv"
expect_equal "state records (only in A) ignored without --states" "$B" "$tmp/noise.prv"

printf '#Paraver (01/01/25 at 00:00):1_ns:0:1:1(1:1)\r\n2:0:1:1:1:2000:4:1\r\n2:0:1:1:1:3000:4:-5' \
	>"$tmp/ns.prv"
printf 'LEVEL THREAD SIZE 1\r\nT\r\n' >"$tmp/ns.row"
printf '#Paraver (01/01/25 at 00:00):1_us:0:1:1(1:1)\n2:0:1:1:1:2:4:1\n2:0:1:1:1:3:4:-5\n' \
	>"$tmp/us.prv"
printf 'LEVEL THREAD SIZE 1\nT\n' >"$tmp/us.row"
expect_equal "ns against us, CRLF, no final newline, negative value" "$tmp/ns.prv" "$tmp/us.prv"

# A long line (more than the 1 MiB read buffer) and a trace of 300,000 lines.
awk 'BEGIN { printf "#Paraver (x):1_ns:0:1:1(4:1)\n2:0:1:1:1:5";
	for (i = 1; i <= 150000; i++) printf ":4:%d", i; printf ":4:3\n";
	for (i = 6; i < 150000; i++) printf "2:0:1:1:%d:%d:4:%d\n", i % 4 + 1, i, i % 7 }' \
	>"$tmp/big1.prv"
awk 'BEGIN { printf "#Paraver (x):1_ns:0:1:1(4:1)\n2:0:1:1:1:5:4:3\n";
	for (i = 6; i < 150000; i++) printf "2:0:1:1:%d:%d:4:9\n2:0:1:1:%d:%d:4:%d\n",
		i % 4 + 1, i, i % 4 + 1, i, i % 7 }' >"$tmp/big2.prv"
for f in big1 big2 big3; do
	printf 'LEVEL THREAD SIZE 4\nA\nB\nC\nD\n' >"$tmp/$f.row"
done
sed '$s/:4:[0-9]*$/:4:100/' "$tmp/big2.prv" >"$tmp/big3.prv"
expect_equal "a line over 1 MiB and 300,000 records" "$tmp/big1.prv" "$tmp/big2.prv"
last=$(tail -n 1 "$tmp/big2.prv")
lrow=$(echo "$last" | cut -d: -f5 | tr 1234 ABCD)
ltime=$(echo "$last" | cut -d: -f6)
lval=$(echo "$last" | cut -d: -f8)
expect_diff "big traces, last value changed" \
	"row $lrow type 4: first difference at time $ltime: A has $lval, B has 100" \
	"$tmp/big1.prv" "$tmp/big3.prv"

# Real differences, each a copy of base with one change.
variant() { # NAME SED-SCRIPT
	sed "$2" "$B" >"$tmp/$1.prv"
	cp "$tmp/base.row" "$tmp/$1.row"
}

variant changed 's/^2:0:1:1:1:10:4:2$/2:0:1:1:1:10:4:5/'
expect_diff "value changed" \
	'row TH 1.1 type 4: first difference at time 10: A has 2, B has 5' "$B" "$tmp/changed.prv"
expect_diff "value changed: count line" \
	'1 differences in 4 (row, type) pairs' "$B" "$tmp/changed.prv"
expect_diff "value changed, A and B swapped" \
	'row TH 1.1 type 4: first difference at time 10: A has 5, B has 2' "$tmp/changed.prv" "$B"
expect_equal "value changed in a type left out by --types" --types 1-3,5-100 "$B" "$tmp/changed.prv"
expect_diff "value changed in a type kept by --types" \
	'row TH 1.1 type 4: first difference at time 10: A has 2, B has 5' \
	--types=6,4 "$B" "$tmp/changed.prv"

# Each row: FILE|SED SCRIPT|NAME|LINE, a variant of base (A) that prvdiff
# must report with LINE.
while IFS='|' read -r vname script name line; do
	variant "$vname" "$script"
	expect_diff "$name" "$line" "$B" "$tmp/$vname.prv"
done <<'EOF'
later|s/^2:0:1:1:2:20:4:3$/2:0:1:1:2:21:4:3/|time shifted by 1 ns later|row TH 1.2 type 4: first difference at time 20: A has 3, B has 1
earlier|s/^2:0:1:1:2:5:4:1$/2:0:1:1:2:4:4:1/|time shifted by 1 ns earlier|row TH 1.2 type 4: first difference at time 4: A has 0, B has 1
lastwins|/^2:0:1:1:1:10:4:2$/{p;s/:2$/:1/;}|last value at an equal time differs|row TH 1.1 type 4: first difference at time 10: A has 2, B has 1
pairs|s/^2:0:1:1:1:10:4:2$/2:0:1:1:1:10:4:2:4:1/|last pair of a line wins|row TH 1.1 type 4: first difference at time 10: A has 2, B has 1
noreset|/^2:0:1:1:1:30:4:0$/d|the final reset to 0 missing|row TH 1.1 type 4: first difference at time 30: A has 0, B has 2
EOF

variant newtype 's/^2:0:1:1:2:20:4:3$/2:0:1:1:2:20:4:3:8:5/'
expect_diff "a type only in B" \
	'row TH 1.2 type 8: first difference at time 20: A has 0, B has 5' "$B" "$tmp/newtype.prv"
expect_diff "a type only in A" \
	'row TH 1.2 type 8: first difference at time 20: A has 5, B has 0' "$tmp/newtype.prv" "$B"

variant state 's/^1:0:1:1:1:10:25:3$/1:0:1:1:1:10:26:3/'
expect_diff "a state interval differs (--states)" \
	'row TH 1.1 type state: first difference at time 25: A has 0, B has 3' \
	--states "$B" "$tmp/state.prv"
expect_equal "a state interval differs, no --states" "$B" "$tmp/state.prv"
variant state2 's/^1:0:1:1:2:5:15:2$/1:0:1:1:2:5:15:4/'
expect_diff "a state value differs (--states)" \
	'row TH 1.2 type state: first difference at time 5: A has 2, B has 4' \
	--states "$B" "$tmp/state2.prv"

# --state-type: ovniemu writes thread states only as type-4 events, weft also
# as state records; the events of A stand for its states up to the end (1000).
mk evonly '0:1:1(2:1)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:0:1:1:1:0:4:1
2:0:1:1:2:5:4:1
2:0:1:1:1:10:4:2
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
EOF
mk withst '0:1:1(2:1)' 'TH 1.1' 'TH 1.2' <<'EOF'
2:0:1:1:1:0:4:1
1:0:1:1:1:0:10:1
2:0:1:1:2:5:4:1
1:0:1:1:2:5:20:1
2:0:1:1:1:10:4:2
1:0:1:1:1:10:30:2
2:0:1:1:2:20:4:3
1:0:1:1:2:20:1000:3
2:0:1:1:1:30:4:0
EOF
expect_equal "--state-type 4: type-4 events of A = state records of B" \
	--states --state-type 4 "$tmp/evonly.prv" "$tmp/withst.prv"
expect_equal "--state-type 4, the other way round" \
	--states --state-type 4 "$tmp/withst.prv" "$tmp/evonly.prv"
expect_diff "--states without --state-type: A has no states" \
	'row TH 1.1 type state: first difference at time 0: A has 0, B has 1' \
	--states "$tmp/evonly.prv" "$tmp/withst.prv"
sed 's/^1:0:1:1:2:20:1000:3$/1:0:1:1:2:20:900:3/' "$tmp/withst.prv" >"$tmp/early.prv"
cp "$tmp/withst.row" "$tmp/early.row"
expect_diff "--state-type 4: the last state ends before the trace end" \
	'row TH 1.2 type state: first difference at time 900: A has 3, B has 0' \
	--states --state-type 4 "$tmp/evonly.prv" "$tmp/early.prv"
sed 's/^2:0:1:1:1:10:4:2$/2:0:1:1:1:10:4:5/' "$tmp/withst.prv" >"$tmp/ev5.prv"
cp "$tmp/withst.row" "$tmp/ev5.row"
expect_equal "--state-type 4: a trace with state records keeps them" \
	--states --state-type 4 --types 7 "$tmp/withst.prv" "$tmp/ev5.prv"
expect_diff "--state-type 4: type 4 itself still compared" \
	'row TH 1.1 type 4: first difference at time 10: A has 2, B has 5' \
	--states --state-type 4 "$tmp/withst.prv" "$tmp/ev5.prv"

mk extrarow '0:1:1(3:1)' 'TH 1.1' 'TH 1.2' 'TH 1.3' <<'EOF'
2:0:1:1:1:0:4:1
2:0:1:1:1:0:6:3
2:0:1:1:3:3:4:9
2:0:1:1:2:5:4:1
2:0:1:1:1:10:4:2
2:0:1:1:1:10:6:0
2:0:1:1:2:20:4:3
2:0:1:1:1:30:4:0
2:0:1:1:1:30:7:1
EOF
expect_diff "a row with values in B only" \
	'row TH 1.3 type 4: first difference at time 3: A has 0, B has 9 (row only in B)' \
	"$B" "$tmp/extrarow.prv"

variant three 's/^2:0:1:1:1:0:6:3$/2:0:1:1:1:0:6:4/; s/^2:0:1:1:1:10:4:2$/2:0:1:1:1:10:4:5/; s/^2:0:1:1:2:20:4:3$/2:0:1:1:2:20:4:6/'
run --max 1 "$B" "$tmp/three.prv"
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$OUT")" -eq 2 ] &&
	grep -qx 'row TH 1.1 type 4: first difference at time 10: A has 2, B has 5' "$OUT" &&
	grep -qx '3 differences in 4 (row, type) pairs' "$OUT"; then
	result "--max 1 prints one of three differences" ""
else
	result "--max 1 prints one of three differences" "exit $rc: $(tr '\n' ' ' <"$OUT")"
fi
run --max 0 "$B" "$tmp/three.prv"
if [ "$rc" -eq 1 ] && [ "$(cat "$OUT")" = "3 differences in 4 (row, type) pairs" ]; then
	result "--max 0 prints the count only" ""
else
	result "--max 0 prints the count only" "exit $rc: $(tr '\n' ' ' <"$OUT")"
fi
run "$B" "$tmp/three.prv"
if [ "$rc" -eq 1 ] && [ "$(wc -l <"$OUT")" -eq 4 ]; then
	result "all three differences reported by default" ""
else
	result "all three differences reported by default" "exit $rc: $(tr '\n' ' ' <"$OUT")"
fi

# Same records, tasks of 3 and 2 threads instead of 2 and 3: 1.2.1 is R4 now.
mk map '0:1:2(3:1,2:1)' R1 R2 R3 R4 R5 <<'EOF'
2:0:1:1:1:1:4:1
2:0:1:1:2:2:4:2
2:0:1:2:1:3:4:3
2:0:1:2:2:4:4:4
EOF
expect_diff "same records, other task layout: rows differ" \
	'row R3 type 4: first difference at time 3: A has 3, B has 0' \
	"$tmp/tasks5.prv" "$tmp/map.prv"

# ---- 3. usage and input errors -------------------------------------------------

run --help
result "--help exits 0" "$( [ "$rc" -eq 0 ] && grep -q '^Usage: prvdiff' "$OUT" && grep -q 'ommunication records' "$OUT" || echo "exit $rc")"

# Each row: NAME|MESSAGE|ARGUMENTS (words; @B@ and @T@ as in at()).
while IFS='|' read -r name text args; do
	set -f
	# shellcheck disable=SC2086 # the words of the row
	set -- $args
	set +f
	n=$#
	for a in "$@"; do
		set -- "$@" "$(at "$a")"
	done
	shift "$n"
	expect_error "$name" "$(at "$text")" "$@"
done <<'EOF'
no arguments|expected two traces|
one argument|expected two traces|@B@
three arguments|too many arguments|@B@ @B@ @B@
unknown option|unknown option '--bogus'|--bogus @B@ @B@
--types without a value|--types needs a value|--types
--types empty range|empty range 5-3|--types 5-3 @B@ @B@
--types not a number|expected a type number|--types x @B@ @B@
--types empty element|expected a type number|--types 1,,2 @B@ @B@
--types too large|expected a type number|--types 4294967296 @B@ @B@
--rows bad mode|expected 'name' or 'ovni'|--rows foo @B@ @B@
--max negative|--max '-1'|--max -1 @B@ @B@
--state-type without --states|--state-type needs --states|--state-type 4 @B@ @B@
--state-type not a number|--state-type 'x': expected an event type|--states --state-type x @B@ @B@
missing file|cannot open @T@/nothere.prv|@B@ @T@/nothere.prv
not a .prv name|must end in .prv or .prv.gz|@B@ @T@/base.row
EOF

cp "$B" "$tmp/norow.prv"
expect_error "missing .row file" "norow.row (the .row file of B)" "$B" "$tmp/norow.prv"

# Each row: NAME|MESSAGE|HEADER|ROWS|BODY (lines joined by ';'), a trace B
# that prvdiff must refuse with MESSAGE.
while IFS='|' read -r name text hdr rows body; do
	# shellcheck disable=SC2046 # one row name (T1, T2, ...) per word
	printf '%s\n' "$body" | tr ';' '\n' | mk bad "$hdr" $(seq 1 "$rows" | sed 's/^/T/')
	expect_error "$name" "$text" "$B" "$tmp/bad.prv"
done <<'EOF'
body record kind|bad.prv:2: unknown record kind 'x'|0:1:1(2:1)|2|x
zero threads in a task|a task's thread count is 0|0:1:1(0:1)|1|2:0:1:1:1:0:4:1
missing communicator line|declares 2 communicator lines|0:1:1(2:1),2|2|c:1:1:1:1
malformed event record|bad.prv:3: malformed event record: expected the value|0:1:1(2:1)|2|2:0:1:1:1:0:4:1;2:0:1:1:1:1:4:
malformed value|bad.prv:2: malformed event record: expected ':' or the end of the line|0:1:1(2:1)|2|2:0:1:1:1:0:4:1x
space in a record|bad.prv:2: malformed event record|0:1:1(2:1)|2|2:0:1:1:1:0: 4:1
malformed state record|bad.prv:2: malformed state record|0:1:1(2:1)|2|1:0:1:1:1:0:4
state ends before it begins|bad.prv:2: state record ends (3) before it begins (4)|0:1:1(2:1)|2|1:0:1:1:1:4:3:1
unknown record kind|bad.prv:3: unknown record kind 'x'|0:1:1(2:1)|2|2:0:1:1:1:0:4:1;x:0
thread out of range|bad.prv:2: event record of thread 1.1.3, but task 1.1 has 2 threads|0:1:1(2:1)|2|2:0:1:1:3:0:4:1
application out of range|event record of application 2|0:1:1(2:1)|2|2:0:2:1:1:0:4:1
CPU without resources|bad.prv:2: event record on CPU 1, but the header declares 0 CPUs|0:1:1(2:1)|2|2:1:1:1:1:0:4:1
CPU of another node|on CPU 3 of node 2, but its task runs on node 1|2(2,2):1:1(2:1)|2|2:3:1:1:1:0:4:1
records of a thread out of time order|bad.prv:3: record at time 4 of row 2|0:1:1(2:1)|2|2:0:1:1:2:5:4:1;2:0:1:1:2:4:4:2
EOF
printf 'Paraver (01/01/25 at 00:00):1000_ns:0:1:1(2:1)\n' >"$tmp/bad.prv"
expect_error "bad header" "bad.prv:1: not a Paraver trace" "$B" "$tmp/bad.prv"
printf '#Paraver (01/01/25 at 00:00):1000_ns:0:1:1(2:1\n' >"$tmp/bad.prv"
expect_error "unterminated header" "bad.prv:1: bad Paraver header: expected ')'" "$B" "$tmp/bad.prv"
printf '%s\n' '1:0:1:1:1:0:10:1' '1:0:1:1:1:9:12:2' '2:0:1:1:2:0:4:1' | mk bad '0:1:1(2:1)' 'TH 1.1' 'TH 1.2'
expect_error "overlapping states (--states)" "bad.prv:3: state [9, 12) of row 1" \
	--states "$B" "$tmp/bad.prv"
expect_equal "overlapping states ignored without --states" "$tmp/bad.prv" "$tmp/bad.prv"

printf '2:0:1:1:1:0:4:1\n' | mk bad '0:1:1(2:1)' 'TH 1.1'
expect_error ".row THREAD size differs from the header" \
	"bad.row:4: LEVEL THREAD SIZE 1, but the header of $tmp/bad.prv declares 2 threads" \
	"$B" "$tmp/bad.prv"
printf '2:0:1:1:1:0:4:1\n' | mk bad '0:1:1(2:1)' 'TH 1.1' ' TH 1.1'
expect_error "duplicate row name" "bad.row:6: row key \"TH 1.1\" repeats the row of line 5" \
	"$B" "$tmp/bad.prv"
printf '2:0:1:1:1:0:4:1\n' | mk bad '0:1:1(2:1)' 'TH 1.1 a' 'TH 1.1 b'
expect_equal "names distinct in full" "$tmp/bad.prv" "$tmp/bad.prv"
expect_error "duplicate key with --rows ovni" "row key \"TH 1.1\" repeats" \
	--rows ovni "$tmp/bad.prv" "$tmp/bad.prv"
printf 'LEVEL NODE SIZE 1\nhostname\n' >"$tmp/bad.row"
expect_error ".row without a THREAD level" "no 'LEVEL THREAD SIZE <n>' block" "$B" "$tmp/bad.prv"
printf 'LEVEL THREAD SIZE 2\nTH 1.1\n' >"$tmp/bad.row"
expect_error ".row ends early" "bad.row:1: LEVEL THREAD SIZE 2 but the file ends after 1 names" \
	"$B" "$tmp/bad.prv"
printf 'LEVEL CPU SIZE 2\n1\n2\nrubbish\n' >"$tmp/bad.row"
expect_error ".row with a stray line" "bad.row:4: expected a 'LEVEL <NAME> SIZE <n>' line" \
	"$B" "$tmp/bad.prv"

finish
