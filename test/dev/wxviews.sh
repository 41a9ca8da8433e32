#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Render every view weft ships, and every view ovni ships, in wxParaver, on
# weft's outputs (and ovni's views also on ovniemu's outputs of the same
# traces), and look at each picture: did a dialog open, is the window empty
# (one colour in its drawing area), do ovni's views draw the same colours on
# weft's and on ovniemu's outputs. A developer tool, NOT part of `make
# check`: it needs wxParaver, Xvfb, xdotool and ImageMagick (doc/dev/views.md).
#
#   WXPARAVER=/path/bin/wxparaver OVNI=/ovni/prefix \
#     sh test/dev/wxviews.sh [WORKDIR]
#
# WEFT defaults to build/weft; OVNI (optional) is an ovni install prefix: its
# share/ovni/ views are rendered too, and its ovniemu emulates the synthetic
# multi-model trace. WORKDIR (default /tmp/wxviews) gets the outputs, one
# PNG per render and results.tsv (one line per render: trace, emulator, view
# origin, view, dialog, distinct colours, colour-set verdict); the summary
# goes to stdout. WXVIEWS_ONLY=REGEX limits the renders to views whose path
# matches; WXVIEWS_WAIT (seconds, default 4) is how long a view gets to draw;
# WXVIEWS_DEDUP=1 renders each view on one trace only (a quick pass).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
WEFT=${WEFT:-$top/build/weft}
WXPARAVER=${WXPARAVER:?set WXPARAVER to the wxparaver binary}
OVNI=${OVNI:-}
work=${1:-/tmp/wxviews}
wait_s=${WXVIEWS_WAIT:-4}
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

# ---- the renders -----------------------------------------------------------
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

# WXVIEWS_DEDUP=1: each view once per emulator and origin (on the first
# trace that has it), weft's own views first, then ovni's in pairs
if [ -n "${WXVIEWS_DEDUP:-}" ]; then
	cp "$jobs" "$jobs.orig"
	awk -F'\t' '!seen[$2 FS $3 FS $4]++' "$jobs" >"$jobs.all"
	{
		awk -F'\t' '$3 == "weft"' "$jobs.all"
		awk -F'\t' '$3 == "ovni" && $2 == "ovniemu" && !p[$4]++ { t[$4] = $1 }
			$3 == "ovni" { j[NR] = $0; v[NR] = $4; n[NR] = $1 }
			END { for (i = 1; i <= NR; i++) if (i in j && (!(v[i] in t) || t[v[i]] == n[i]) && !s[j[i]]++) print j[i] }' \
			"$jobs.orig" | awk -F'\t' '!seen[$2 FS $4]++' | sort -t'	' -k4,4 -k2,2r
	} >"$jobs"
fi
# The loader's word on each job, without a display: paramedir (beside
# wxparaver) loads the view with the same kernel code (CFGLoader) and prints
# the messages wxParaver shows as dialogs ("None of the events specified in
# the filter appear in the trace", "... failed to load in") on stdout.
pmd=${PARAMEDIR:-$(dirname "$WXPARAVER")/paramedir}
if [ -x "$pmd" ]; then
	mkdir -p "$work/pmd"
	printf 'trace\temulator\tviews\tview\texit\tmessages\n' >"$work/loader.tsv"
	while IFS='	' read -r n emu origin v prv cfg; do
		msg=$(cd "$work/pmd" && timeout 120 "$pmd" "$prv" "$cfg" 2>&1 </dev/null)
		rc=$?
		msg=$(echo "$msg" | grep -v 'file written\.$' | grep -v '^ *$' | tr '\n' ' ' | cut -c1-300)
		printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$rc" "${msg:--}" >>"$work/loader.tsv"
		rm -f "$work/pmd"/*
	done <"$jobs"
	awk -F'\t' 'NR > 1 { r++; if ($5 != 0 || $6 != "-") { m++; print "loader: " $1 " " $2 " " $3 " " $4 ": exit " $5 ", " $6 } }
	END { printf "%d views loaded by paramedir, %d with a message or an error\n", r, m }' "$work/loader.tsv"
fi
[ -n "${WXVIEWS_PREP_ONLY:-}" ] && { wc -l <"$jobs"; exit 0; }
disp=:${WXVIEWS_DISPLAY:-97}
Xvfb "$disp" -screen 0 1600x1000x24 -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null' EXIT
export DISPLAY="$disp"
export HOME="$work/home"
mkdir -p "$HOME" "$work/bin"
# wxParaver asks in a dialog for a text editor and a PDF reader when none of
# its defaults answers --version: stand-ins, so that it asks nothing of ours
for b in gedit evince; do printf '#!/bin/sh\nexit 0\n' >"$work/bin/$b" && chmod +x "$work/bin/$b"; done
PATH=$work/bin:$PATH
sleep 2
printf 'trace\temulator\tviews\tview\tdialog\tcolours\twindows\n' >"$res"
# names WINDOW...: their titles, '|'-separated
names() {
	for w in "$@"; do printf '%s|' "$(xdotool getwindowname "$w" 2>/dev/null)"; done
}
i=0
while IFS='	' read -r n emu origin v prv cfg; do
	i=$((i + 1))
	png=$work/png/$n.$emu.$origin.$(echo "$v" | tr / - | sed 's/\.cfg$//').png
	# its own process group: wxparaver is a script that starts wxparaver.bin
	setsid "$WXPARAVER" "$prv" "$cfg" >"$work/wx.log" 2>&1 &
	wx=$!
	sleep "$wait_s"
	wins=$(xdotool search --onlyvisible --name '.' 2>/dev/null | sort -u)
	# shellcheck disable=SC2086 # WINS: one window id a word
	titles=$(names $wins)
	# the view's window carries the view's name; the main frame is
	# "Paraver"; anything else wxParaver shows is a dialog
	vname=$(sed -n 's/^window_name //p' "$cfg" | head -1)
	dialog=no
	for w in $wins; do
		t=$(xdotool getwindowname "$w" 2>/dev/null)
		case "$t" in
		Paraver | *"$vname"* | "") ;;
		*) dialog="$t" ;;
		esac
	done
	# the view's window: the biggest visible one that is not the main frame
	vw=
	best=0
	for w in $wins; do
		t=$(xdotool getwindowname "$w" 2>/dev/null)
		case "$t" in Paraver) continue ;; esac
		eval "$(xdotool getwindowgeometry --shell "$w" 2>/dev/null)"
		a=$((WIDTH * HEIGHT))
		[ "$a" -gt "$best" ] && best=$a vw=$w
	done
	if [ -n "$vw" ]; then
		import -window "$vw" "$png" 2>/dev/null
	else
		import -window root "$png" 2>/dev/null
	fi
	# distinct colours of the drawing area: the window less a margin for
	# the row labels (left) and the time axis (bottom)
	cols=$(convert "$png" -gravity NorthEast -crop 75%x80%+4+4 +repage -format %k info: 2>/dev/null)
	kill -- "-$wx" 2>/dev/null
	sleep 0.5
	kill -9 -- "-$wx" 2>/dev/null
	wait "$wx" 2>/dev/null
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$emu" "$origin" "$v" "$dialog" "${cols:-0}" "$titles" >>"$res"
done <"$jobs"

# ---- the verdicts ----------------------------------------------------------
# ovni's view on weft's and on ovniemu's output of one trace: the colours
# each draws (those of at least 20 pixels) and the pixels that differ
printf 'trace\tview\tcolours-weft\tcolours-ovniemu\tsame-set\tpixels-differing\n' >"$work/compare.tsv"
for a in "$work"/png/*.weft.ovni.*.png; do
	[ -f "$a" ] || continue
	b=$(echo "$a" | sed 's/\.weft\.ovni\./.ovniemu.ovni./')
	[ -f "$b" ] || continue
	set_a=$(convert "$a" -gravity NorthEast -crop 75%x80%+4+4 +repage -format %c histogram:info:- |
		awk '$1 + 0 >= 20' | grep -o '#[0-9A-F]\{6\}' | sort | tr '\n' ' ')
	set_b=$(convert "$b" -gravity NorthEast -crop 75%x80%+4+4 +repage -format %c histogram:info:- |
		awk '$1 + 0 >= 20' | grep -o '#[0-9A-F]\{6\}' | sort | tr '\n' ' ')
	ae=$(compare -metric AE "$a" "$b" null: 2>&1)
	same=no
	[ "$set_a" = "$set_b" ] && same=yes
	t=$(basename "$a" .png)
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${t%%.*}" "${t#*.weft.ovni.}" \
		"$(echo "$set_a" | wc -w)" "$(echo "$set_b" | wc -w)" "$same" "$ae" >>"$work/compare.tsv"
done
awk -F'\t' 'NR > 1 { p++; if ($5 != "yes") { m++; print "colours differ: " $1 " " $2 " (" $3 " vs " $4 ")" } }
END { printf "%d pairs of ovni views compared, %d with other colours\n", p, m }' "$work/compare.tsv"
awk -F'\t' 'NR > 1 {
	r++
	if ($5 != "no") { d++; print "dialog: " $1 " " $2 " " $3 " " $4 ": " $5 }
	if ($6 + 0 <= 1) { e++; print "empty: " $1 " " $2 " " $3 " " $4 " (" $6 " colours)" }
	else if ($6 + 0 == 2) { o++; print "one colour: " $1 " " $2 " " $3 " " $4 }
}
END { printf "%d renders, %d with a dialog, %d empty, %d of one colour on the background\n", r, d, e, o }' "$res"
