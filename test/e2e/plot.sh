#!/bin/sh
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

"$WEFT" plot -q -o "$tmp/nostates.svg" "$tmp/ovni/cpu.prv" 2>"$tmp/err"
expect "cpu.prv without --type: written, with a hint" "$?:$(grep -c 'has no state records: the rows are empty; draw the values of an event type with --type T' "$tmp/err")" "0:1"

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
