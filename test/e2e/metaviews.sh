#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# What model files take from the threads' stream.json, beyond what models.sh
# compares with ovniemu. The nOS-V hardware counters (the channel group
# `each nosv.hwc name`): their Paraver types and labels, the metadata rules
# (entries named alike in every thread, indexes below the count) and the VWC
# payload size, with exact errors. weft emu -b: the nOS-V
# breakdown's metadata rule (a warning and no file when some thread does not
# allow it, -q silencing that warning, an error naming the stream when the key
# is missing or not a boolean), the files a -b run writes (.prv, .pcf with
# every value label, .row with one "~CPU n" row per physical CPU, gzipped with
# -z, windowed with --from/--to), `weft check` accepting them, and a failed -b
# run leaving none of them behind.
#
#   WEFT=/abs/path/to/weft sh test/e2e/metaviews.sh

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
fix=$top/test/fixtures/ovniemu
fail_show=$tmp/err

# copy CASE's trace to $tmp/NAME (gzipped streams unpacked)
trace() { # CASE NAME
	rm -rf "${tmp:?}/$2"
	cp -R "$fix/$1/trace" "$tmp/$2"
	find "$tmp/$2" -name '*.gz' -exec gzip -d {} \;
}

# ---- nOS-V hardware counters ----------------------------------------------------
trace nosv/hwc hw
"$WEFT" emu -q -o "$tmp/h1" "$tmp/hw" >/dev/null 2>"$tmp/err"
expect "hwc: exit status" "$?" 0
for f in thread cpu; do
	expect "hwc: $f.pcf types" "$(grep -E '^0 20[0-9] ' "$tmp/h1/$f.pcf" | tr '\n' '|')" "0 200 PAPI_TOT_INS|0 201 PAPI_TOT_CYC|"
done
expect "hwc: values of VWC" "$(grep -c ':200:133' "$tmp/h1/thread.prv")" 1
hj=$(find "$tmp/hw" -name stream.json | head -n 1)
cp "$hj" "$tmp/hj"
# a third counter declared: the VWC events carry two
sed 's/"1": {/"2": { "name": "X" }, "1": {/' "$tmp/hj" >"$hj"
"$WEFT" emu -q -o "$tmp/h2" "$tmp/hw" >/dev/null 2>"$tmp/err"
expect "hwc: VWC shorter than the counters: exit status" "$?" 1
expect "hwc: VWC shorter than the counters: the error" "$(sed 's/.*VWC/VWC/' "$tmp/err")" "VWC at byte offset 36 (clock 491384364064, time 24677 ns), thread 10479: payload of 16 bytes: expected 24, an i64 for each of the 3 nosv.hwc channels (the entries of nosv.hwc in stream.json)"
# none declared
sed 's/"hwc"/"nohwc"/' "$tmp/hj" >"$hj"
"$WEFT" emu -q -o "$tmp/h3" "$tmp/hw" >/dev/null 2>"$tmp/err"
expect "hwc: none declared: the error" "$(sed 's/.*VWC/VWC/' "$tmp/err")" "VWC at byte offset 36 (clock 491384364064, time 24677 ns), thread 10479: channel nosv.hwc has no members: no thread's stream.json declares nosv.hwc"
# broken entries: NAME|SED EDIT OF stream.json|ERROR AFTER "weft: error: JSON: "
while IFS='|' read -r name edit msg; do
	sed "$edit" "$tmp/hj" >"$hj"
	"$WEFT" emu -q -o "$tmp/h4" "$tmp/hw" >/dev/null 2>"$tmp/err"
	expect "hwc: $name" "$(cat "$tmp/err")" "weft: error: $hj: $msg"
done <<'EOF'
index past the count|s/"1": {/"5": {/|key 'nosv.hwc.5': expected an index below 2 (the number of entries)
index not a number|s/"1": {/"x1": {/|key 'nosv.hwc.x1': expected an index from 0 to 99
no name|s/"name": "PAPI_TOT_CYC"/"nm": 1/|key 'nosv.hwc.1.name': expected a string
not an object|s/"hwc": {/"hwc": 3, "x": {/|key 'nosv.hwc': expected an object (the nosv.hwc channels), found another kind
EOF
# two threads that disagree
trace nosv/mp-rank mr
n=0
for j in $(find "$tmp/mr" -name stream.json | sort); do
	n=$((n + 1))
	name=PAPI_TOT_INS
	[ $n -eq 2 ] && name=PAPI_L1_DCM
	sed 's/"nosv": {/"nosv": { "hwc": { "0": { "name": "'$name'" } },/' "$j" >"$tmp/j" && cat "$tmp/j" >"$j"
	[ $n -eq 2 ] && j2=$j
done
"$WEFT" emu -q -o "$tmp/h7" "$tmp/mr" >/dev/null 2>"$tmp/err"
expect "hwc: threads naming a counter differently" "$(cat "$tmp/err")" "weft: error: $j2: key 'nosv.hwc.0': 'PAPI_L1_DCM', but another thread names it 'PAPI_TOT_INS'"

# ---- nOS-V: every thread must allow it ----------------------------------------
trace nosv/cannot-breakdown cb
"$WEFT" emu -b -o "$tmp/o1" "$tmp/cb" >/dev/null 2>"$tmp/err"
rc=$?
expect "can_breakdown false: exit status" "$rc" 0
expect "can_breakdown false: the warning" "$(grep -c 'warning: cannot write the nosv breakdown (-b): 0 of 1 threads have nosv.can_breakdown true' "$tmp/err")" 1
expect "can_breakdown false: no breakdown files" "$(ls "$tmp/o1" | grep -c breakdown)" 0
"$WEFT" emu -q -b -o "$tmp/o2" "$tmp/cb" >/dev/null 2>"$tmp/err"
expect "can_breakdown false, -q: nothing on stderr" "$(wc -c <"$tmp/err" | tr -d ' ')" 0

trace nosv/attach at
js=$(find "$tmp/at" -name stream.json | head -n 1)
sed 's/"can_breakdown": true/"can_breakdown": 1/' "$js" >"$tmp/js" && cat "$tmp/js" >"$js"
"$WEFT" emu -b -o "$tmp/o3" "$tmp/at" >/dev/null 2>"$tmp/err"
rc=$?
expect "can_breakdown 1: exit status" "$rc" 1
expect "can_breakdown 1: the error" "$(cat "$tmp/err")" "weft: error: $js: -b: key 'nosv.can_breakdown': expected a boolean, found another kind"
expect "can_breakdown 1: no output directory" "$(ls -d "$tmp/o3" 2>/dev/null)" ""
grep -v can_breakdown "$js" | sed 's/"nosv": {/"nosv": { "x": 1/' >"$tmp/js" && cat "$tmp/js" >"$js"
"$WEFT" emu -b -o "$tmp/o4" "$tmp/at" >/dev/null 2>"$tmp/err"
rc=$?
expect "can_breakdown missing: exit status" "$rc" 1
expect "can_breakdown missing: the error" "$(cat "$tmp/err")" "weft: error: $js: -b: key 'nosv.can_breakdown' is missing: the nosv breakdown needs it in every thread's metadata"
# without -b the key is not needed
"$WEFT" emu -q -o "$tmp/o5" "$tmp/at" >/dev/null 2>"$tmp/err"
expect "can_breakdown missing, no -b: exit status" "$?" 0

# ---- the files of a -b run ------------------------------------------------------
trace nanos6/task-types tt
o=$tmp/o6
"$WEFT" emu -q -b -o "$o" "$tmp/tt" >/dev/null 2>"$tmp/err"
expect "nanos6 -b: exit status" "$?" 0
expect "nanos6 -b: files" "$(cd "$o" && ls nanos6-breakdown.* | tr '\n' ' ')" "nanos6-breakdown.pcf nanos6-breakdown.prv nanos6-breakdown.row "
ncpu=$(sed -n 's/^LEVEL THREAD SIZE //p' "$o/nanos6-breakdown.row")
expect "nanos6 -b: .row rows" "$ncpu" 16
expect "nanos6 -b: .row first and last" "$(grep '^~CPU' "$o/nanos6-breakdown.row" | sed -n '1p;$p' | tr '\n' '|')" "~CPU   16|~CPU    1|"
expect "nanos6 -b: .prv header" "$(head -n 1 "$o/nanos6-breakdown.prv" | cut -d: -f4-)" "1(16):1:1(16:1)"
expect "nanos6 -b: .pcf type" "$(grep -c '^0 41 CPU: Nanos6 Runtime/Idle/Task breakdown$' "$o/nanos6-breakdown.pcf")" 1
for v in "2 Unknown subsystem" "24 Worker: Sponge mode" "100 Progressing" "102 Absorbing noise" "1690940984 testtype1" "39445232 testtype10"; do
	expect "nanos6 -b: .pcf value $v" "$(grep -cx "$v" "$o/nanos6-breakdown.pcf")" 1
done
# the first record writes every row, zeros included (as ovniemu)
t1=$(sed -n 2p "$o/nanos6-breakdown.prv" | cut -d: -f6)
expect "nanos6 -b: first instant writes every row" "$(awk -F: -v t="$t1" 'NR > 1 && $6 == t { print $5 }' "$o/nanos6-breakdown.prv" | sort -u | wc -l | tr -d ' ')" 16
"$WEFT" check -q "$o/nanos6-breakdown.prv" 2>"$tmp/err"
expect "nanos6 -b: weft check" "$?" 0

# -z: gzipped like the others
"$WEFT" emu -q -b -z -o "$tmp/o7" "$tmp/tt" >/dev/null 2>"$tmp/err"
expect "-b -z: gzipped" "$(gzip -dc "$tmp/o7/nanos6-breakdown.prv.gz" | cmp - "$o/nanos6-breakdown.prv" && echo same)" same

# --from/--to: the window applies
"$WEFT" emu -q -b --from 3000000 --to 4000000 -o "$tmp/o8" "$tmp/tt" >/dev/null 2>"$tmp/err"
expect "-b --from/--to: exit status" "$?" 0
expect "-b --from/--to: duration" "$(head -n 1 "$tmp/o8/nanos6-breakdown.prv" | sed 's/.*):0*\([0-9]*\)_ns.*/\1/')" 1000000
"$WEFT" check -q "$tmp/o8/nanos6-breakdown.prv" 2>"$tmp/err"
expect "-b --from/--to: weft check" "$?" 0

# -a -b: three views (five .prv files: the writer thread takes four, the fifth
# is written inline); the nOS-V one is the same bytes as with -b alone, and
# a view that never changed (openmp here) is the header alone, as ovniemu
# writes it (Paraver refuses to load it: the run says so)
trace nosv/task-types nt
"$WEFT" emu -q -b -o "$tmp/ab1" "$tmp/nt" 2>"$tmp/err" && "$WEFT" emu -a -b -o "$tmp/ab2" "$tmp/nt" 2>"$tmp/err2"
expect "-a -b: exit status" "$?" 0
expect "-a -b: the three views" "$(cd "$tmp/ab2" && ls -- *-breakdown.prv | tr '\n' ' ')" "nanos6-breakdown.prv nosv-breakdown.prv openmp-breakdown.prv "
expect "-a -b: nosv view as with -b alone" "$(cmp "$tmp/ab1/nosv-breakdown.prv" "$tmp/ab2/nosv-breakdown.prv" && echo same)" same
expect "-a -b: a view that never changed: the header alone" "$(tail -n +2 "$tmp/ab2/openmp-breakdown.prv" | wc -c | tr -d ' ')" 0
expect "-a -b: a view that never changed: the warning" "$(grep -c "^weft: warning: $tmp/ab2/openmp-breakdown.prv: no CPU's value ever changed: its body is empty, as ovniemu writes it, and Paraver refuses to load it" "$tmp/err2")" 1
expect "-a -b: the warning names that view only" "$(grep -c 'no CPU.s value ever changed' "$tmp/err2")" 1
"$WEFT" check -q "$tmp/ab2/thread.prv" "$tmp/ab2/cpu.prv" "$tmp/ab2/nosv-breakdown.prv" "$tmp/ab2/nanos6-breakdown.prv" 2>"$tmp/err"
expect "-a -b: weft check on the other .prv" "$?" 0
"$WEFT" check -q "$tmp/ab2/openmp-breakdown.prv" 2>"$tmp/err"
expect "-a -b: weft check refuses the empty body, as Paraver" "$?:$(grep -c 'no state, event or communication record after the header' "$tmp/err")" "1:1"
"$WEFT" emu -q -a -b -o "$tmp/ab3" "$tmp/nt" 2>"$tmp/err3"
expect "-a -b -q: no warning" "$(wc -c <"$tmp/err3" | tr -d ' ')" 0

# a later run into the same directory replaces what it would mislead with:
# without -b the breakdown trace goes, with -z the plain traces go (and back)
o=$tmp/st
"$WEFT" emu -q -b -o "$o" "$tmp/tt" && ls "$o" | tr '\n' ' ' >"$tmp/l1"
"$WEFT" emu -q -z -o "$o" "$tmp/tt" && ls "$o" | tr '\n' ' ' >"$tmp/l2"
"$WEFT" emu -q -b -o "$o" "$tmp/tt" && ls "$o" | tr '\n' ' ' >"$tmp/l3"
expect "stale outputs: -b, then -z, then -b" "$(cat "$tmp/l1")|$(cat "$tmp/l2")|$(cat "$tmp/l3")" \
	"$(cat "$tmp/l1")|cfg cpu.pcf cpu.prv.gz cpu.row thread.pcf thread.prv.gz thread.row |$(cat "$tmp/l1")"

# ---- a failed -b run leaves nothing -----------------------------------------------
trace nanos6/ss-mismatch sm
"$WEFT" emu -q -l -b -o "$tmp/o9" "$tmp/sm" >/dev/null 2>"$tmp/err"
expect "failed -b run: exit status" "$?" 1
expect "failed -b run: no output directory" "$(ls -d "$tmp/o9" 2>/dev/null)" ""
mkdir "$tmp/o10"
"$WEFT" emu -q -l -b -o "$tmp/o10" "$tmp/sm" >/dev/null 2>"$tmp/err"
expect "failed -b run into a directory: nothing in it" "$(ls -A "$tmp/o10")" ""

finish
