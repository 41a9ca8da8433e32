#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft emu --otf2 DIR: the OTF2 archive of a run against its Paraver output.
#
#   WEFT=/abs/weft sh test/e2e/otf2.sh
#
#   - every ok case of ovni's emulator tests that weft passes (models ovni,
#     kernel, nosv, nanos6, openmp, mpi, tampi; test/fixtures/ovniemu),
#     weft synth traces of each model synth writes, PICL logs with messages,
#     a VisAndOr log and a CHARISMA log: `weft emu -o P --otf2 O` in one
#     pass, then test/tools/otf2cmp.py: otf2-print reads O, and per location
#     its enter/leave and metric records and their times are P's state and
#     event records, its MPI sends and receives P's communications;
#   - a location with more records than its writer's chunks hold (OTF2
#     flushes it mid-run) keeps them all;
#   - -j 2 (and -j 4 --writers 2) give the same archive as -j 1;
#   - a failed run leaves the archive of the last good one, no leftover;
#   - --from/--to and --from-event: the archive holds the Paraver files'
#     window (otf2cmp.py on both, state open across the edges, messages
#     sent before and received in it), -j 2 the same;
#   - --otf2 with --mpi, or -o's directory: usage errors.
# Without OTF2 in this weft, or without otf2-print or python3, every test
# is skipped saying so (make deps installs them).
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fx=$top/test/fixtures/ovniemu
cmp_tool=$top/test/tools/otf2cmp.py
fail_show=$tmp/err

why_skip=
if ! command -v otf2-print >/dev/null 2>&1; then
	why_skip="otf2-print is not installed (Debian otf2-tools; make deps installs it)"
elif ! command -v python3 >/dev/null 2>&1; then
	why_skip="python3 is not installed"
else
	"$WEFT" emu -q --otf2 "$tmp/probe" "$fx/nosv/attach/trace" -o "$tmp/probe-prv" 2>"$tmp/err"
	if grep -q 'built without OTF2' "$tmp/err"; then
		why_skip="this weft was built without OTF2 (libopen-trace-format2-dev; make deps, then build again)"
	fi
fi
if [ -n "$why_skip" ]; then
	echo "otf2.sh: skipped: $why_skip"
	skip "weft emu --otf2" "$why_skip"
	finish
fi

# both NAME 'EMU OPTIONS' INPUT...: one pass writes both; otf2cmp agrees
both() {
	_name=$1
	_opts=$2
	shift 2
	rm -rf "$tmp/p" "$tmp/o"
	# shellcheck disable=SC2086
	if ! "$WEFT" emu -q $_opts -o "$tmp/p" --otf2 "$tmp/o" "$@" 2>"$tmp/err"; then
		fail "$_name" "weft emu --otf2 exit $?"
		return
	fi
	if python3 "$cmp_tool" "$tmp/p" "$tmp/o" >"$tmp/cmp" 2>&1; then
		pass "$_name: $(tail -n 1 "$tmp/cmp")"
	else
		fail "$_name" "$(head -n 3 "$tmp/cmp" | tr '\n' ' ')"
	fi
}

# what otf2-print shows of an archive: definitions and events
shown() { # DIR
	otf2-print -G "$1/traces.otf2" 2>&1 | grep -v '^CLOCK_PROPERTIES\|Creator\|^=' && otf2-print "$1/traces.otf2" 2>&1
}

# jobs NAME 'EMU OPTIONS' INPUT...: -j 2 and -j 4 --writers 2 write -j 1's archive
jobs() {
	_name=$1
	_opts=$2
	shift 2
	for _j in 1 2 4; do
		rm -rf "$tmp/jp$_j" "$tmp/jo$_j"
		_w=1
		[ $_j = 4 ] && _w=2
		# shellcheck disable=SC2086
		if ! "$WEFT" emu -q -j $_j --writers $_w $_opts -o "$tmp/jp$_j" --otf2 "$tmp/jo$_j" "$@" 2>"$tmp/err"; then
			fail "$_name -j $_j" "exit $?"
			return
		fi
		shown "$tmp/jo$_j" >"$tmp/js$_j"
	done
	for _j in 2 4; do
		result "$_name: -j $_j archive = -j 1's ($(wc -l <"$tmp/js1") lines of otf2-print)" \
			"$(cmp -s "$tmp/js1" "$tmp/js$_j" || diff "$tmp/js1" "$tmp/js$_j" | head -n 4 | tr '\n' ' ')"
		result "$_name: -j $_j leaves no leftover" "$(leftovers "$tmp/jo$_j")"
	done
}

# the ovni emulator tests weft passes, with their flags
awk -F'\t' 'NR > 1 && $2 == "pass" { print $1 }' "$fx/status.tsv" >"$tmp/passing"
awk -F'\t' 'NR > 1 && $3 == "ok" { print $1 "\t" $4 }' "$fx/cases.tsv" | while IFS='	' read -r c flags; do
	grep -qx "$c" "$tmp/passing" || continue
	[ -d "$fx/$c/trace" ] || continue
	case $flags in -) flags= ;; esac
	if [ -n "$(find "$fx/$c/trace" -name '*.gz' | head -n 1)" ]; then
		rm -rf "$tmp/trace"
		cp -R "$fx/$c/trace" "$tmp/trace" && find "$tmp/trace" -name '*.gz' -exec gzip -d {} \;
		tr=$tmp/trace
	else
		tr=$fx/$c/trace
	fi
	both "ovni test $c $flags" "$flags" "$tr"
done >"$tmp/cases.out"
cat "$tmp/cases.out"
npass=$((npass + $(grep -c '^ok ' "$tmp/cases.out")))
nfail=$((nfail + $(grep -c '^FAIL ' "$tmp/cases.out")))
_lib_n=$((_lib_n + $(grep -c '^ok \|^FAIL ' "$tmp/cases.out")))

for m in ovni nosv mpi,tampi kernel nodes; do
	rm -rf "$tmp/s-$m"
	case $m in ovni) mo= ;; *) mo="--models $m" ;; esac
	# shellcheck disable=SC2086
	"$WEFT" synth -o "$tmp/s-$m" --looms 3 --procs 2 --threads 2 --cpus 3 -n 20k --seed 7 $mo >/dev/null 2>&1 ||
		fail "synth $m" "synth failed"
	both "synth $m" '-l' "$tmp/s-$m"
done
# a location past its writer's chunks (4 of 256 KiB): OTF2 flushes it
# mid-run, the chunks are reused (otf2_sink.c), the records stay
rm -rf "$tmp/s-big"
"$WEFT" synth -o "$tmp/s-big" --looms 1 --procs 1 --threads 1 --cpus 1 -n 300k --seed 3 >/dev/null 2>&1 ||
	fail "synth one thread" "synth failed"
both "one thread, 700k records: its writer flushes mid-run" '' "$tmp/s-big"
for traffic in ring all random; do
	"$WEFT" synth --format picl -o "$tmp/m-$traffic.trf" --procs 6 --traffic $traffic -n 20k >/dev/null 2>&1 ||
		fail "synth picl $traffic" "failed"
	both "PICL $traffic (messages)" '' "$tmp/m-$traffic.trf"
done
result "PICL ring: its messages are MPI sends" \
	"$([ "$(otf2-print "$tmp/o/traces.otf2" 2>/dev/null | grep -c '^MPI_SEND')" -gt 100 ] || echo "few MPI_SEND records")"
# labels the run names (OpenMP task types, named by their events) name
# their regions too: the layout is complete at the end (sink.h)
rm -rf "$tmp/trace"
cp -R "$fx/openmp/nested-task/trace" "$tmp/trace" && find "$tmp/trace" -name '*.gz' -exec gzip -d {} \;
"$WEFT" emu -q -o "$tmp/pl" --otf2 "$tmp/ol" "$tmp/trace" 2>"$tmp/err"
got=$(otf2-print -A "$tmp/ol/traces.otf2" 2>/dev/null | grep -c '^REGION .*Name: "task\.1" .*(Aka\. "openmp\.task_type=')
result "a label named during the run names its region" "$([ "$got" -ge 1 ] || echo "no region named task.1 (found $got)")"
"$WEFT" synth --format visandor --kind and --agents 4 -n 5000 -o "$tmp/v.log" >/dev/null 2>&1 ||
	fail "synth visandor" "failed"
both "VisAndOr" '' "$tmp/v.log"
for f in "$top"/test/e2e/charisma/*.bin; do
	[ -f "$f" ] || continue
	cp "$f" "$tmp/c.bin"
	both "CHARISMA $(basename "$f")" '' "$tmp/c.bin"
done

jobs "synth 3 looms mpi,tampi" '-l' "$tmp/s-mpi,tampi"
jobs "PICL random, messages across workers" '' "$tmp/m-random.trf"
jobs "mixed inputs (nanos6, openmp, nosv, tampi, mpi)" '-l' \
	"$fx/nanos6/nested-tasks/trace" "$fx/openmp/mix-task-ws/trace" "$fx/nosv/hwc/trace" \
	"$fx/tampi/ss-comm/trace" "$fx/mpi/func/trace"

# atomic: a failed run leaves the last good archive, and no leftover
rm -rf "$tmp/a" "$tmp/ap"
"$WEFT" emu -q -o "$tmp/ap" --otf2 "$tmp/a" "$fx/nosv/attach/trace" 2>"$tmp/err" || fail "atomic: first run" "exit $?"
shown "$tmp/a" >"$tmp/a1"
rm -rf "$tmp/bad"
cp -R "$fx/nanos6/rerun-task-bad/trace" "$tmp/bad"
"$WEFT" emu -q -o "$tmp/ap" --otf2 "$tmp/a" "$tmp/bad" 2>"$tmp/err"
expect "atomic: a model error exits 1" "$?" 1
shown "$tmp/a" >"$tmp/a2"
result "atomic: the failed run left the last archive" "$(cmp -s "$tmp/a1" "$tmp/a2" || echo "it changed")"
result "atomic: no leftover" "$(leftovers "$tmp/a")"

# the window: one filter in front of both sinks; OTF2 and Paraver agree on it
both "window: synth mpi,tampi --from/--to" '--from 200us --to 500us' "$tmp/s-mpi,tampi"
both "window: synth nosv --from only" '--from 100us' "$tmp/s-nosv"
both "window: synth nosv, 1 us" '-l --from 300us --to 301us' "$tmp/s-nosv"
both "window: PICL, messages across the edges" '--from 30ms --to 60ms' "$tmp/m-random.trf"
both "window: PICL from 0" '--from 0 --to 50ms' "$tmp/m-random.trf"
both "window: --from-event" '--from-event mcv="VTx"' "$tmp/s-nosv"
jobs "window: PICL messages" '--from 1ms --to 20ms' "$tmp/m-random.trf"
jobs "window: synth 3 looms mpi,tampi" '--from 30us --to 400us' "$tmp/s-mpi,tampi"
rm -rf "$tmp/wp" "$tmp/wf"
"$WEFT" emu -q -o "$tmp/wp" --otf2 "$tmp/wf" "$tmp/m-random.trf" 2>"$tmp/err"
result "window: the archive holds less than the whole run's" \
	"$([ "$(wc -l <"$tmp/js1")" -lt "$(shown "$tmp/wf" | wc -l)" ] || echo "not fewer lines of otf2-print")"
"$WEFT" emu -q -o "$tmp/u" --otf2 "$tmp/u" "$fx/nosv/attach/trace" 2>"$tmp/err"
expect "--otf2 into -o's directory: usage error" "$?" 2
finish
