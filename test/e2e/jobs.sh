#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of weft emu -j N (the emulation split by loom): every
# output file of -j 2 (--writers 1) and -j 4 (--writers 2) is the same bytes
# as -j 1's.
#
#   WEFT=/abs/weft sh test/e2e/jobs.sh
#
#   - the ovni corpus traces (2 and 3 looms, clock offsets, ties, a loom in
#     two folders), and with -l, -z, --from/--to;
#   - weft synth traces of 5 looms for each model synth writes (ovni,
#     nosv, mpi, tampi, kernel, nodes) and all of them at once;
#   - a mixed-input run: ovni 1.14.0 test traces of nanos6, openmp, nosv,
#     tampi and mpi (and a corpus trace) as several inputs, one loom each;
#   - PICL logs (ring, all-to-all, random traffic) split by processor, their
#     messages paired across workers; a VisAndOr log (one worker: the note
#     says why);
#   - the models' warnings from several workers: -j 1's, in its order;
#   - errors: a model error in one loom of several is the one -j 1 reports
#     (the first in time order), an end-of-run check too; no output left;
#   - -j 0, -j x: usage errors.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fx=$top/test/fixtures/ovniemu
fail_show=$tmp/err

# runs NAME 'EMU OPTIONS' INPUT...: -j 1, 2, 4 give the same bytes (-j 2
# with the merging thread writing, -j 4 with a writer thread a file)
runs() {
	_name=$1
	_opts=$2
	shift 2
	for _j in 1 2 4; do
		rm -rf "$tmp/out$_j"
		_w=1
		[ $_j = 4 ] && _w=2
		# shellcheck disable=SC2086
		if ! "$WEFT" emu -q -j $_j --writers $_w $_opts -o "$tmp/out$_j" "$@" 2>"$tmp/err"; then
			fail "$_name -j $_j runs" "exit $?"
			return
		fi
	done
	same_tree "$_name -j 2" "$tmp/out1" "$tmp/out2"
	same_tree "$_name -j 4" "$tmp/out1" "$tmp/out4"
}

# copy a trace directory (emu writes its own files only into -o, but the
# inputs stay untouched by any run: keep them apart anyway)
for t in small o-skew o-ties small-split ok-small om-small on-small; do
	mkdir -p "$tmp/in"
	cp -R "$corpus/ovni/$t/trace" "$tmp/in/$t"
	runs "corpus $t" '' "$tmp/in/$t"
done
runs "corpus small -l -z" '-l -z' "$tmp/in/small"
runs "corpus o-skew --from/--to" '--from 20us --to 400us' "$tmp/in/o-skew"
runs "corpus o-ties --from-event" '--from-event=mcv="OHp"' "$tmp/in/o-ties"
runs "corpus o-skew -a --strict" '-a --strict' "$tmp/in/o-skew"

for m in ovni nosv mpi,tampi kernel nodes nosv,mpi,tampi,kernel,nodes; do
	rm -rf "$tmp/s"
	case $m in ovni) mo= ;; *) mo="--models $m" ;; esac
	# shellcheck disable=SC2086
	"$WEFT" synth -o "$tmp/s" --looms 5 --procs 2 --threads 2 --cpus 3 -n 60k --seed 7 $mo >/dev/null 2>&1 ||
		fail "synth $m" "synth failed"
	runs "synth 5 looms $m -l" '-l' "$tmp/s"
done

# many workers: 40 looms on -j 40 (rings of 25 chunks, not 64: 128 MiB in all)
rm -rf "$tmp/s40"
"$WEFT" synth -o "$tmp/s40" --looms 40 --procs 1 --threads 1 --cpus 1 -n 40k --seed 3 >/dev/null 2>&1 ||
	fail "synth 40 looms" "synth failed"
rm -rf "$tmp/out1" "$tmp/out40"
"$WEFT" emu -q -j 1 -o "$tmp/out1" "$tmp/s40" 2>"$tmp/err" || fail "40 looms -j 1" "exit $?"
"$WEFT" emu -q -j 40 -o "$tmp/out40" "$tmp/s40" 2>"$tmp/err" || fail "40 looms -j 40" "exit $?"
same_tree "synth 40 looms -j 40" "$tmp/out1" "$tmp/out40"

# several inputs: one loom each, every model of ovni's tests
runs "mixed inputs (nanos6, openmp, nosv, tampi, mpi, ovni)" '-l' \
	"$fx/nanos6/nested-tasks/trace" "$fx/openmp/mix-task-ws/trace" "$fx/nosv/hwc/trace" \
	"$fx/tampi/ss-comm/trace" "$fx/mpi/func/trace" "$tmp/in/small"

# message traces: PICL split by processor (its messages paired by the
# merger), VisAndOr on one worker (its agents share fork nodes), the note
for traffic in ring all random; do
	"$WEFT" synth --format picl -o "$tmp/m-$traffic.trf" --procs 6 --traffic $traffic -n 30k >/dev/null 2>&1 ||
		fail "synth picl $traffic" "failed"
	runs "PICL $traffic, messages across looms" '' "$tmp/m-$traffic.trf"
done
rm -rf "$tmp/o"
"$WEFT" emu -j 2 -o "$tmp/o" "$tmp/m-ring.trf" >/dev/null 2>"$tmp/err"
expect "PICL -j 2: split (no note)" "$(grep -c 'one worker' "$tmp/err")" 0
result "PICL -j 2: messages paired across workers" \
	"$([ "$(grep -c '^3:' "$tmp/o/thread.prv")" -gt 100 ] || echo "few communication records")"
"$WEFT" synth --format visandor --kind and --agents 4 -n 5000 -o "$tmp/v.log" >/dev/null 2>&1 ||
	fail "synth visandor" "failed"
runs "VisAndOr, and-fork across agents" '' "$tmp/v.log"
rm -rf "$tmp/o"
"$WEFT" emu -j 2 -o "$tmp/o" "$tmp/v.log" >/dev/null 2>"$tmp/err"
expect "VisAndOr -j 2: the note says why one worker" \
	"$(grep -c 'weft: -j 2: one worker: model andfork keeps state across looms' "$tmp/err")" 1
rm -rf "$tmp/o"
"$WEFT" emu -o "$tmp/o" "$tmp/v.log" >/dev/null 2>"$tmp/err"
expect "no note without -j" "$(grep -c 'one worker' "$tmp/err")" 0

# errors: a loom that fails, among others; -j 1's error, no output
err_runs() {
	_name=$1
	shift
	for _j in 1 2 4; do
		rm -rf "$tmp/out$_j"
		"$WEFT" emu -q -j $_j "$@" -o "$tmp/out$_j" "$tmp/in/small" "$tmp/in/o-ties" \
			"$tmp/bad" >/dev/null 2>"$tmp/err$_j"
		echo $? >"$tmp/rc$_j"
	done
	expect "$_name: -j 1 exit" "$(cat "$tmp/rc1")" 1
	for _j in 2 4; do
		expect "$_name: -j $_j exit" "$(cat "$tmp/rc$_j")" 1
		result "$_name: -j $_j error" "$(cmp -s "$tmp/err1" "$tmp/err$_j" ||
			echo "[$(cat "$tmp/err$_j")] vs [$(cat "$tmp/err1")]")"
		result "$_name: -j $_j leaves no trace" "$(ls "$tmp/out$_j"/*.prv 2>/dev/null)"
	done
}
rm -rf "$tmp/bad"
cp -R "$fx/nanos6/rerun-task-bad/trace" "$tmp/bad"
err_runs "model error in the last input"
rm -rf "$tmp/bad"
cp -R "$fx/nanos6/ss-mismatch/trace" "$tmp/bad" 2>/dev/null || cp -R "$fx/tampi/ss-mismatch/trace" "$tmp/bad"
err_runs "end-of-run check (-l)" -l

# warnings of the models in several workers: -j 1's lines, in its order
# (the workers keep them; the merger prints them by time and stream)
. "$top/test/obsbytes.sh"
flush_trace "$tmp/fl"
for _j in 1 2 4; do
	rm -rf "$tmp/out$_j"
	"$WEFT" emu -j $_j -o "$tmp/out$_j" "$tmp/fl" 2>&1 >/dev/null | grep 'warning' >"$tmp/warn$_j"
done
expect "flush warnings -j 1: four, in time order" \
	"$(sed -n 's/.*spent \([0-9.]*\) ms.*/\1/p' "$tmp/warn1" | tr '\n' ' ')" "12.0 25.0 30.0 40.0 "
for _j in 2 4; do
	result "flush warnings -j $_j: -j 1's" "$(cmp -s "$tmp/warn1" "$tmp/warn$_j" ||
		echo "got [$(cat "$tmp/warn$_j")]")"
done

# -k splits: the model errors it goes past come out as -j 1 prints them (the
# first 20 in one run's order, then where the 21st came, then the count),
# whichever worker met them. 4 looms, 8 errors each, interleaved in time.
rm -rf "$tmp/kk"
for _l in a:1000 b:1003 c:1001 d:1002; do
	_d=$tmp/kk/loom.${_l%%:*}/proc.1/thread.1
	thread_json "$_d" "${_l%%:*}"
	{
		hdr
		ev 15 OHx 100
		i32le 0
		i32le -1
		i64le 0
		for _k in 0 1 2 3 4 5 6 7; do
			ev 0 'OF]' $((${_l#*:} + _k * 10))
		done
		ev 0 OHe 50000000
	} >"$_d/stream.obs"
done
for _j in 1 2 4; do
	rm -rf "$tmp/out$_j"
	"$WEFT" emu -k -j $_j -o "$tmp/out$_j" "$tmp/kk" 2>"$tmp/kall$_j" >/dev/null
	grep -v ' events in \|workers, looms split' "$tmp/kall$_j" >"$tmp/kerr$_j"
done
expect "-k -j 1: 20 errors shown" "$(grep -c 'expected OF\[ before OF\]' "$tmp/kerr1")" 20
expect "-k -j 1: the 21st said" "$(sed -n 21p "$tmp/kerr1")" \
	"weft: warning: more model errors follow; only the count is reported"
expect "-k -j 1: the count" "$(sed -n 22p "$tmp/kerr1")" "weft: warning: 32 model errors were skipped (--keep-going)"
expect "-k -j 1: time order (loom c second)" "$(sed -n 2p "$tmp/kerr1" | grep -c 'loom.c/.*time 901 ns')" 1
for _j in 2 4; do
	result "-k -j $_j: -j 1's lines" "$(cmp -s "$tmp/kerr1" "$tmp/kerr$_j" || echo "got [$(cat "$tmp/kerr$_j")]")"
	result "-k -j $_j: -j 1's outputs" "$(diff -r "$tmp/out1" "$tmp/out$_j" | grep -v '^Only in' | head -3)"
done
expect "-k -j 2: split" "$(grep -c 'weft: -j 2: 2 workers' "$tmp/kall2")" 1
rm -rf "$tmp/out2"
"$WEFT" emu -q -k -j 2 -o "$tmp/out2" "$tmp/kk" 2>"$tmp/kq" >/dev/null
expect "-q -k -j 2: the model errors all the same" "$(grep -c 'expected OF' "$tmp/kq")" 20
rm -rf "$tmp/out1"
"$WEFT" emu -q -k -j 1 -o "$tmp/out1" "$tmp/kk" 2>"$tmp/kq1" >/dev/null
result "-q -k -j 2: -j 1's lines" "$(cmp -s "$tmp/kq1" "$tmp/kq" || echo "got [$(cat "$tmp/kq")] vs [$(cat "$tmp/kq1")]")"

# a stream's clock going backwards in one loom: -j 1's error, whichever
# worker owns the loom (the others meet it in the heap's steps they follow)
for _bl in b c; do
	rm -rf "$tmp/sb"
	flush_trace "$tmp/sb"
	{
		hdr
		ev 15 OHx 100
		i32le 0
		i32le -1
		i64le 0
		ev 0 'OF[' 20000000
		ev 0 'OF]' 1500
		ev 0 OHe 50000000
	} >"$tmp/sb/loom.$_bl/proc.1/thread.1/stream.obs"
	for _j in 1 2 4; do
		rm -rf "$tmp/out$_j"
		"$WEFT" emu -q -j $_j -o "$tmp/out$_j" "$tmp/sb" >/dev/null 2>"$tmp/err$_j"
		echo $? >"$tmp/rc$_j"
	done
	expect "clock backwards in loom $_bl: -j 1 exit" "$(cat "$tmp/rc1")" 1
	expect "clock backwards in loom $_bl: -j 1 says so" \
		"$(grep -c "loom.$_bl/proc.1/thread.1/stream.obs: clock goes backwards" "$tmp/err1")" 1
	for _j in 2 4; do
		expect "clock backwards in loom $_bl: -j $_j exit" "$(cat "$tmp/rc$_j")" 1
		result "clock backwards in loom $_bl: -j $_j error" "$(cmp -s "$tmp/err1" "$tmp/err$_j" ||
			echo "[$(cat "$tmp/err$_j")] vs [$(cat "$tmp/err1")]")"
	done
done

for bad in 0 3 x; do
	"$WEFT" emu -j 2 --writers "$bad" -o "$tmp/o" "$tmp/in/small" >/dev/null 2>"$tmp/err"
	expect "--writers $bad: usage error" "$?" 2
done
expect "--writers x: the message" "$(head -1 "$tmp/err")" "weft emu: --writers: expected 1 or 2, found 'x'"
for bad in 0 x -1 2000; do
	"$WEFT" emu -j "$bad" -o "$tmp/o" "$tmp/in/small" >/dev/null 2>"$tmp/err"
	expect "-j $bad: usage error" "$?" 2
done
expect "-j x: the message" "$(cat "$tmp/err" | head -1)" \
	"weft emu: -j: expected a number of workers from 1 to 1024, found '2000'"

finish
