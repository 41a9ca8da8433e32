#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft plot` (src/plot/, src/cli/plot.c).
#
#   WEFT=/abs/weft sh test/e2e/plot.sh
#
# On the PICL, VisAndOr, CHARISMA and ovni example outputs: a valid SVG
# (xmllint --noout) that rsvg-convert renders to a PNG; the rows in order
# with their .row names, the .pcf state colours and labels, one line per
# communication, a time axis in the right unit; cpu.prv with --type; the
# same bytes twice; 3000 rows grouped with --max-rows; errors (missing
# trace, malformed line, bad option) with their message and exit status.
# Needs xmllint (libxml2-utils) and rsvg-convert (librsvg2-bin): `make deps`.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
for tool in xmllint rsvg-convert; do
	command -v $tool >/dev/null 2>&1 || {
		echo "plot.sh: $tool is missing (make deps installs libxml2-utils and librsvg2-bin)" >&2
		exit 2
	}
done

# svg NAME PRV [ARGS]: plot into $tmp/NAME.svg, validate, render
svg() {
	n=$1
	prv=$2
	shift 2
	if ! "$WEFT" plot -q -o "$tmp/$n.svg" "$@" "$prv" 2>"$tmp/err"; then
		fail "$n plot" "$(head -3 "$tmp/err")"
		return 1
	fi
	if ! xmllint --noout "$tmp/$n.svg" 2>"$tmp/err"; then
		fail "$n xmllint" "$(head -3 "$tmp/err")"
		return 1
	fi
	if ! rsvg-convert -o "$tmp/$n.png" "$tmp/$n.svg" 2>"$tmp/err" ||
		[ "$(head -c 4 "$tmp/$n.png" | od -An -c | tr -d ' ')" != '211PNG' ]; then
		fail "$n rsvg-convert" "$(head -3 "$tmp/err")"
		return 1
	fi
	pass "$n: valid SVG, rendered to PNG"
}
# the row names drawn, in order
rownames() { sed -n 's|.*<text x="[0-9]*" y="[0-9]*" dominant-baseline="middle">\(.*\)</text>|\1|p' "$1" | tr '\n' ';'; }
# the legend entries
legend() { sed -n 's|.*<text x="[0-9]*" y="[0-9]*">\(-*[0-9][0-9]* .*\) ([0-9.]*%)</text>|\1|p' "$1" | tr '\n' ';'; }

# ---- PICL: 16 processors with messages -------------------------------------
"$WEFT" emu -q -o "$tmp/picl" "$here/picl/fft.trf" 2>/dev/null
if svg picl "$tmp/picl/thread.prv"; then
	expect "picl rows in processor order, with their .row names" \
		"$(rownames "$tmp/picl.svg" | cut -d';' -f1,2,10,11,16)" \
		"TH 1.1 picl.00/1;TH 1.2 picl.01/2;TH 1.10 picl.09/10;TH 1.11 picl.10/11;TH 1.16 picl.15/16"
	expect "picl legend: the states written, .pcf labels" "$(legend "$tmp/picl.svg")" \
		"7 Ended;30 Running;31 Sending;32 Receiving (blocked);"
	# Sending is {255,46,0} in the .pcf
	sending=$(grep -o '\.s[0-9]*{fill:#ff2e00}' "$tmp/picl.svg" | sed 's/{.*//; s/^\.//')
	expect "picl: Sending drawn in its .pcf colour" \
		"$([ -n "$sending" ] && grep -c "class=\"$sending\"" "$tmp/picl.svg" | awk '{ print ($1 > 16) }')" 1
	expect "picl: one line per communication" "$(grep -c '<line class="c"' "$tmp/picl.svg")" 64
	expect "picl: time axis in us" "$(grep -c '>time (us)<' "$tmp/picl.svg")" 1
	expect "picl: a bar per row" "$(grep -c 'time per state per row' "$tmp/picl.svg")" 1
	"$WEFT" plot -q -o "$tmp/picl2.svg" "$tmp/picl/thread.prv"
	expect "picl: same bytes twice" "$(cmp -s "$tmp/picl.svg" "$tmp/picl2.svg" && echo same)" same
	"$WEFT" plot "$tmp/picl/thread.prv" >"$tmp/out" 2>&1
	expect "picl: default output beside the trace, summary line" \
		"$(cat "$tmp/out"):$([ -s "$tmp/picl/thread.svg" ] && echo there)" \
		"$tmp/picl/thread.svg: 16 rows, 832 records, 64 communications (64 lines drawn):there"
fi

# ---- VisAndOr, CHARISMA, ovni -----------------------------------------------
"$WEFT" emu -q -o "$tmp/andfork" "$here/visandor/and-ciao.vao" 2>/dev/null
svg andfork "$tmp/andfork/thread.prv" &&
	expect "and-fork legend" "$(legend "$tmp/andfork.svg")" "10 Running goal;11 Waiting for join;12 Idle;"
"$WEFT" synth --format charisma -o "$tmp/charisma.dat" >/dev/null
"$WEFT" emu -q -o "$tmp/charisma" "$tmp/charisma.dat" 2>/dev/null
svg charisma "$tmp/charisma/thread.prv" &&
	expect "CHARISMA: 64 rows, every other named" "$(rownames "$tmp/charisma.svg" | cut -d';' -f1,2,32)" \
		"TH 1.1 node00/2;TH 1.3 node02/2;TH 8.63 node62/9"
"$WEFT" synth -o "$tmp/ovni-trace" --looms 2 --procs 2 --threads 3 --cpus 4 --events 20000 --seed 1 >/dev/null
"$WEFT" emu -q -o "$tmp/ovni" "$tmp/ovni-trace"
svg ovni "$tmp/ovni/thread.prv" && expect "ovni legend" "$(legend "$tmp/ovni.svg")" \
	"1 Running;2 Paused;3 Dead;4 Cooling;5 Warming;"
if svg ovni-cpu "$tmp/ovni/cpu.prv" --type 2; then
	expect "ovni cpu.prv --type 2: its label, 10 CPU rows" \
		"$(grep -c '>2 CPU: TID of the RUNNING thread<' "$tmp/ovni-cpu.svg"):$(rownames "$tmp/ovni-cpu.svg" | tr ';' '\n' | grep -c CPU)" "1:10"
fi

# ---- many rows: grouped -------------------------------------------------------
awk 'BEGIN {
	n = 3000; printf "#Paraver (01/01/2026 at 00:00):1000000_ns:0:1:1(%d:1)\n", n
	for (r = 1; r <= n; r++) printf "1:0:1:1:%d:0:%d:%d\n", r, 500000 + r, 1 + r % 3
	for (r = 1; r <= n; r++) printf "1:0:1:1:%d:%d:1000000:2\n", r, 500000 + r
}' >"$tmp/big.prv"
if svg big "$tmp/big.prv" --max-rows 100; then
	expect "3000 rows in 100 groups: first label, summarised" \
		"$(rownames "$tmp/big.svg" | cut -d';' -f1):$(grep -c 'summarised' "$tmp/big.svg")" "rows 1-30:1"
	expect "no .pcf: numbers for names" "$(legend "$tmp/big.svg")" "1 ;2 ;3 ;"
fi

# ---- cpu.prv, --type by number or label, unknown types, .prv.gz ------------------
test_expect_success 'cpu.prv without --type: drawn by its main type (2, the running thread), said' '
	"$WEFT" plot -o "$tmp/nostates.svg" "$tmp/ovni/cpu.prv" >/dev/null 2>"$tmp/err" &&
	test_grep "has no state records: drawn by event type 2, its main type" "$tmp/err" &&
	test_grep ">2 CPU: TID of the RUNNING thread<" "$tmp/nostates.svg" &&
	test_grep "Values \(share" "$tmp/nostates.svg" &&
	"$WEFT" plot -q -o "$tmp/type2.svg" --type 2 "$tmp/ovni/cpu.prv" &&
	test_cmp "$tmp/type2.svg" "$tmp/nostates.svg"
'
test_expect_success 'a nOS-V cpu.prv: drawn by the nOS-V subsystem (13)' '
	"$WEFT" synth -o "$tmp/nosv-trace" --models nosv --events 20000 >/dev/null &&
	"$WEFT" emu -q -o "$tmp/nosv" "$tmp/nosv-trace" &&
	"$WEFT" plot -o "$tmp/nosv.svg" "$tmp/nosv/cpu.prv" >/dev/null 2>"$tmp/err" &&
	test_grep "drawn by event type 13" "$tmp/err" && test_grep ">13 nOS-V subsystem of the RUNNING thread<" "$tmp/nosv.svg"
'
test_expect_success '--type 999: exit 2, the types present listed, no SVG' '
	test_status 2 "$WEFT" plot -o "$tmp/999.svg" --type 999 "$tmp/ovni/cpu.prv" 2>"$tmp/err" &&
	test_grep "error: --type 999: .*cpu.prv has no record of it; the types with records: 1 CPU: PID of the RUNNING thread \([0-9]+ records\), 2 CPU: TID" "$tmp/err" &&
	test_no_file "$tmp/999.svg"
'
test_expect_success '--type tid, --type "CPU: TID of the RUNNING thread": type 2 by its label' '
	"$WEFT" plot -q -o "$tmp/tid.svg" --type tid "$tmp/ovni/cpu.prv" &&
	test_cmp "$tmp/type2.svg" "$tmp/tid.svg" &&
	"$WEFT" plot -q -o "$tmp/tid2.svg" --type "cpu: tid of the running thread" "$tmp/ovni/cpu.prv" &&
	test_cmp "$tmp/type2.svg" "$tmp/tid2.svg"
'
test_expect_success '--type running: four labels match, listed, exit 2; --type zzz: none' '
	test_status 2 "$WEFT" plot -o "$tmp/r.svg" --type running "$tmp/ovni/cpu.prv" 2>"$tmp/err" &&
	test_grep "--type .running.: 4 event types of the .pcf match: 1 CPU: PID" "$tmp/err" &&
	test_status 2 "$WEFT" plot -o "$tmp/r.svg" --type zzz "$tmp/ovni/cpu.prv" 2>"$tmp/err" &&
	test_grep "no event type of the .pcf is labelled so; its types: 1 CPU" "$tmp/err" &&
	test_no_file "$tmp/r.svg"
'
test_expect_success 'a .prv.gz: read through zlib, beside it X.svg, the picture of the plain trace' '
	"$WEFT" emu -q -z -o "$tmp/gz" "$tmp/ovni-trace" &&
	"$WEFT" plot "$tmp/gz/thread.prv.gz" >"$tmp/out" &&
	test "$(cat "$tmp/out")" = "$tmp/gz/thread.svg: 12 rows, $(grep -c -v "^[#c]" "$tmp/ovni/thread.prv") records, 0 communications (0 lines drawn)" &&
	sed "s/thread.prv.gz</thread.prv</" "$tmp/gz/thread.svg" >"$tmp/gz.svg" &&
	test_cmp "$tmp/ovni.svg" "$tmp/gz.svg"
'
test_expect_success 'a damaged .prv.gz: exit 1, said, no SVG' '
	head -c 3000 "$tmp/gz/thread.prv.gz" >"$tmp/cut.prv.gz" &&
	test_status 1 "$WEFT" plot -o "$tmp/cut.svg" "$tmp/cut.prv.gz" 2>"$tmp/err" &&
	test_grep "cut.prv.gz: gzip read failed after line" "$tmp/err" && test_no_file "$tmp/cut.svg"
'

# ---- wxParaver's colours ------------------------------------------------------------
# Values 1 (its .pcf colour), 8 and 40 (Paraver's default palette), 49 (the
# first colour Paraver adds to its 49, entry 1 with one more red, {1,0,255},
# too dark on its black background and so moved to {1,24,255}) and 100002
# (far in the expanded palette): each read off a wxParaver 4.11 screenshot
# of this very trace.
awk 'BEGIN { printf "#Paraver (01/01/2026 at 00:00):1000_ns:0:1:1(5:1)\n"
	split("1 8 40 49 100002", v, " ")
	for (r = 1; r <= 5; r++) printf "2:0:1:1:%d:0:77:%d\n", r, v[r] }' >"$tmp/pal.prv"
printf 'STATES_COLOR\n0    {0,0,0}\n1    {12,34,56}\n\nEVENT_TYPE\n0 77 Colour test\n' >"$tmp/pal.pcf"
test_expect_success '--type: each value in the colour wxParaver gives it' '
	"$WEFT" plot -q -o "$tmp/pal.svg" --type 77 "$tmp/pal.prv" &&
	grep -o "\.s[0-9]*{fill:#[0-9a-f]*}" "$tmp/pal.svg" | sed "s/.*#//; s/}//" | tr "\n" " " >"$tmp/got" &&
	echo "0c2238 eb0000 ff1400 0118ff 87201e " >"$tmp/want" && echo >>"$tmp/got" &&
	test_cmp "$tmp/want" "$tmp/got"
'

# ---- many messages: the lines an even sample of the whole run ---------------------
test_expect_success '33,000 messages: the lines drawn spread over the whole run' '
	"$WEFT" synth --format picl -o "$tmp/many.trf" --records 200000 >/dev/null &&
	"$WEFT" emu -q -o "$tmp/many" "$tmp/many.trf" &&
	"$WEFT" plot -q -o "$tmp/many.svg" "$tmp/many/thread.prv" &&
	sed -n "s/.*<line class=\"c\" x1=\"\([0-9]*\)\".*/\1/p" "$tmp/many.svg" >"$tmp/x1" &&
	n=$(wc -l <"$tmp/x1") && test "$n" -gt 1000 && test "$n" -le 4000 &&
	test "$(awk "\$1 >= 170 + 900" "$tmp/x1" | wc -l)" -gt $((n / 20)) &&
	test "$(awk "\$1 < 170 + 500" "$tmp/x1" | wc -l)" -lt $((n * 6 / 10))
'

# ---- errors ---------------------------------------------------------------------
"$WEFT" plot "$tmp/none.prv" >/dev/null 2>"$tmp/err"
expect "missing trace: exit 1, named" "$?:$(grep -c "none.prv: cannot open for reading" "$tmp/err")" "1:1"
printf '#Paraver (x):100_ns:0:1:1(2:1)\n1:0:1:1:1:0:50:1\n1:0:1:1:3:0:50:1\n' >"$tmp/bad.prv"
"$WEFT" plot -o "$tmp/bad.svg" "$tmp/bad.prv" >/dev/null 2>"$tmp/err"
expect "thread 3 of 2: exit 1, line named, no SVG" \
	"$?:$(grep -c 'bad.prv:3: expected K:cpu:appl:task:thread: naming an object of the header' "$tmp/err"):$([ -e "$tmp/bad.svg" ] && echo left)" "1:1:"
"$WEFT" plot --width 5 "$tmp/picl/thread.prv" >/dev/null 2>"$tmp/err"
expect "--width 5: exit 2" "$?:$(grep -c "expected 100-20000 pixels, found '5'" "$tmp/err")" "2:1"

finish
