#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft synth`: determinism, validity as read back by
# weft itself, the event mix it promises, and its output discipline.
#   WEFT=/abs/path/to/weft sh test/e2e/synth.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT

# count TOP MCV: the number of MCV events in a `weft top` listing (empty
# when there is none).
count() {
	awk -v m="$2" '$1 == m { print $2 }' "$1"
}

# -- determinism -------------------------------------------------------------
args="--looms 3 --procs 2 --threads 3 --cpus 4 --events 60000 --seed 5"
if "$WEFT" synth -o "$tmp/a" $args > "$tmp/a.out" 2>&1 &&
	"$WEFT" synth -o "$tmp/b" $args > /dev/null 2>&1; then
	if diff -r "$tmp/a" "$tmp/b" > /dev/null; then
		pass "same arguments give identical bytes"
	else
		fail "determinism" "two runs differ"
	fi
else
	fail "synth runs" "$(cat "$tmp/a.out")"
fi
"$WEFT" synth -o "$tmp/c" --looms 3 --procs 2 --threads 3 --cpus 4 --events 60000 --seed 6 > /dev/null 2>&1
if diff -r "$tmp/a" "$tmp/c" > /dev/null 2>&1; then
	fail "seed" "a different seed gave the same trace"
else
	pass "a different seed gives a different trace"
fi

# -- layout --------------------------------------------------------------------
n=$(find "$tmp/a" -name stream.obs | wc -l)
[ "$n" -eq 18 ] && pass "3 looms x 2 procs x 3 threads = 18 streams" ||
	fail "layout" "expected 18 streams, found $n"
[ -f "$tmp/a/loom.node02/proc.301000/thread.301002/stream.json" ] &&
	pass "stream paths follow loom.nodeNN/proc.PID/thread.TID" ||
	fail "layout" "loom.node02/proc.301000/thread.301002 missing"
if ls -d "$tmp"/a.tmp-* > /dev/null 2>&1; then
	fail "temporary directory" "left behind"
else
	pass "no temporary directory left behind"
fi

# -- read back by weft ---------------------------------------------------------
if "$WEFT" top "$tmp/a" > "$tmp/top" 2> "$tmp/err"; then
	pass "weft top validates the synthetic trace"
else
	fail "weft top" "$(cat "$tmp/err")"
fi
total=$(awk '/^events/ {print $2}' "$tmp/top")
reported=$(awk '{print $2}' "$tmp/a.out")
[ "$total" = "$reported" ] && pass "synth reports the number of events it wrote ($total)" ||
	fail "event count" "synth said $reported, top counts $total"
# within a few events per thread of the target
if [ "$total" -ge 59900 ] && [ "$total" -le 60100 ]; then
	pass "about --events events ($total for 60000)"
else
	fail "event target" "$total events for --events 60000"
fi
missing=""
for mcv in OHx OHC OHp OHr OHc OHw OHe OAs OAr OF[ OF] OB. OM[ OM] OM=; do
	awk -v m="$mcv" '$1 == m {f = 1} END {exit !f}' "$tmp/top" || missing="$missing $mcv"
done
[ -z "$missing" ] && pass "every ovni-model event kind is present" ||
	fail "event mix" "missing:$missing"
x=$(count "$tmp/top" OHx)
e=$(count "$tmp/top" OHe)
[ "$x" = 18 ] && [ "$e" = 18 ] && pass "every thread starts once and ends once" ||
	fail "life cycle" "OHx $x, OHe $e for 18 threads"
push=$(count "$tmp/top" 'OM[')
pop=$(count "$tmp/top" 'OM]')
[ "$push" = "$pop" ] && pass "stacked marks are balanced ($push)" || fail "marks" "$push pushes, $pop pops"
fb=$(count "$tmp/top" 'OF[')
fe=$(count "$tmp/top" 'OF]')
[ "$fb" = "$fe" ] && pass "flushes are paired ($fb)" || fail "flushes" "$fb begin, $fe end"
if "$WEFT" dump "$tmp/a" > "$tmp/dump" 2> "$tmp/err"; then
	lines=$(wc -l < "$tmp/dump")
	[ "$lines" -eq "$total" ] && pass "weft dump reads all $total events" ||
		fail "dump" "$lines lines for $total events"
else
	fail "weft dump" "$(cat "$tmp/err")"
fi

# -- output discipline ---------------------------------------------------------
mkdir "$tmp/full" && echo keep > "$tmp/full/file"
"$WEFT" synth -o "$tmp/full" --events 1000 > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -qF "already exists and is not an empty directory" "$tmp/err" &&
	[ "$(cat "$tmp/full/file")" = keep ] && [ "$(ls "$tmp/full")" = file ]; then
	pass "refuses a non-empty output directory and leaves it alone"
else
	fail "non-empty output" "exit $rc: $(cat "$tmp/err")"
fi
mkdir "$tmp/empty"
if "$WEFT" synth -o "$tmp/empty" --events 1000 > /dev/null 2>&1 && [ -d "$tmp/empty/loom.node00" ]; then
	pass "writes into an existing empty directory"
else
	fail "empty output dir" "not written"
fi
for bad in "--looms 0" "--cpus x" "--events 0" "--threads 5000" "--bogus 1"; do
	"$WEFT" synth -o "$tmp/u" $bad > /dev/null 2> "$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -e "$tmp/u" ]; then
		pass "usage error exits 2: $bad"
	else
		fail "usage $bad" "exit $rc"
	fi
done
"$WEFT" synth --events 10 > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -qF "missing -o DIR" "$tmp/err" && pass "missing -o exits 2" ||
	fail "missing -o" "$(cat "$tmp/err")"

# -- --models ------------------------------------------------------------------
"$WEFT" synth -o "$tmp/m1" --events 20000 --models mpi > /dev/null 2> "$tmp/err" &&
	"$WEFT" synth -o "$tmp/m2" --events 20000 --models ovni,mpi > /dev/null 2>> "$tmp/err"
if diff -r "$tmp/m1" "$tmp/m2" > /dev/null 2>&1; then
	pass "--models mpi: same options, same bytes"
else
	fail "--models determinism" "$(head -3 "$tmp/err")"
fi
"$WEFT" top "$tmp/m1" > "$tmp/mtop" 2> "$tmp/err"
ms=$(count "$tmp/mtop" 'MS[')
mS=$(count "$tmp/mtop" 'MS]')
mb=$(count "$tmp/mtop" MCb)
mB=$(count "$tmp/mtop" MCB)
if [ -n "$ms" ] && [ "$ms" -gt 0 ] && [ "$ms" = "$mS" ] && [ -n "$mb" ] && [ "$mb" -gt 0 ] && [ "$mb" = "$mB" ]; then
	pass "--models mpi: MPI_Send $ms and MPI_Barrier $mb calls, paired"
else
	fail "--models mpi counts" "MS[ $ms MS] $mS MCb $mb MCB $mB"
fi
"$WEFT" synth -o "$tmp/t1" --events 20000 --models mpi,tampi > /dev/null 2> "$tmp/err"
"$WEFT" top "$tmp/t1" > "$tmp/ttop" 2>> "$tmp/err"
li=$(count "$tmp/ttop" TLi); lI=$(count "$tmp/ttop" TLI)
ci=$(count "$tmp/ttop" TCi); ts=$(count "$tmp/ttop" 'MS[')
lp=$(count "$tmp/ttop" TLp); lP=$(count "$tmp/ttop" TLP)
if [ -n "$li" ] && [ "$li" -gt 0 ] && [ "$li" = "$lI" ] && [ "$li" = "$ci" ] &&
	[ -n "$lp" ] && [ "$lp" -gt 0 ] && [ "$lp" = "$lP" ] && [ "$ts" -ge "$li" ]; then
	pass "--models mpi,tampi: $li API calls issuing, $lp polls, paired"
else
	fail "--models tampi counts" "TLi $li TLI $lI TCi $ci TLp $lp TLP $lP MS[ $ts"
fi
"$WEFT" synth -o "$tmp/k1" --events 20000 --models kernel,mpi,tampi > /dev/null 2> "$tmp/err"
"$WEFT" top "$tmp/k1" > "$tmp/ktop" 2>> "$tmp/err"
ko=$(count "$tmp/ktop" KCO); ki=$(count "$tmp/ktop" KCI)
km=$(count "$tmp/ktop" MCb); kt=$(count "$tmp/ktop" TLp)
if [ -n "$ko" ] && [ "$ko" -gt 0 ] && [ "$ko" = "$ki" ] && [ "${km:-0}" -gt 0 ] && [ "${kt:-0}" -gt 0 ]; then
	pass "--models kernel,mpi,tampi: $ko context switches paired, mpi and tampi too"
else
	fail "--models kernel counts" "KCO $ko KCI $ki MCb $km TLp $kt"
fi
"$WEFT" synth -o "$tmp/v1" --events 20000 --models nosv,mpi,tampi > /dev/null 2> "$tmp/err" &&
	"$WEFT" synth -o "$tmp/v2" --events 20000 --models tampi,nosv,mpi > /dev/null 2>> "$tmp/err"
diff -r "$tmp/v1" "$tmp/v2" > /dev/null 2>&1 && pass "--models nosv,mpi,tampi: same bytes in any order" ||
	fail "--models nosv determinism" "$(head -3 "$tmp/err")"
"$WEFT" top "$tmp/v1" > "$tmp/vtop" 2>> "$tmp/err"
vc=$(count "$tmp/vtop" VTc); vx=$(count "$tmp/vtop" VTx)
ve=$(count "$tmp/vtop" VTe); vp=$(count "$tmp/vtop" VTp)
vr=$(count "$tmp/vtop" VTr); vy=$(count "$tmp/vtop" VYc)
if [ -n "$vc" ] && [ "$vc" -gt 0 ] && [ "$vc" = "$vx" ] && [ "$vc" = "$ve" ] &&
	[ "${vp:-0}" -gt 0 ] && [ "$vp" = "$vr" ] && [ "$vy" = 8 ]; then
	pass "--models nosv: 8 task types, $vc tasks created, run, ended; $vp paused for a nested task"
else
	fail "--models nosv counts" "VYc $vy VTc $vc VTx $vx VTe $ve VTp $vp VTr $vr"
fi
# nOS-V subsystems: one nosv_create() and one nosv_submit() (with the
# scheduler's submit) per task but the nested ones, the scheduler served
# once for each of them
nsub=$(awk '$1 ~ /^V(Ar|AR|As|AS|U\[|U\]|S\[|S@|S\])$/ { n[$1] = $2 } END { printf "%s %s %s %s %s %s %s %s %s", n["VAr"], n["VAR"], n["VAs"], n["VAS"], n["VU["], n["VU]"], n["VS["], n["VS@"], n["VS]"] }' "$tmp/vtop")
o=$((vc - vp))
expect "--models nosv: API, submit and scheduler subsystems around each task" "$nsub" "$o $o $o $o $o $o $o $o $o"
vm=$(count "$tmp/vtop" VMa); vmm=$(count "$tmp/vtop" VMA)
[ "${vm:-0}" -gt 0 ] && [ "$vm" = "$vmm" ] && pass "--models nosv: $vm memory allocations in task bodies" ||
	fail "--models nosv: memory allocations" "VMa $vm VMA $vmm"
"$WEFT" emu -q -b -o "$tmp/vbout" "$tmp/v1" > /dev/null 2> "$tmp/err" && "$WEFT" check -q "$tmp/vbout/nosv-breakdown.prv" 2>> "$tmp/err" &&
	pass "--models nosv: weft emu -b writes a nosv-breakdown.prv weft check accepts" || fail "--models nosv -b" "$(head -3 "$tmp/err")"
# Each row: TRACE|STREAM|TEXT|NAME, a stream.json of a trace above that
# must hold TEXT (what the stream requires).
while IFS='|' read -r trace stream text name; do
	f=$tmp/$trace/$stream/stream.json
	result "$name" "$(grep -qF "$text" "$f" || echo "no '$text' in $f")"
done <<'EOF'
m1|loom.node00/proc.100000/thread.100000|"mpi": "1.0.0"|--models mpi: stream.json requires mpi 1.0.0
t1|loom.node01/proc.201000/thread.201001|"mpi": "1.0.0", "tampi": "1.0.0"|--models mpi,tampi: stream.json requires both
v1|loom.node00/proc.101000/thread.101001|"can_breakdown": true|--models nosv: stream.json allows the nOS-V breakdown
v1|loom.node00/proc.101000/thread.101001|"nosv": "2.7.0"|--models nosv: stream.json requires nosv 2.7.0
EOF

# Each row: TRACE|NAME, a trace above that `weft emu -l` must read with
# exit 0 and no error.
while IFS='|' read -r trace name; do
	"$WEFT" emu -l -o "$tmp/$trace.emu" "$tmp/$trace" </dev/null >/dev/null 2>"$tmp/err"
	rc=$?
	result "$name" "$([ $rc -eq 0 ] && ! grep -qi error "$tmp/err" || echo "exit $rc: $(head -3 "$tmp/err")")"
done <<'EOF'
m1|--models mpi: weft emu -l accepts it
t1|--models mpi,tampi: weft emu -l accepts it
k1|--models kernel,mpi,tampi: weft emu -l accepts it
v1|--models nosv,mpi,tampi: weft emu -l exits 0, no errors
EOF

"$WEFT" synth -o "$tmp/mu" --models mpi,bogus > /dev/null 2> "$tmp/err"
rc=$?
expect "--models: unknown model is a usage error" "$rc $(head -1 "$tmp/err")" \
	"2 weft synth: --models: unknown model 'bogus' (known: ovni, kernel, mpi, nodes, nosv, tampi)"

finish
