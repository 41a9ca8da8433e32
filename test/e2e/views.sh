#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the Paraver views weft copies beside its outputs
# (src/emu/views.c) and of `weft check --views` (src/prv/viewcheck.c).
#
#   WEFT=/abs/weft sh test/e2e/views.sh
#
# Every shipped view is named for its file (thread-/cpu-) and declares a
# colour mode and a maximum; each model's example output gets only its own
# model's views, each of which passes `weft check --views` (types labelled
# and written, values within the range, states labelled); the runtime models
# (nOS-V, Nanos6, OpenMP, on ovni's own emulator test traces) get the views
# of the types they wrote, and with -b the view of their breakdown trace
# (breakdown-*.cfg), ranged to the values written there; a later run into
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
for f in "$repo"/cfg/*/*.cfg; do
	n=$(basename "$f")
	case "$n" in thread-*|cpu-*|breakdown-*) ;; *) bad="$bad $n(name)" ;; esac
	grep -q '^window_color_mode window_in_' "$f" || bad="$bad $n(colour)"
	grep -q '^window_maximum_y [0-9]' "$f" || bad="$bad $n(maximum)"
	if grep -q '{thread, State As Is}' "$f"; then
		grep -q '^window_color_mode window_in_code_mode' "$f" || bad="$bad $n(states not in code colour)"
	fi
done
expect "shipped views: named for their file, colour mode and maximum declared" "$bad" ""

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
	"ovni/cpu-mark-101 ovni/cpu-mark-102 ovni/cpu-nrunning ovni/cpu-running-pid ovni/cpu-running-tid ovni/thread-affinity ovni/thread-flushing ovni/thread-mark-101 ovni/thread-mark-102 ovni/thread-state ovni/thread-tid "
expect "ovni mark view: one type, named by its label" \
	"$(grep -c '^window_filter_module evt_type 1 101$' "$tmp/ovni/cfg/ovni/thread-mark-101.cfg"):$(sed -n 's/^window_name //p' "$tmp/ovni/cfg/ovni/thread-mark-101.cfg")" \
	"1:Thread marks: $(awk '$2 == 101 { $1 = $2 = ""; sub(/^ +/, ""); print; exit }' "$tmp/ovni/thread.pcf")"
# the range is the greatest value written: the largest TID of the trace
maxtid=$(awk -F: '$1 == 2 { for (i = 7; i < NF; i += 2) if ($i == 2 && $(i + 1) > m) m = $(i + 1) } END { print m }' "$tmp/ovni/thread.prv")
expect "ovni thread-tid maximum = greatest TID written" \
	"$(sed -n 's/^window_maximum_y //p' "$tmp/ovni/cfg/ovni/thread-tid.cfg")" "$maxtid.000000000000"

"$WEFT" synth --format charisma -o "$tmp/charisma.dat" >/dev/null
# Each row: NAME|INPUT|TEST|VIEWS, a legacy log (@H@: this folder, @T@: the
# temporary one) whose output must get exactly VIEWS.
while IFS='|' read -r name input test list; do
	input=$(printf '%s\n' "$input" | sed "s|@H@|$here|; s|@T@|$tmp|")
	emu "$name" "$input" </dev/null
	expect "$test" "$(views "$tmp/$name")" "$list "
done <<'EOF'
picl|@H@/picl/fft.trf|PICL views (msg only, no ovni view)|msg/thread-bytes-received msg/thread-bytes-sent msg/thread-msg-size msg/thread-state-comms
andfork|@H@/visandor/and-ciao.vao|and-fork views|andfork/cpu-agent andfork/cpu-node andfork/thread-activity andfork/thread-depth andfork/thread-node andfork/thread-state
orbranch|@H@/visandor/or-suspend.vao|or-branch views|orbranch/cpu-agent orbranch/cpu-node orbranch/thread-node orbranch/thread-open orbranch/thread-outcomes orbranch/thread-state
charisma|@T@/charisma.dat|CHARISMA views (fileio only)|fileio/cpu-clients fileio/thread-bytes-read fileio/thread-bytes-written fileio/thread-io-size-histogram fileio/thread-io-state fileio/thread-open-files
EOF

# ---- the runtime models: their views, and with -b their breakdown view ------
fix=$top/test/fixtures/ovniemu
trace() { # CASE NAME: CASE's trace in $tmp/NAME (gzipped streams unpacked)
	cp -R "$fix/$1/trace" "$tmp/$2"
	find "$tmp/$2" -name '*.gz' -exec gzip -d {} \;
}
model_views() { # dir model: that model's copied views, one line
	(cd "$1/cfg/$2" 2>/dev/null && ls | sed 's/\.cfg$//' | tr '\n' ' ')
}
trace nosv/task-types nosv-tt
emu nosv "$tmp/nosv-tt"
expect "nOS-V views" "$(model_views "$tmp/nosv" nosv)" \
	"cpu-appid cpu-idle cpu-rank cpu-subsystem cpu-task-body cpu-task-id cpu-task-type thread-appid thread-idle thread-rank thread-subsystem thread-task-body thread-task-id thread-task-type "
emu nosv-b -b "$tmp/nosv-tt"
expect "nOS-V views with -b: the breakdown view too" "$(model_views "$tmp/nosv-b" nosv)" \
	"breakdown-runtime $(model_views "$tmp/nosv" nosv)"
# hardware counters: one view per counter written, named after it
trace nosv/hwc nosv-hwc
emu nosv-hwc "$tmp/nosv-hwc"
expect "nOS-V counter views: one per counter" "$(model_views "$tmp/nosv-hwc" nosv | tr ' ' '\n' | grep hwc | tr '\n' ' ')" \
	"cpu-hwc-200 cpu-hwc-201 thread-hwc-200 thread-hwc-201 "
expect "nOS-V counter view: named by the counter, gradient, maximum written" \
	"$(grep -E '^window_(name|color_mode|maximum_y) ' "$tmp/nosv-hwc/cfg/nosv/thread-hwc-201.cfg" | tr '\n' '|')" \
	"window_name Thread nOS-V hardware counter: PAPI_TOT_CYC|window_color_mode window_in_null_gradient_mode|window_maximum_y 236.000000000000|"
trace nanos6/task-types nanos6-tt
emu nanos6 "$tmp/nanos6-tt"
# thread type (39) is 0 all along in this trace: written once, as ovniemu
# does (a first value), so its views are there and open on a 0
expect "Nanos6 views" "$(model_views "$tmp/nanos6" nanos6)" \
	"cpu-idle cpu-rank cpu-subsystem cpu-task-id cpu-task-type cpu-thread-type thread-idle thread-rank thread-subsystem thread-task-id thread-task-type "
emu nanos6-b -b "$tmp/nanos6-tt"
expect "Nanos6 views with -b: the breakdown view too" "$(model_views "$tmp/nanos6-b" nanos6)" \
	"breakdown-runtime $(model_views "$tmp/nanos6" nanos6)"
# its range: the greatest value of nanos6-breakdown.prv (a task type's hash)
bmax=$(awk -F: 'NR > 1 && $1 == 2 { for (i = 7; i < NF; i += 2) if ($(i + 1) > m) m = $(i + 1) } END { print m }' "$tmp/nanos6-b/nanos6-breakdown.prv")
expect "Nanos6 breakdown view: maximum = greatest value of the breakdown trace" \
	"$(sed -n 's/^window_maximum_y //p' "$tmp/nanos6-b/cfg/nanos6/breakdown-runtime.cfg")" "$bmax.000000000000"
trace openmp/nested-task omp-nt
emu openmp -b "$tmp/omp-nt"
# no subsystem event in this trace: the subsystem's first value, 0, is
# written (as ovniemu), so its views are there too
expect "OpenMP views with -b (no subsystem event in this trace)" "$(model_views "$tmp/openmp" openmp)" \
	"breakdown-runtime cpu-label cpu-subsystem cpu-task-id thread-label thread-subsystem thread-task-id "
# a later run without -b into the same directory drops the breakdown view
emu openmp "$tmp/omp-nt"
expect "OpenMP rerun without -b: no breakdown view" "$(model_views "$tmp/openmp" openmp)" \
	"cpu-label cpu-subsystem cpu-task-id thread-label thread-subsystem thread-task-id "
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
cp -r "$repo/cfg/ovni" "$tmp/allviews/cfg/"
if "$WEFT" check --views "$tmp/allviews" >/dev/null 2>"$tmp/err"; then
	fail "check --views: ovni views on a PICL output" "exit 0"
else
	st=$?
	expect "check --views: ovni views on a PICL output (exit, message)" \
		"$st:$(grep -c 'thread-flushing.cfg: event type 7 is never written in .*thread.prv (Paraver: "None of the events' "$tmp/err")" "1:1"
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
picl|msg/thread-state-comms.cfg|s/^window_maximum_y .*/window_maximum_y 31.000000000000/|check --views: maximum below the states written|thread-state-comms.cfg: values up to 32 are written, above window_maximum_y 31
nanos6-b|nanos6/breakdown-runtime.cfg|s/^window_maximum_y .*/window_maximum_y 100.000000000000/|check --views: breakdown view, maximum below its trace's values|breakdown-runtime.cfg: values up to @M@ are written, above window_maximum_y 100$
andfork|andfork/thread-state.cfg|s/^window_color_mode .*/window_color_mode window_in_null_gradient_mode/|check --views: states in a gradient|thread-state.cfg: a view of states expected window_in_code_mode
EOF
cp "$repo/cfg/nanos6/breakdown-runtime.cfg" "$tmp/nanos6/cfg/nanos6/"
"$WEFT" check --views "$tmp/nanos6" >/dev/null 2>"$tmp/err"
expect "check --views: breakdown view without its trace" \
	"$?:$(grep -c "breakdown-runtime.cfg: is for .*/nanos6/nanos6-breakdown.prv and .pcf, which are not there (weft emu -b writes them)" "$tmp/err")" "1:1"
"$WEFT" check --views "$tmp/nothing" >/dev/null 2>"$tmp/err"
expect "check --views: no such directory" "$?:$(grep -c "nothing/cfg: cannot open the views folder" "$tmp/err")" "1:1"

finish
