#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of weft emu --mpi (looms split across MPI ranks):
# mpirun --oversubscribe -n 1, 2 and 4, rank 0 writing as the ranks go or
# every rank writing a time slice (--slices), give every output file of one
# process (-j 1), byte for byte.
#
#   WEFT=/abs/weft sh test/e2e/mpi.sh
#
#   - ovni corpus traces (2 and 3 looms), weft synth traces of 5 looms with
#     every model synth writes (nosv, mpi, tampi, kernel, nodes) (task types: labels gathered from the ranks),
#     a mixed-input run of ovni 1.14.0 test traces (nanos6, openmp, nosv,
#     tampi, mpi), a PICL log with messages across ranks (paired by rank 0),
#     a VisAndOr log (rank 0 alone: the note says why);
#   - the models' warnings from every rank: -j 1's, in its order;
#   - a model error in one rank's looms: -j 1's error, exit 1, no output;
#   - a rank killed mid-run: mpirun exits non-zero naming rank 1, no .prv
#     under its final name; the next run into that folder sweeps its parts;
#   - a weft built without MPI refuses --mpi (usage, exit 2): checked only
#     when this weft has no MPI.
# Skipped (not failed) when mpirun is missing; `make deps` installs Open MPI.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fx=$top/test/fixtures/ovniemu
fail_show=$tmp/err

if ! command -v mpirun >/dev/null 2>&1; then
	skip "mpi" "no mpirun (make deps installs openmpi-bin)"
	finish
fi
if ! nm -D "$WEFT" 2>/dev/null | grep -q MPI_Init && ! ldd "$WEFT" 2>/dev/null | grep -q libmpi; then
	"$WEFT" emu --mpi -o "$tmp/o" "$corpus/ovni/small/trace" >/dev/null 2>"$tmp/err"
	expect "no MPI in this build: --mpi is a usage error" "$?" 2
	expect "no MPI: the message" "$(grep -c 'built without MPI' "$tmp/err")" 1
	finish
fi
# Open MPI refuses root unless told (CI runs as root); the leak checker
# cannot tell MPI's own allocations (under make check-asan)
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_vader_single_copy_mechanism=none
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism ASAN_OPTIONS
mpi() {
	mpirun --oversubscribe -n "$@"
}

# runs NAME 'EMU OPTIONS' INPUT...: mpirun -n 1, 2, 4 give -j 1's bytes
runs() {
	_name=$1
	_opts=$2
	shift 2
	rm -rf "$tmp/out1"
	# shellcheck disable=SC2086
	"$WEFT" emu -q -j 1 $_opts -o "$tmp/out1" "$@" 2>"$tmp/err" || fail "$_name -j 1" "exit $?"
	for _n in 1 2 4; do
		for _s in "" --slices; do
			rm -rf "$tmp/outn"
			_w=1
			[ $_n = 4 ] && _w=2 # rank 0 merging: a writer thread a file
			# shellcheck disable=SC2086
			if ! mpi $_n "$WEFT" emu --mpi $_s --writers $_w -q $_opts -o "$tmp/outn" "$@" >/dev/null \
				2>"$tmp/err"; then
				fail "$_name -n $_n $_s runs" "mpirun failed"
				continue
			fi
			same_tree "$_name mpirun -n $_n $_s" "$tmp/out1" "$tmp/outn"
		done
	done
}

mkdir -p "$tmp/in"
for t in small o-skew small-split; do
	cp -R "$corpus/ovni/$t/trace" "$tmp/in/$t"
	runs "corpus $t" '' "$tmp/in/$t"
done
for m in nosv,mpi,tampi,kernel,nodes kernel; do
	rm -rf "$tmp/s"
	"$WEFT" synth -o "$tmp/s" --looms 5 --procs 2 --threads 2 --cpus 3 -n 60k --seed 5 --models $m \
		>/dev/null 2>&1 || fail "synth $m" "synth failed"
	runs "synth 5 looms $m -l" '-l' "$tmp/s"
done
runs "mixed inputs" '-l' "$fx/nanos6/nested-tasks/trace" "$fx/openmp/mix-task-ws/trace" \
	"$fx/nosv/hwc/trace" "$fx/tampi/ss-comm/trace" "$fx/mpi/func/trace" "$tmp/in/small"

"$WEFT" synth --format picl -o "$tmp/m.trf" --procs 6 --traffic random -n 30k >/dev/null 2>&1 ||
	fail "synth picl" "failed"
runs "PICL, messages across ranks" '' "$tmp/m.trf"
"$WEFT" synth --format visandor --kind or --agents 4 -n 5000 -o "$tmp/v.log" >/dev/null 2>&1 ||
	fail "synth visandor" "failed"
runs "VisAndOr or-branch (rank 0 alone)" '' "$tmp/v.log"
rm -rf "$tmp/o"
mpi 2 "$WEFT" emu --mpi -o "$tmp/o" "$tmp/v.log" >/dev/null 2>"$tmp/err"
expect "VisAndOr: the note says why rank 0 is alone" \
	"$(grep -c 'weft: --mpi: rank 0 alone: model orbranch keeps state across looms' "$tmp/err")" 1

# a model error in the last input's loom (rank 1 of 2): the same error
rm -rf "$tmp/out1" "$tmp/outn"
"$WEFT" emu -q -j 1 -o "$tmp/out1" "$tmp/in/small" "$fx/nanos6/rerun-task-bad/trace" 2>"$tmp/err1"
expect "model error: -j 1 exit" "$?" 1
mpi 2 "$WEFT" emu --mpi -q -o "$tmp/outn" "$tmp/in/small" "$fx/nanos6/rerun-task-bad/trace" \
	>/dev/null 2>"$tmp/err2"
expect "model error: mpirun exit" "$?" 1
expect "model error: rank 0 reports -j 1's error" "$(grep '^weft: error' "$tmp/err2")" "$(cat "$tmp/err1")"
result "model error: no trace" "$(ls -A "$tmp/outn" 2>/dev/null)"

# the same with --slices: the outcomes meet before any slice is written
rm -rf "$tmp/outn"
mpi 2 "$WEFT" emu --mpi --slices -q -o "$tmp/outn" "$tmp/in/small" "$fx/nanos6/rerun-task-bad/trace" \
	>/dev/null 2>"$tmp/err2"
expect "model error, --slices: mpirun exit" "$?" 1
expect "model error, --slices: -j 1's error" "$(grep '^weft: error' "$tmp/err2")" "$(cat "$tmp/err1")"
result "model error, --slices: no trace" "$(ls -A "$tmp/outn" 2>/dev/null)"
"$WEFT" emu --slices -o "$tmp/o" "$tmp/in/small" >/dev/null 2>"$tmp/err"
expect "--slices without --mpi: usage error" "$?" 2

# the models' warnings from every rank: rank 0 prints -j 1's lines, in order
. "$top/test/obsbytes.sh"
flush_trace "$tmp/fl"
rm -rf "$tmp/out1"
"$WEFT" emu -j 1 -o "$tmp/out1" "$tmp/fl" 2>&1 >/dev/null | grep 'warning' >"$tmp/warn1"
expect "flush warnings -j 1: four" "$(grep -c 'flushing its buffer' "$tmp/warn1")" 4
for _n in 2 4; do
	rm -rf "$tmp/outn"
	mpi $_n "$WEFT" emu --mpi -o "$tmp/outn" "$tmp/fl" 2>&1 >/dev/null | grep 'warning' >"$tmp/warnn"
	result "flush warnings mpirun -n $_n: -j 1's" "$(cmp -s "$tmp/warn1" "$tmp/warnn" ||
		echo "got [$(cat "$tmp/warnn")]")"
done

# a rank killed while it emulates: the job fails, names it, leaves no trace
rm -rf "$tmp/k" "$tmp/ko"
"$WEFT" synth -o "$tmp/k" --looms 4 -n 8M >/dev/null 2>&1 || fail "synth 8M" "failed"
(
	mpi 2 "$WEFT" emu --mpi -o "$tmp/ko" "$tmp/k" >/dev/null 2>"$tmp/kerr"
	echo $? >"$tmp/krc"
) &
bg=$!
# (until the job ends: mpirun may take its time to start the ranks on a
# busy machine, and rank 1 writes its parts for seconds)
killed=
while kill -0 $bg 2>/dev/null && [ -z "$killed" ]; do
	for f in "$tmp"/ko/.weft/ranks-*/1.ops; do
		[ -s "$f" ] || continue
		for p in $(pgrep -f "$WEFT emu --mpi"); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1; then
				kill -9 "$p" && killed=$p
			fi
		done
	done
	sleep 0.05
done
wait $bg
result "killed rank: it was killed mid-run" "$([ -n "$killed" ] || echo "rank 1 never seen writing")"
result "killed rank: mpirun exits non-zero" "$([ "$(cat "$tmp/krc")" != 0 ] || echo "exit 0")"
expect "killed rank: the error names rank 1" "$(grep -c 'process rank 1 .*exited on signal 9' "$tmp/kerr")" 1
# (a name that does not open is no output: doc/dev/outputs.md)
result "killed rank: no output under its final name" \
	"$(for f in "$tmp/ko"/*.prv "$tmp/ko"/*.pcf; do [ -e "$f" ] && echo "$f"; done)"
# what the killed run left (its part folder, its generation) goes with the
# next run into that folder
result "killed rank: it left its parts (else the sweep below proves nothing)" \
	"$([ -n "$(leftovers "$tmp/ko")" ] || echo "nothing left")"
# (rank 0 may still be on its way out when mpirun returns, holding the
# folder's lock: wait for it, its sanitizer's exit included, at most 300 s)
for d in "$tmp"/ko/.weft/ranks-*; do
	i=0
	while [ -d "/proc/${d##*-}" ] && [ $i -lt 6000 ]; do
		sleep 0.05
		i=$((i + 1))
	done
done
"$WEFT" emu -q -o "$tmp/ko" "$tmp/in/small" >/dev/null 2>&1
expect "killed rank: the next run sweeps them" "$(leftovers "$tmp/ko")" ""

finish
