#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Render every view weft ships, and every view ovni ships, in wxParaver, on
# weft's outputs (and ovni's views also on ovniemu's outputs of the same
# traces), and measure each picture: did a dialog open, does each window of
# the view draw states or values (colours in its drawing area, and which of
# them the .pcf gives), do ovni's views draw the same colours on weft's and
# on ovniemu's outputs, and does paramedir compute the same values on both.
# A developer tool, NOT part of `make check`: it needs wxParaver, Xvfb,
# xdotool, xprop and ImageMagick (doc/dev/views.md).
#
#   WXPARAVER=/path/bin/wxparaver OVNI=/ovni/prefix \
#     sh test/dev/wxviews.sh [WORKDIR]
#
# WEFT defaults to build/weft; OVNI (optional) is an ovni install prefix: its
# share/ovni/ views are rendered too, and its ovniemu emulates the synthetic
# multi-model trace. WORKDIR (default /tmp/wxviews) gets the outputs, one
# PNG per window rendered, loader.tsv (paramedir), results.tsv (one line per
# render), windows.tsv (one line per window), compare.tsv (ovni's views on
# both outputs); the summary goes to stdout.
#   WXVIEWS_ONLY=REGEX   only the views whose path matches
#   WXVIEWS_DEDUP=1      render each view on one trace only (a quick pass;
#                        paramedir still loads every job)
#   WXVIEWS_TIMEOUT=S    how long a render may take to open its windows and
#                        finish drawing them (default 240 s)
#   WXVIEWS_ORIGIN=O     only the jobs of weft's views (weft) or ovni's (ovni)
#   WXVIEWS_PREP_ONLY=1  the outputs and jobs.tsv only
#   WXVIEWS_NO_RENDER=1  paramedir only, no wxParaver
#   WXVIEWS_VERDICTS_ONLY=1  the verdicts on the renders of a previous run

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
WEFT=${WEFT:-$top/build/weft}
OVNI=${OVNI:-}
work=${1:-/tmp/wxviews}
tmo=${WXVIEWS_TIMEOUT:-240}
only=${WXVIEWS_ONLY:-.}
fix=$top/test/fixtures/ovniemu
mkdir -p "$work/out" "$work/png"
res=$work/results.tsv
jobs=$work/jobs.tsv
: >"$jobs"

# ---- the outputs -----------------------------------------------------------
# weftemu NAME ARGS...: weft emu ARGS into $work/out/NAME/weft
weftemu() {
	n=$1
	shift
	rm -rf "$work/out/$n/weft"
	"$WEFT" emu -q "$@" -o "$work/out/$n/weft" 2>"$work/out/$n.err" </dev/null ||
		echo "weft emu $n failed: $(head -2 "$work/out/$n.err")" >&2
}
# ovniemu's outputs of fixture case CASE (BD: folder of the breakdown trace)
fixref() {
	d=$work/out/$1/ovniemu
	rm -rf "$d"
	mkdir -p "$d"
	for f in "$fix/$2"/*.prv* "$fix/$2"/*.pcf "$fix/$2"/*.row; do
		[ -f "$f" ] && cp "$f" "$d/"
	done
	if [ "$3" != - ] && [ "$3" != . ]; then cp "$fix/$2/$3"/* "$d/"; fi
	find "$d" -name '*.gz' -exec gzip -df {} \;
}
while read -r case flags bd; do
	n=$(echo "$case" | tr / -)
	mkdir -p "$work/out/$n"
	rm -rf "$work/out/$n/trace"
	cp -R "$fix/$case/trace" "$work/out/$n/trace"
	find "$work/out/$n/trace" -name '*.gz' -exec gzip -df {} \;
	[ "$flags" = - ] && flags=
	# shellcheck disable=SC2086 # FLAGS: words
	weftemu "$n" $flags "$work/out/$n/trace"
	fixref "$n" "$case" "$bd"
done <<'EOF'
ovni/flush -l -
ovni/libovni-mark -l -
ovni/sort-flush -l -
nosv/task-types -b breakdown
nosv/hwc -l -
nanos6/task-types -b breakdown
nanos6/breakdown-no-black -b .
openmp/nested-ws -b breakdown
openmp/mix-task-ws -b breakdown
openmp/subsystems -b breakdown
mpi/func -l -
tampi/ss-comm -l -
EOF
# a synthetic multi-model ovni trace (kernel and NODES included), by both
n=synth-ovni
mkdir -p "$work/out/$n"
rm -rf "$work/out/$n/trace"
"$WEFT" synth -o "$work/out/$n/trace" --looms 2 --procs 2 --threads 2 --cpus 4 \
	--events 20000 --seed 7 --models mpi,tampi,kernel,nosv,nodes >/dev/null
weftemu "$n" -b "$work/out/$n/trace"
if [ -n "$OVNI" ] && [ -x "$OVNI/bin/ovniemu" ]; then
	rm -rf "$work/out/$n/ovniemu"
	cp -R "$work/out/$n/trace" "$work/out/$n/ovniemu"
	"$OVNI/bin/ovniemu" -b "$work/out/$n/ovniemu" >"$work/out/$n/ovniemu.log" 2>&1 ||
		echo "ovniemu $n failed" >&2
fi
# weft's own models: legacy logs, synthetic and from the corpus
for kind in and or; do
	n=visandor-$kind
	mkdir -p "$work/out/$n"
	"$WEFT" synth --format visandor --kind $kind --agents 3 -n 2000 -o "$work/out/$n/log" >/dev/null
	weftemu "$n" "$work/out/$n/log"
done
n=picl
mkdir -p "$work/out/$n"
"$WEFT" synth --format picl --procs 8 -n 4000 -o "$work/out/$n/log" >/dev/null
weftemu "$n" "$work/out/$n/log"
n=charisma
mkdir -p "$work/out/$n"
"$WEFT" synth --format charisma -o "$work/out/$n/log" >/dev/null
weftemu "$n" "$work/out/$n/log"
for c in "$top"/test/e2e/picl/fft.trf; do
	[ -e "$c" ] || continue
	n=corpus-$(basename "$c" | tr . -)
	mkdir -p "$work/out/$n"
	weftemu "$n" "$c"
done

# ---- the jobs --------------------------------------------------------------
# prvof DIR VIEWPATH: the trace a view opens in DIR
prvof() {
	case "$2" in
	cpu/*/breakdown*.cfg)
		m=${2#cpu/}
		echo "$1/${m%%/*}-breakdown.prv"
		;;
	cpu/*) echo "$1/cpu.prv" ;;
	*) echo "$1/thread.prv" ;;
	esac
}
for d in "$work"/out/*/; do
	n=$(basename "$d")
	[ -d "$d/weft/cfg" ] || continue
	(cd "$d/weft/cfg" && find . -name '*.cfg' | sed 's|^\./||' | sort) | while read -r v; do
		echo "$v" | grep -Eq "$only" || continue
		printf '%s\tweft\tweft\t%s\t%s\t%s\n' "$n" "$v" "$(prvof "$d/weft" "$v")" "$d/weft/cfg/$v" >>"$jobs"
		o=$OVNI/share/ovni/$v
		if [ -z "$OVNI" ] || [ ! -f "$o" ]; then continue; fi
		printf '%s\tweft\tovni\t%s\t%s\t%s\n' "$n" "$v" "$(prvof "$d/weft" "$v")" "$o" >>"$jobs"
		[ -f "$(prvof "$d/ovniemu" "$v")" ] || continue
		printf '%s\tovniemu\tovni\t%s\t%s\t%s\n' "$n" "$v" "$(prvof "$d/ovniemu" "$v")" "$o" >>"$jobs"
	done
done

# WXVIEWS_ORIGIN=weft or ovni: only the jobs of those views
if [ -n "${WXVIEWS_ORIGIN:-}" ]; then
	awk -F'\t' -v o="$WXVIEWS_ORIGIN" '$3 == o' "$jobs" >"$jobs.o" && mv "$jobs.o" "$jobs"
fi
# the key of a job: trace.emulator.origin.view, the view's path flattened
key() { printf '%s.%s.%s.%s' "$1" "$2" "$3" "$(echo "$4" | tr / - | sed 's/\.cfg$//')"; }
[ -n "${WXVIEWS_PREP_ONLY:-}" ] && { wc -l <"$jobs"; exit 0; }
WXPARAVER=${WXPARAVER:?set WXPARAVER to the wxparaver binary}

# ---- the loader's word and its values (paramedir) --------------------------
# paramedir (beside wxparaver) loads each view with the kernel code
# wxParaver uses (CFGLoader), prints on stdout the messages wxParaver asks
# in a dialog ("None of the events specified in the filter appear in the
# trace", "... failed to load in"), and writes the values of the view's last
# histogram, or of its last timeline, to a text file: kept as
# mcr/KEY.mcr, so that ovni's views can be compared on both outputs.
pmd=${PARAMEDIR:-$(dirname "$WXPARAVER")/paramedir}
[ -n "${WXVIEWS_VERDICTS_ONLY:-}" ] && pmd=/nonexistent
# ovni's views that weft writes for no output (ovni's template views, as
# the mark views with type 100, or views of what weft writes elsewhere):
# rendered on the traces where they load on ovniemu's output without a
# message, on both outputs
if [ -x "$pmd" ] && [ -n "$OVNI" ] && [ -d "$OVNI/share/ovni" ]; then
	mkdir -p "$work/pmd"
	(cd "$OVNI/share/ovni" && find . -name '*.cfg' | sed 's|^\./||' | sort) | while read -r v; do
		echo "$v" | grep -Eq "$only" || continue
		awk -F'\t' -v v="$v" '$3 == "ovni" && $4 == v { f = 1 } END { exit !f }' "$jobs" && continue
		found=
		cnt=0
		tried=0
		same=0
		for d in "$work"/out/*/; do
			n=$(basename "$d")
			prv=$(prvof "$d/ovniemu" "$v")
			[ -f "$prv" ] && [ -f "$(prvof "$d/weft" "$v")" ] || continue
			msg=$(cd "$work/pmd" && HOME=$work/pmd timeout 300 "$pmd" "$prv" "$OVNI/share/ovni/$v" "$work/pmd/out" 2>&1 </dev/null)
			rm -f "$work/pmd"/*
			if echo "$msg" | grep -v 'file written\.$' | grep -q '[^ ]'; then
				# the same message on weft's output?
				wmsg=$(cd "$work/pmd" && HOME=$work/pmd timeout 300 "$pmd" "$(prvof "$d/weft" "$v")" "$OVNI/share/ovni/$v" "$work/pmd/out" 2>&1 </dev/null)
				rm -f "$work/pmd"/*
				[ "$(echo "$msg" | sed 's/.*: //')" = "$(echo "$wmsg" | sed 's/.*: //')" ] && same=$((same + 1)) || {
					echo "ovni's $v on $n: ovniemu's output: $msg; weft's: $wmsg"
				}
				tried=$((tried + 1))
				continue
			fi
			[ -n "$found" ] || found=$n
			cnt=$((cnt + 1))
			printf '%s\tweft\tovni\t%s\t%s\t%s\n' "$n" "$v" "$(prvof "$d/weft" "$v")" "$OVNI/share/ovni/$v" >>"$jobs"
			printf '%s\tovniemu\tovni\t%s\t%s\t%s\n' "$n" "$v" "$prv" "$OVNI/share/ovni/$v" >>"$jobs"
		done
		echo "ovni's $v, a view weft does not write: ${found:+rendered on $cnt trace(s), the first $found}${found:-loads with a message on every ovniemu output}; $tried trace(s) with a message on ovniemu's output, the same on weft's on $same"
	done
fi
if [ -x "$pmd" ]; then
	mkdir -p "$work/pmd" "$work/mcr"
	printf 'trace\temulator\tviews\tview\texit\tmessages\n' >"$work/loader.tsv"
	while IFS='	' read -r n emu origin v prv cfg; do
		k=$(key "$n" "$emu" "$origin" "$v")
		rm -f "$work/pmd"/* "$work/mcr/$k".mcr*
		msg=$(cd "$work/pmd" && HOME=$work/pmd timeout 300 "$pmd" "$prv" "$cfg" "$work/mcr/$k.mcr" 2>&1 </dev/null)
		rc=$?
		msg=$(echo "$msg" | grep -v 'file written\.$' | grep -v '^ *$' | tr '\n' ' ' | cut -c1-300)
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$rc" "${msg:--}" >>"$work/loader.tsv"
	done <"$jobs"
	awk -F'\t' 'NR > 1 { r++; if ($5 != 0 || $6 != "-") { m++; print "loader: " $1 " " $2 " " $3 " " $4 ": exit " $5 ", " $6 } }
	END { printf "%d views loaded by paramedir, %d with a message or an error\n", r, m }' "$work/loader.tsv"
	# ovni's view on weft's and on ovniemu's output of one trace: the
	# values paramedir writes, line by line, as written (each line begins
	# with its object, APPL.TASK.THREAD) and with each object replaced by
	# its rank among the objects (the n-th row: the same rows in the same
	# order with the same values, whatever the resource model names them)
	byrow() { awk -F'\t' -v OFS='\t' '!($1 in o) { o[$1] = ++n } { $1 = o[$1]; print }' "$1"; }
	printf 'trace\tview\tlines-weft\tlines-ovniemu\tlines-differing\tby-row-differing\n' >"$work/values.tsv"
	for a in "$work"/mcr/*.weft.ovni.*.mcr*; do
		[ -f "$a" ] || continue
		b=$(echo "$a" | sed 's/\.weft\.ovni\./.ovniemu.ovni./')
		[ -f "$b" ] || continue
		t=$(basename "$a" | sed 's/\.mcr.*//')
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${t%%.*}" "${t#*.weft.ovni.}" "$(wc -l <"$a")" "$(wc -l <"$b")" \
			"$(diff "$a" "$b" | grep -c '^[<>]')" \
			"$(byrow "$a" >"$work/pmd/a"; byrow "$b" >"$work/pmd/b"; diff "$work/pmd/a" "$work/pmd/b" | grep -c '^[<>]')" >>"$work/values.tsv"
	done
	awk -F'\t' 'NR > 1 { p++; if ($5 != 0) { m++; print "values differ: " $1 " " $2 " (" $5 " lines of " $3 " and " $4 ", " $6 " by row)" }
		if ($6 != 0) r++ }
	END { printf "%d pairs of ovni views computed by paramedir on both outputs, %d with other lines, %d with other values by row\n", p, m, r }' "$work/values.tsv"
fi
# The renders: every job, or with WXVIEWS_DEDUP=1 each view once per
# emulator and origin: weft's views on the first trace where paramedir
# finds a value other than 0 (else the first trace), ovni's in pairs on the
# first trace where it finds one on ovniemu's output
renders=$work/renders.tsv
if [ -n "${WXVIEWS_DEDUP:-}" ]; then
	while IFS='	' read -r n emu origin v prv cfg; do
		nz=0
		for f in "$work/mcr/$(key "$n" "$emu" "$origin" "$v")".mcr*; do
			[ -f "$f" ] || continue
			case "$f" in
			*.csv) awk -F'\t' '$4 + 0 != 0 { f = 1; exit } END { exit !f }' "$f" && nz=1 ;;
			*) awk -F'\t' 'NR > 1 { for (i = 2; i <= NF; i++) if ($i ~ /[1-9]/ && $i + 0 != 0) { f = 1; exit } } END { exit !f }' "$f" && nz=1 ;;
			esac
		done
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$prv" "$cfg" "$nz"
	done <"$jobs" >"$work/jobs.nz"
	awk -F'\t' -v OFS='\t' '
	$3 == "weft" { k = $2 FS $4; if (!(k in pick) || (!nz[k] && $7)) { pick[k] = $0; nz[k] = $7 }
		if (!(k in ord)) { ord[k] = ++no; ok[no] = k } next }
	$3 == "ovni" { j[$1 FS $2 FS $4] = $0
		if (!($4 in first)) { first[$4] = $1; vo[++nv] = $4 }
		if ($2 == "ovniemu" && $7 && !($4 in good)) good[$4] = $1 }
	END { for (i = 1; i <= no; i++) { l = pick[ok[i]]; sub(/\t[01]$/, "", l); print l }
		for (i = 1; i <= nv; i++) { v = vo[i]; t = (v in good) ? good[v] : first[v]
			for (e = 1; e <= 2; e++) { x = j[t FS (e == 1 ? "weft" : "ovniemu") FS v]
				if (x != "") { sub(/\t[01]$/, "", x); print x } } } }' "$work/jobs.nz" >"$renders"
else
	cp "$jobs" "$renders"
fi
echo "$(wc -l <"$renders") renders of $(wc -l <"$jobs") jobs"
[ -n "${WXVIEWS_NO_RENDER:-}" ] && exit 0

# ---- the renders -----------------------------------------------------------
# cfgwins CFG: the titles of the windows the view opens, one a line: each
# timeline shown (window_open true, or the last one of a view without a
# histogram, as the kernel's CFGLoader decides), each histogram (by its
# Analyzer2D.Name), with a T or H before a tab
cfgwins() {
	awk 'function flush() { if (n != "") { name[++k] = n; shown[k] = open } n = "" }
	/^< NEW DISPLAYING WINDOW/ { flush(); open = 1; next }
	/^window_name / { n = substr($0, 13) }
	/^window_open false/ { open = 0 }
	/^< NEW ANALYZER2D/ { flush(); h++; next }
	/^Analyzer2D.Name: / { hn[h] = substr($0, 18) }
	END { flush(); if (!h) shown[k] = 1
		for (i = 1; i <= k; i++) if (shown[i]) print "T\t" name[i]
		for (i = 1; i <= h; i++) print "H\t" hn[i] }' "$1"
}
# wins: the visible windows, one "ID<tab>TYPE<tab>TITLE" a line (TYPE the
# end of _NET_WM_WINDOW_TYPE: NORMAL, DIALOG, ...)
wins() {
	for w in $(xdotool search --onlyvisible --name '.' 2>/dev/null | sort -u); do
		t=$(xdotool getwindowname "$w" 2>/dev/null) || continue
		ty=$(xprop -id "$w" _NET_WM_WINDOW_TYPE 2>/dev/null | sed -n 's/.*_NET_WM_WINDOW_TYPE_\([A-Z_]*\).*/\1/p')
		printf '%s\t%s\t%s\n' "$w" "${ty:-?}" "$t"
	done
}
# The titles wxParaver gives: "NAME @ TRACE" for a view's window, with
# "(Working...) " before while it computes; "Paraver" the main frame;
# progress dialogs "Loading trace...", "Drawing window...", "Computing
# window...", "Processing trace..."; anything else (the kernel's "Paraver
# question", "Warning", "Load auto-saved session"...) is a dialog.
transient='^(Loading trace\.\.\.|Drawing window\.\.\.|Computing window\.\.\.|Processing trace\.\.\.|\(Working\.\.\.\) .*|wxparaver)$'

# area PNG: the drawing area of a timeline's picture, the region within the
# white axes wxParaver draws (the object axis at the left, after the row
# labels; the time axis at the bottom), found as the leftmost column and the
# lowest row mostly white; prints "X Y W H" (0 0 0 0 when no axes)
area() {
	convert "$1" -depth 8 txt:- 2>/dev/null | awk -F'[,: ]+' 'NR > 1 {
		x = $1; y = $2; if (x > mx) mx = x; if (y > my) my = y
		if (index($0, "#FFFFFF ")) { cw[x]++; rw[y]++ } }
	END { W = mx + 1; H = my + 1; ax = -1; ay = -1
		for (x = 0; x < W; x++) if (cw[x] >= 0.5 * H) { ax = x; break }
		for (y = H - 1; y >= 0; y--) if (rw[y] >= 0.5 * W) { ay = y; break }
		if (ax < 0 || ay < 0 || ay < 8 || W - ax < 16) { print "0 0 0 0"; exit }
		# inside the axes, less the border above and right of the lines
		print ax + 2, 4, W - ax - 2 - 4, ay - 4 - 1 }'
}
# colours PNG X Y W H: the colours of that region, "RRGGBB COUNT" a line,
# the most frequent first
colours() {
	convert "$1" -crop "$4x$5+$2+$3" +repage -format %c histogram:info:- 2>/dev/null |
		sed -n 's/^ *\([0-9]*\):.*#\([0-9A-F]\{6\}\).*/\2 \1/p' | sort -k2,2nr
}
# pcfcolours PCF: the STATES_COLOR entries, one RRGGBB a line
pcfcolours() {
	awk '/^STATES_COLOR/ { on = 1; next } on && /^[^0-9 \t]/ { on = 0 }
	on && /\{/ { s = $0; sub(/.*\{/, "", s); sub(/\}.*/, "", s); split(s, c, ",")
		printf "%02X%02X%02X\n", c[1], c[2], c[3] }' "$1"
}
# cfgpalette CFG: the colours of the view's own palette, when enabled
# (window_custom_color_palette {VALUE:R,G,B},...), one RRGGBB a line
cfgpalette() {
	grep -q '^window_custom_color_enabled true' "$1" || return 0
	sed -n 's/^window_custom_color_palette //p' "$1" | tr '}' '\n' |
		sed -n 's/.*:\([0-9]*\),\([0-9]*\),\([0-9]*\).*/\1 \2 \3/p' |
		while read -r r g b; do printf '%02X%02X%02X\n' "$r" "$g" "$b"; done
}
# colourmode CFG: code, gradient, not_null_gradient (the shown window's)
colourmode() {
	sed -n 's/^window_color_mode window_in_\(.*\)_mode$/\1/p' "$1" | tail -1
}

if [ -z "${WXVIEWS_VERDICTS_ONLY:-}" ]; then
disp=:${WXVIEWS_DISPLAY:-97}
Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null' EXIT
export DISPLAY="$disp"
mkdir -p "$work/bin" "$work/png"
# wxParaver asks in a dialog for a text editor and a PDF reader when none of
# its defaults answers --version: stand-ins, so that it asks nothing of ours
for b in gedit evince; do printf '#!/bin/sh\nexit 0\n' >"$work/bin/$b" && chmod +x "$work/bin/$b"; done
PATH=$work/bin:$PATH
i=0
while ! xdpyinfo >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 100 ] && { echo "Xvfb $disp did not start" >&2; exit 3; }
	sleep 0.2
done

printf 'trace\temulator\tviews\tview\tverdict\tdialog\twindows-expected\twindows-drawn\tseconds\n' >"$res"
printf 'trace\temulator\tviews\tview\tkind\tmode\twindow\tcolours\tpcf-or-view-colours\tpixels\tcolour-list\n' >"$work/windows.tsv"
while IFS='	' read -r n emu origin v prv cfg; do
	k=$(key "$n" "$emu" "$origin" "$v")
	rm -f "$work/png/$k".*png
	cfgwins "$cfg" >"$work/expect"
	nexp=$(wc -l <"$work/expect")
	# a fresh HOME for each render: wxParaver keeps its single-instance
	# lock, its preferences and its auto-saved session there, and asks
	# "Paraver closed unexpectedly..." after a killed run
	export HOME="$work/home"
	rm -rf "$HOME"
	mkdir -p "$HOME"
	t0=$(date +%s)
	# its own process group: wxparaver is a script that starts wxparaver.bin
	setsid "$WXPARAVER" "$prv" "$cfg" >"$work/wx.log" 2>&1 &
	wx=$!
	verdict=timeout
	dialog=no
	seen=
	prev=
	stable=0
	while [ $(($(date +%s) - t0)) -lt "$tmo" ]; do
		sleep 1
		if ! kill -0 "$wx" 2>/dev/null; then
			verdict=exited
			break
		fi
		wins >"$work/wins"
		# a dialog: a window neither the main frame, nor a progress
		# dialog, nor one of the view's; seen twice in a row (one second)
		other=$(awk -F'\t' -v tr="$transient" 'NR == FNR { want[$2 " @ "] = 1; name[$2] = 1; next }
			{ t = $3; if (t == "Paraver" || t ~ tr || (t in name)) next
			  for (w in want) if (index(t, w) == 1) next
			  print t }' "$work/expect" "$work/wins" | sort | tr '\n' '|')
		if [ -n "$other" ] && [ "$other" = "$seen" ]; then
			verdict=dialog
			dialog=${other%|}
			import -window root "$work/png/$k.dialog.png" 2>/dev/null
			break
		fi
		seen=$other
		# done: every window of the view there, none computing, no
		# progress dialog, and the screen unchanged for two seconds
		# (a view's window titled by its bare name is still being built)
		busy=$(awk -F'\t' -v tr="$transient" 'NR == FNR { name[$2] = 1; next } $3 ~ tr || ($3 in name)' "$work/expect" "$work/wins" | wc -l)
		have=$(awk -F'\t' 'NR == FNR { want[$2 " @ "] = 1; next }
			{ for (w in want) if (index($3, w) == 1) { got[w] = 1 } }
			END { print length(got) }' "$work/expect" "$work/wins")
		if [ "$busy" -eq 0 ] && [ "$have" -ge "$nexp" ] && [ -z "$other" ]; then
			sig=$(import -window root -depth 8 rgb:- 2>/dev/null | md5sum)
			if [ "$sig" = "$prev" ]; then
				stable=$((stable + 1))
			else
				stable=0
			fi
			prev=$sig
			if [ "$stable" -ge 2 ]; then
				verdict=drawn
				break
			fi
		fi
	done
	secs=$(($(date +%s) - t0))
	# each window of the view: raised (no window manager: a window under
	# another would be captured with the other's pixels), captured, measured
	drawn=0
	j=0
	if [ "$verdict" = drawn ]; then
		wins >"$work/wins"
		while IFS='	' read -r kind title; do
			j=$((j + 1))
			# found again at each try: a window can be replaced while
			# it is redrawn after the raise
			png=$work/png/$k.$j.png
			c=0
			w=
			while [ $c -lt 5 ]; do
				c=$((c + 1))
				wins >"$work/wins"
				# the largest window of that title: a histogram can have a
				# 1x1 window of its title besides its real one, or be
				# 1x1 until it is laid out
				w=
				best=0
				for x in $(awk -F'\t' -v t="$title @ " 'index($3, t) == 1 { print $1 }' "$work/wins"); do
					WIDTH=0 HEIGHT=0
					eval "$(xdotool getwindowgeometry --shell "$x" 2>/dev/null)"
					[ $((WIDTH * HEIGHT)) -gt "$best" ] && best=$((WIDTH * HEIGHT)) w=$x
				done
				[ -n "$w" ] && [ "$best" -ge 2500 ] || { sleep 1; continue; }
				xdotool windowraise "$w" 2>/dev/null
				sleep 0.5
				import -window "$w" "$png" 2>"$work/import.err" && [ -s "$png" ] && break
				rm -f "$png"
				# import of the window itself fails now and then on a
				# histogram: its part of the screen, the window raised
				eval "$(xdotool getwindowgeometry --shell "$w" 2>/dev/null)"
				if [ "${WIDTH:-0}" -gt 0 ]; then
					import -window root -crop "${WIDTH}x${HEIGHT}+${X}+${Y}" +repage "$png" 2>>"$work/import.err" &&
						[ -s "$png" ] && break
					rm -f "$png"
				fi
				sleep 1
			done
			if [ ! -s "$png" ]; then
				printf '%s\t%s\t%s\t%s\t%s\t-\t%s\t0\t0\t0\t%s\n' "$n" "$emu" "$origin" "$v" "$kind" "$title" \
					"${w:+not captured (window $w)}${w:-no window}" >>"$work/windows.tsv"
				continue
			fi
			if [ "$kind" = T ]; then
				# shellcheck disable=SC2046 # X Y W H: words
				set -- $(area "$png")
				[ "$3" -gt 0 ] && colours "$png" "$@" >"$work/cols" || : >"$work/cols"
				# drawn: any colour but the background (black, also
				# value 0's) and the zero line's grey, 20 pixels or more
				awk '$1 != "000000" && $1 != "7F7F7F" && $2 >= 20' "$work/cols" >"$work/drawn"
			else
				# a histogram's cells: the gradient (green to blue) or
				# the code colours; the grid and labels are greys: count
				# the saturated colours
				colours "$png" 0 0 "$(identify -format %w "$png")" "$(identify -format %h "$png")" |
					awk 'function hx(s) { return index("0123456789ABCDEF", substr(s, 1, 1)) * 16 + index("0123456789ABCDEF", substr(s, 2, 1)) - 17 }
						{ r = hx(substr($1, 1, 2)); g = hx(substr($1, 3, 2))
						b = hx(substr($1, 5, 2)); mx = r; if (g > mx) mx = g; if (b > mx) mx = b
						mn = r; if (g < mn) mn = g; if (b < mn) mn = b
						if (mx - mn >= 64 && $2 >= 200) print }' >"$work/drawn"
			fi
			cp "$work/drawn" "$work/png/$k.$j.txt"
			# the colours expected: the .pcf's, the view's palette, and
			# wxParaver's own for what is not a value: communication
			# lines (logical yellow, physical red) and event flags
			{
				pcfcolours "${prv%.prv}.pcf" 2>/dev/null
				cfgpalette "$cfg"
				printf 'FFFF00\nFF0000\nFF8080\n'
			} >"$work/pcf"
			nc=$(wc -l <"$work/drawn")
			np=$(awk 'NR == FNR { p[$1] = 1; next } ($1 in p)' "$work/pcf" "$work/drawn" | wc -l)
			px=$(awk '{ s += $2 } END { print s + 0 }' "$work/drawn")
			[ "$nc" -gt 0 ] && drawn=$((drawn + 1))
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$kind" "$(colourmode "$cfg")" "$title" \
				"$nc" "$np" "$px" "$(head -12 "$work/drawn" | tr '\n' ' ')" >>"$work/windows.tsv"
		done <"$work/expect"
	fi
	kill -- "-$wx" 2>/dev/null
	i=0
	while kill -0 "$wx" 2>/dev/null && [ $i -lt 20 ]; do
		sleep 0.25
		i=$((i + 1))
	done
	kill -9 -- "-$wx" 2>/dev/null
	wait "$wx" 2>/dev/null
	[ "$verdict" = drawn ] && [ "$drawn" -lt "$nexp" ] && verdict=empty
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$verdict" "$dialog" "$nexp" "$drawn" "$secs" >>"$res"
	printf '%s %s %s %s: %s %s/%s %ss\n' "$n" "$emu" "$origin" "$v" "$verdict" "$drawn" "$nexp" "$secs" >&2
done <"$renders"

fi

# ---- the verdicts ----------------------------------------------------------
# ovni's view on weft's and on ovniemu's output of one trace, window by
# window: the colours each draws (20 pixels or more), and the share of the
# drawing area's pixels whose colour differs
printf 'trace\tview\twindow\tcolours-weft\tcolours-ovniemu\tsame-set\tpixels-differing\tarea-share-differing-%%\n' >"$work/compare.tsv"
for a in "$work"/png/*.weft.ovni.*.png; do
	[ -f "$a" ] || continue
	case "$a" in *.dialog.png) continue ;; esac
	b=$(echo "$a" | sed 's/\.weft\.ovni\./.ovniemu.ovni./')
	[ -f "$b" ] || continue
	t=$(basename "$a" .png)
	j=${t##*.}
	t=${t%.*}
	# each picture's own drawing area (the row labels can differ in width:
	# weft's name the loom and pid too), or the whole window
	# shellcheck disable=SC2046 # X Y W H: words
	set -- $(area "$a")
	if [ "$3" -eq 0 ]; then set -- 0 0 "$(identify -format %w "$a")" "$(identify -format %h "$a")"; fi
	colours "$a" "$@" >"$work/cols.a"
	# shellcheck disable=SC2046 # X Y W H: words
	set -- $(area "$b")
	if [ "$3" -eq 0 ]; then set -- 0 0 "$(identify -format %w "$b")" "$(identify -format %h "$b")"; fi
	colours "$b" "$@" >"$work/cols.b"
	set_a=$(awk '$2 >= 20 { print $1 }' "$work/cols.a" | sort | tr '\n' ' ')
	set_b=$(awk '$2 >= 20 { print $1 }' "$work/cols.b" | sort | tr '\n' ' ')
	# the share of the area whose colour differs: half the sum over the
	# colours of the difference of their shares, in percent
	share=$(awk 'FILENAME == ARGV[1] { a[$1] = $2; ta += $2; next } { b[$1] = $2; tb += $2 }
		END { for (c in a) u[c] = 1; for (c in b) u[c] = 1
			for (c in u) { d = (ta ? a[c] / ta : 0) - (tb ? b[c] / tb : 0); s += d < 0 ? -d : d }
			printf "%.2f", 50 * s }' "$work/cols.a" "$work/cols.b")
	ae=$(compare -metric AE "$a" "$b" null: 2>&1 | sed 's/ .*//')
	same=no
	[ "$set_a" = "$set_b" ] && same=yes
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${t%%.*}" "${t#*.weft.ovni.}" "$j" \
		"$(echo "$set_a" | wc -w)" "$(echo "$set_b" | wc -w)" "$same" "$ae" "$share" >>"$work/compare.tsv"
done
awk -F'\t' 'NR > 1 { p++; if ($6 != "yes") { m++; print "colours differ: " $1 " " $2 " window " $3 " (" $4 " vs " $5 ")" }
	if ($7 + 0 > 0) d++; if ($8 + 0 >= 2) { s++; print "drawing differs: " $1 " " $2 " window " $3 " (" $8 "% of the area)" }
	if ($8 + 0 > mx) mx = $8 + 0 }
END { printf "%d windows of ovni views compared on both outputs, %d with other colours, %d with some pixel differing, %d with 2%% of the drawing area or more in other colours (at most %.2f%%)\n", p, m, d, s, mx }' "$work/compare.tsv"
# `weft plot` on weft's views of one event type in code mode (or of the
# states): the colours wxParaver draws that the plot's legend has too
printf 'trace\tview\ttype\tcolours-wxparaver\tin-plot\n' >"$work/plot.tsv"
while IFS='	' read -r n emu origin v prv cfg; do
	[ "$origin" = weft ] || continue
	k=$(key "$n" "$emu" "$origin" "$v")
	[ -f "$work/png/$k.1.txt" ] || continue
	# the first window a timeline (cfgwins lists them first)
	awk -F'\t' -v n="$n" -v v="$v" '$1 == n && $3 == "weft" && $4 == v { exit $5 != "T" }' "$work/windows.tsv" || continue
	[ "$(colourmode "$cfg")" = code ] || continue
	# a view with its own palette: not the .pcf's colours
	[ -z "$(cfgpalette "$cfg")" ] || continue
	ty=$(sed -n 's/^window_filter_module evt_type 1 \([0-9]*\)$/\1/p' "$cfg" | head -1)
	if [ -z "$ty" ]; then
		grep -q 'State As Is' "$cfg" || continue
		"$WEFT" plot -q -o "$work/plot.svg" "$prv" 2>/dev/null || continue
	else
		"$WEFT" plot -q --type "$ty" -o "$work/plot.svg" "$prv" 2>/dev/null || continue
	fi
	{
		grep -o '{fill:#[0-9a-fA-F]\{6\}}' "$work/plot.svg" | sed 's/{fill:#//; s/}//' | tr a-f A-F
		# communication lines and flags: not values
		printf 'FFFF00\nFF0000\nFF8080\n'
	} | sort -u >"$work/plotcols"
	printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$v" "${ty:-states}" "$(wc -l <"$work/png/$k.1.txt")" \
		"$(awk 'NR == FNR { p[$1] = 1; next } ($1 in p)' "$work/plotcols" "$work/png/$k.1.txt" | wc -l)" >>"$work/plot.tsv"
done <"$renders"
awk -F'\t' 'NR > 1 { p++; if ($5 < $4) { m++; print "plot colours: " $1 " " $2 " type " $3 ": " $4 - $5 " of " $4 " wxParaver colours not in weft plot" } }
END { printf "%d views drawn by weft plot too, %d with a wxParaver colour weft plot does not use\n", p, m }' "$work/plot.tsv"
awk -F'\t' 'NR > 1 { w++; if ($8 == 0) { e++; print "nothing drawn: " $1 " " $2 " " $3 " " $4 " " $5 " \"" $7 "\"" }
	if ($8 > $9 && $5 == "T" && $6 == "code") { x++; print "colours not of the .pcf: " $1 " " $2 " " $3 " " $4 " \"" $7 "\": " $11 } }
END { printf "%d windows measured, %d draw nothing, %d timelines in code mode draw a colour neither the .pcf nor the view gives\n", w, e, x }' "$work/windows.tsv"
# an empty window whose values paramedir finds all 0 (a view of what this
# run did not do, as flushing on a trace without flushes) has nothing to
# draw: value 0 is drawn in the background's colour
: >"$work/zero"
while IFS='	' read -r n emu origin v verdict rest; do
	[ "$verdict" = empty ] || continue
	f=$work/mcr/$(key "$n" "$emu" "$origin" "$v").mcr.csv
	[ -f "$f" ] && awk -F'\t' '$4 + 0 != 0 { exit 1 }' "$f" && printf '%s %s %s %s\n' "$n" "$emu" "$origin" "$v" >>"$work/zero"
done <"$res"
awk -F'\t' 'FILENAME == ARGV[1] { z[$0] = 1; next }
FNR > 1 { r++; c[$5]++; t = $1 " " $2 " " $3 " " $4
	if ($5 == "empty" && (t in z)) { zz++; print "empty, all values 0 (paramedir): " t; next }
	if ($5 != "drawn") print $5 ": " t ($6 != "no" ? ": " $6 : "") }
END { printf "%d renders: %d drawn, %d with a dialog, %d with a window empty (%d of them with only 0 values), %d timed out, %d exited\n", r, c["drawn"], c["dialog"], c["empty"], zz, c["timeout"], c["exited"] }' "$work/zero" "$res"
