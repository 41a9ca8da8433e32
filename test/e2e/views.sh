#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the Paraver views weft copies beside its outputs
# (src/emu/views.c) and of `weft check --views` (src/prv/viewcheck.c).
#
#   WEFT=/abs/weft sh test/e2e/views.sh
#
# Every shipped view is in ovni's layout (cfg/{thread,cpu}/MODEL/NAME.cfg,
# for thread.prv and cpu.prv; cpu/MODEL/breakdown*.cfg for the breakdown
# trace of -b) and declares a
# colour mode and a maximum; each model's example output gets only its own
# model's views, each of which passes `weft check --views` (types labelled
# and written, values within the range, states labelled); the runtime models
# (nOS-V, Nanos6, OpenMP, on ovni's own emulator test traces) get the views
# of the types they wrote, and with -b the view of their breakdown trace
# (cpu/MODEL/breakdown.cfg), ranged to the values written there; a later run into
# the same directory removes the views that no longer fit; the checker
# rejects views that do not fit, with the reason.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
repo=$top
views() { # dir: the copied views, "model/name" sorted, one line
	(cd "$1/cfg" 2>/dev/null && find . -name '*.cfg' | sed 's|^\./||; s|\.cfg$||' | sort | tr '\n' ' ')
}

# ---- the shipped views -----------------------------------------------------
bad=""
for f in $(cd "$repo" && find cfg -name '*.cfg' | sort); do
	n=${f#cfg/}
	case "$n" in thread/*/*.cfg|cpu/*/*.cfg) ;; *) bad="$bad $n(path)" ;; esac
	case "$n" in */*/*/*) bad="$bad $n(path)" ;; esac
	f=$repo/$f
	grep -q '^window_color_mode window_in_' "$f" || bad="$bad $n(colour)"
	grep -q '^window_maximum_y [0-9]' "$f" || bad="$bad $n(maximum)"
	if grep -q '{thread, State As Is}' "$f"; then
		grep -q '^window_color_mode window_in_code_mode' "$f" || bad="$bad $n(states not in code colour)"
	fi
done
expect "shipped views: in ovni's layout, colour mode and maximum declared" "$bad" ""
# the and-fork and or-branch views draw no communication lines: their
# thousands of fork/join messages would hide the states and values
bad=""
for f in "$repo"/cfg/*/andfork/*.cfg "$repo"/cfg/*/orbranch/*.cfg; do
	grep -q '^window_comm_lines_enabled false$' "$f" || bad="$bad ${f#"$repo"/}"
done
expect "and-fork and or-branch views: no communication lines" "$bad" ""
# the I/O size histogram bins powers of two: log2 of the size, one column each
expect "fileio size histogram: log2 of the size, columns 1-31 by 1, empty ones hidden" \
	"$(grep -E '^(window_semantic_module|Analyzer2D\.(Minimum|Maximum|Delta|HideCols))' "$repo/cfg/thread/fileio/io-size-histogram.cfg" | tr '\n' '|')" \
	"window_semantic_module topcompose1 log N { 1, { 1 2.000000000000 } }|Analyzer2D.HideCols: True|Analyzer2D.Minimum: 1.000000000000|Analyzer2D.Maximum: 31.000000000000|Analyzer2D.Delta: 1.000000000000|"

# emu NAME INPUT [ARGS]: run into $tmp/NAME, then check its views
emu() {
	n=$1
	shift
	if ! "$WEFT" emu -q -o "$tmp/$n" "$@" 2>"$tmp/err"; then
		fail "$n emu" "$(head -3 "$tmp/err")"
		return 1
	fi
	if "$WEFT" check -q --views "$tmp/$n" 2>"$tmp/err"; then
		pass "$n views check"
	else
		fail "$n views check" "$(head -3 "$tmp/err")"
	fi
}

# ---- each model's output gets its own views only ---------------------------
"$WEFT" synth -o "$tmp/ovni-trace" --looms 2 --procs 2 --threads 3 --cpus 4 --events 20000 --seed 1 >/dev/null
emu ovni "$tmp/ovni-trace"
expect "ovni views" "$(views "$tmp/ovni")" \
	"cpu/ovni/flushing cpu/ovni/mark-101 cpu/ovni/mark-102 cpu/ovni/number-running-threads cpu/ovni/pid cpu/ovni/tid thread/ovni/affinity thread/ovni/flushing thread/ovni/mark-101 thread/ovni/mark-102 thread/ovni/state thread/ovni/state-histogram thread/ovni/tid "
expect "ovni mark view: one type, named by its label" \
	"$(grep -c '^window_filter_module evt_type 1 101$' "$tmp/ovni/cfg/thread/ovni/mark-101.cfg"):$(sed -n 's/^window_name //p' "$tmp/ovni/cfg/thread/ovni/mark-101.cfg")" \
	"1:Thread marks: $(awk '$2 == 101 { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$tmp/ovni/thread.pcf")"
# the state histogram's columns: the states ovni threads take, 1 to the
# greatest written (no column that is always empty)
smax=$(awk -F: '$1 == 1 && $8 > m { m = $8 } END { print m }' "$tmp/ovni/thread.prv")
expect "ovni state histogram: columns 1 to the greatest state written" \
	"$(grep -E '^Analyzer2D\.(Minimum|Maximum)' "$tmp/ovni/cfg/thread/ovni/state-histogram.cfg" | tr '\n' '|')" \
	"Analyzer2D.Minimum: 1.000000000000|Analyzer2D.Maximum: $smax.000000000000|"
expect "ovni state view: ovni's type 4, as ovni's thread/ovni/state.cfg" \
	"$(grep -E '^(window_filter_module evt_type|window_selected_functions)' "$tmp/ovni/cfg/thread/ovni/state.cfg" | grep -o 'evt_type 1 4$\|{thread, Last Evt Val}' | tr '\n' '|')" \
	"{thread, Last Evt Val}|evt_type 1 4|"
# the range is the greatest value written: the largest TID of the trace
maxtid=$(awk -F: '$1 == 2 { for (i = 7; i < NF; i += 2) if ($i == 2 && $(i + 1) > m) m = $(i + 1) } END { print m }' "$tmp/ovni/thread.prv")
expect "ovni thread-tid maximum = greatest TID written" \
	"$(sed -n 's/^window_maximum_y //p' "$tmp/ovni/cfg/thread/ovni/tid.cfg")" "$maxtid.000000000000"

"$WEFT" synth --format charisma -o "$tmp/charisma.dat" >/dev/null
# Each row: NAME|INPUT|TEST|VIEWS, a legacy log (@H@: this folder, @T@: the
# temporary one) whose output must get exactly VIEWS.
while IFS='|' read -r name input test list; do
	input=$(printf '%s\n' "$input" | sed "s|@H@|$here|; s|@T@|$tmp|")
	emu "$name" "$input" </dev/null
	expect "$test" "$(views "$tmp/$name")" "$list "
done <<'EOF'
picl|@H@/picl/fft.trf|PICL views (msg only, no ovni view)|thread/msg/bytes-received thread/msg/bytes-sent thread/msg/msg-size thread/msg/state-comms
andfork|@H@/visandor/and-ciao.vao|and-fork views|cpu/andfork/agent cpu/andfork/node thread/andfork/activity thread/andfork/depth thread/andfork/node thread/andfork/state
orbranch|@H@/visandor/or-suspend.vao|or-branch views|cpu/orbranch/agent cpu/orbranch/node thread/orbranch/node thread/orbranch/open thread/orbranch/outcomes thread/orbranch/state
charisma|@T@/charisma.dat|CHARISMA views (fileio only)|cpu/fileio/clients thread/fileio/bytes-read thread/fileio/bytes-written thread/fileio/io-size-histogram thread/fileio/io-state thread/fileio/open-files
EOF

# ---- the runtime models: their views, and with -b their breakdown view ------
fix=$top/test/fixtures/ovniemu
trace() { # CASE NAME: CASE's trace in $tmp/NAME (gzipped streams unpacked)
	cp -R "$fix/$1/trace" "$tmp/$2"
	find "$tmp/$2" -name '*.gz' -exec gzip -d {} \;
}
model_views() { # dir model: that model's copied views, "file/name", one line
	(cd "$1/cfg" 2>/dev/null && ls -d */"$2"/*.cfg | sed "s|/$2/|/|; s/\.cfg$//" | sort | tr '\n' ' ')
}
trace nosv/task-types nosv-tt
emu nosv "$tmp/nosv-tt"
expect "nOS-V views" "$(model_views "$tmp/nosv" nosv)" \
	"cpu/body-id cpu/idle cpu/subsystem cpu/task-appid cpu/task-id cpu/task-rank cpu/task-type thread/body-id thread/idle thread/subsystem thread/task-appid thread/task-id thread/task-rank thread/task-type "
emu nosv-b -b "$tmp/nosv-tt"
expect "nOS-V views with -b: the breakdown view too" "$(model_views "$tmp/nosv-b" nosv)" \
	"cpu/body-id cpu/breakdown $(model_views "$tmp/nosv" nosv | sed 's|^cpu/body-id ||')"
# hardware counters: one view per counter written, named after it
trace nosv/hwc nosv-hwc
emu nosv-hwc "$tmp/nosv-hwc"
expect "nOS-V counter views: one per counter" "$(model_views "$tmp/nosv-hwc" nosv | tr ' ' '\n' | grep hwc- | tr '\n' ' ')" \
	"cpu/hwc-200 cpu/hwc-201 thread/hwc-200 thread/hwc-201 "
expect "nOS-V counter view: named by the counter, gradient, maximum written" \
	"$(grep -E '^window_(name|color_mode|maximum_y) ' "$tmp/nosv-hwc/cfg/thread/nosv/hwc-201.cfg" | tr '\n' '|')" \
	"window_name Thread nOS-V hardware counter: PAPI_TOT_CYC|window_color_mode window_in_null_gradient_mode|window_maximum_y 236.000000000000|"
trace nanos6/task-types nanos6-tt
emu nanos6 "$tmp/nanos6-tt"
# thread type (39) is 0 all along in this trace: written once, as ovniemu
# does (a first value), so its views are there and open on a 0
expect "Nanos6 views" "$(model_views "$tmp/nanos6" nanos6)" \
	"cpu/idle cpu/mpi-rank cpu/subsystem cpu/task-id cpu/task-type cpu/thread-type thread/idle thread/mpi-rank thread/subsystem thread/task-id thread/task-type "
emu nanos6-b -b "$tmp/nanos6-tt"
expect "Nanos6 views with -b: the breakdown view too" "$(model_views "$tmp/nanos6-b" nanos6)" \
	"cpu/breakdown $(model_views "$tmp/nanos6" nanos6)"
# its range: the greatest value of nanos6-breakdown.prv (a task type's hash)
bmax=$(awk -F: 'NR > 1 && $1 == 2 { for (i = 7; i < NF; i += 2) if ($(i + 1) > m) m = $(i + 1) } END { print m }' "$tmp/nanos6-b/nanos6-breakdown.prv")
expect "Nanos6 breakdown view: maximum = greatest value of the breakdown trace" \
	"$(sed -n 's/^window_maximum_y //p' "$tmp/nanos6-b/cfg/cpu/nanos6/breakdown.cfg")" "$bmax.000000000000"
trace openmp/nested-task omp-nt
emu openmp -b "$tmp/omp-nt"
# no subsystem event in this trace: the subsystem's first value, 0, is
# written (as ovniemu), so its views are there too
expect "OpenMP views with -b (no subsystem event in this trace)" "$(model_views "$tmp/openmp" openmp)" \
	"cpu/breakdown cpu/label cpu/subsystem cpu/task-id thread/label thread/subsystem thread/task-id "
# a later run without -b into the same directory drops the breakdown view
emu openmp "$tmp/omp-nt"
expect "OpenMP rerun without -b: no breakdown view" "$(model_views "$tmp/openmp" openmp)" \
	"cpu/label cpu/subsystem cpu/task-id thread/label thread/subsystem thread/task-id "
# nOS-V without nosv.can_breakdown: no breakdown trace, no breakdown view
trace nosv/cannot-breakdown nosv-cb
emu nosv-cb -b "$tmp/nosv-cb"
expect "nOS-V -b, breakdown not allowed: no breakdown view" \
	"$(ls "$tmp/nosv-cb" | grep -c breakdown):$(model_views "$tmp/nosv-cb" nosv | grep -c breakdown)" "0:0"

# ---- a later run into the same directory drops the views that no longer fit
cp -r "$tmp/ovni" "$tmp/reuse"
emu reuse "$here/picl/fft.trf"
expect "rerun into an ovni output: only msg views left" "$(views "$tmp/reuse")" "$(views "$tmp/picl")"

# ---- the checker rejects what does not fit -----------------------------------
cp -r "$tmp/picl" "$tmp/allviews"
mkdir -p "$tmp/allviews/cfg/thread" "$tmp/allviews/cfg/cpu"
cp -r "$repo/cfg/thread/ovni" "$tmp/allviews/cfg/thread/"
cp -r "$repo/cfg/cpu/ovni" "$tmp/allviews/cfg/cpu/"
if "$WEFT" check --views "$tmp/allviews" >/dev/null 2>"$tmp/err"; then
	fail "check --views: ovni views on a PICL output" "exit 0"
else
	st=$?
	expect "check --views: ovni views on a PICL output (exit, message)" \
		"$st:$(grep -c 'thread/ovni/flushing.cfg: event type 7 is never written in .*thread.prv (Paraver: "None of the events' "$tmp/err")" "1:1"
fi
# Each row: OUTPUT|VIEW|SED SCRIPT|TEST|MESSAGE, a view of an output above
# edited so that it no longer fits: weft check --views must exit 1 with
# MESSAGE (a grep pattern; @M@: the breakdown trace's greatest value).
while IFS='|' read -r out view script test msg; do
	f=$tmp/$out/cfg/$view
	sed "$script" "$f" >"$tmp/edited.cfg" && mv "$tmp/edited.cfg" "$f"
	"$WEFT" check --views "$tmp/$out" </dev/null >/dev/null 2>"$tmp/err"
	expect "$test" "$?:$(grep -c "$(printf '%s\n' "$msg" | sed "s|@M@|$bmax|")" "$tmp/err")" "1:1"
done <<'EOF'
picl|thread/msg/state-comms.cfg|s/^window_maximum_y .*/window_maximum_y 31.000000000000/|check --views: maximum below the states written|thread/msg/state-comms.cfg: values up to 32 are written, above window_maximum_y 31
nanos6-b|cpu/nanos6/breakdown.cfg|s/^window_maximum_y .*/window_maximum_y 100.000000000000/|check --views: breakdown view, maximum below its trace's values|cpu/nanos6/breakdown.cfg: values up to @M@ are written, above window_maximum_y 100$
andfork|thread/andfork/state.cfg|s/^window_color_mode .*/window_color_mode window_in_null_gradient_mode/|check --views: states in a gradient|thread/andfork/state.cfg: a view of states expected window_in_code_mode
EOF
cp "$repo/cfg/cpu/nanos6/breakdown.cfg" "$tmp/nanos6/cfg/cpu/nanos6/"
"$WEFT" check --views "$tmp/nanos6" >/dev/null 2>"$tmp/err"
expect "check --views: breakdown view without its trace" \
	"$?:$(grep -c "cpu/nanos6/breakdown.cfg: is for .*/nanos6/nanos6-breakdown.prv and .pcf, which are not there (weft emu -b writes them)" "$tmp/err")" "1:1"
"$WEFT" check --views "$tmp/nothing" >/dev/null 2>"$tmp/err"
expect "check --views: no such directory" "$?:$(grep -c "nothing/cfg: cannot open the views folder" "$tmp/err")" "1:1"

finish
