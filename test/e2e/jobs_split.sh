#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of where weft emu -j N (and --mpi) divides a trace
# (emu_share_split, issue 26): the split happens, stderr says how, and
# every output file is -j 1's, byte for byte.
#
#   WEFT=/abs/weft sh test/e2e/jobs_split.sh
#
#   - 2 looms, loom 0 with fewer stream bytes than loom 1 (weft synth
#     --models nosv,mpi,tampi, seed 1: the case that gave one worker);
#   - 1,000 looms named node1..node1000 (synth --loom-names node1: their
#     folders sort as text, node10 before node2, their ranks as numbers),
#     -j 2, -j 3 and -j 5 --writers 2, and mpirun -n 2 --mpi when there;
#   - 10,000 looms node1..node10000, -j 2 (one event stream a loom, a few
#     events each: the test is of the split, not of the events);
#   - -q says nothing; without -j nothing is said of a split.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fail_show=$tmp/err

# splits NAME WORKERS TRACE 'EMU OPTIONS' J...: -j 1's bytes with each -j J,
# each run saying that it split into WORKERS (or into J when WORKERS is -)
splits() {
	_name=$1 _want=$2 _t=$3 _opts=$4
	shift 4
	rm -rf "$tmp/out1"
	# shellcheck disable=SC2086
	"$WEFT" emu -q -j 1 $_opts -o "$tmp/out1" "$_t" 2>"$tmp/err" || fail "$_name -j 1" "exit $?"
	for _j in "$@"; do
		rm -rf "$tmp/outj"
		_w=1
		[ "$_j" -ge 4 ] && _w=2
		# shellcheck disable=SC2086
		if ! "$WEFT" emu -j "$_j" --writers $_w $_opts -o "$tmp/outj" "$_t" >/dev/null 2>"$tmp/err"; then
			fail "$_name -j $_j runs" "exit $?"
			continue
		fi
		_n=$_want
		[ "$_n" = - ] && _n=$_j
		expect "$_name -j $_j: says it split into $_n" \
			"$(grep -c "^weft: -j $_j: $_n workers, looms split by stream bytes: " "$tmp/err")" 1
		expect "$_name -j $_j: no note of one worker" "$(grep -c 'one worker' "$tmp/err")" 0
		same_tree "$_name -j $_j: -j 1's bytes" "$tmp/out1" "$tmp/outj"
	done
}

obs_bytes() { # DIR -> the bytes of the stream.obs files under it
	find "$1" -name stream.obs -exec cat {} + | wc -c
}

# ---- 2 looms, the first one smaller -----------------------------------------------
"$WEFT" synth -o "$tmp/two" -n 100k --seed 1 --models nosv,mpi,tampi >/dev/null 2>&1 ||
	fail "synth 2 looms" "synth failed"
a=$(obs_bytes "$tmp/two/loom.node00")
b=$(obs_bytes "$tmp/two/loom.node01")
result "2 looms: loom 0 has fewer stream bytes ($a < $b)" "$([ "$a" -lt "$b" ] || echo "$a >= $b")"
splits "2 looms, uneven" 2 "$tmp/two" '' 2 3
expect "2 looms -j 3: each loom and its bytes" \
	"$(sed -n 's/^weft: -j 3: 2 workers, looms split by stream bytes: //p' "$tmp/err" |
		sed 's/ ([0-9.]* [kM]B)//g')" "node00, node01"
splits "2 looms, uneven, -l" 2 "$tmp/two" '-l' 2
splits "corpus om-small (2 looms, uneven)" 2 "$corpus/ovni/om-small/trace" '' 2

# ---- 1,000 looms node1..node1000 ------------------------------------------------------
"$WEFT" synth -o "$tmp/k" --looms 1000 --loom-names node1 --procs 1 --threads 1 --cpus 1 -n 8k \
	--seed 2 >/dev/null 2>&1 || fail "synth 1,000 looms" "synth failed"
expect "1,000 looms: the folders sort as text" "$(ls "$tmp/k" | sed -n '1,4p' | tr '\n' ' ')" \
	"loom.node1 loom.node10 loom.node100 loom.node1000 "
splits "1,000 looms node1..node1000" - "$tmp/k" '' 2 3 5
expect "1,000 looms -j 5: the range of a share" \
	"$(grep -c '^weft: -j 5: 5 workers, looms split by stream bytes: [0-9]* to [0-9]* looms and [0-9.]* kB to [0-9.]* kB each$' "$tmp/err")" 1

# ---- 10,000 looms node1..node10000 ----------------------------------------------------
"$WEFT" synth -o "$tmp/m" --looms 10000 --loom-names node1 --procs 1 --threads 1 --cpus 1 -n 40k \
	--seed 3 >/dev/null 2>&1 || fail "synth 10,000 looms" "synth failed"
splits "10,000 looms node1..node10000" - "$tmp/m" '' 2

# ---- what is said, and when --------------------------------------------------------------
rm -rf "$tmp/o"
"$WEFT" emu -q -j 2 -o "$tmp/o" "$tmp/two" >/dev/null 2>"$tmp/err" || fail "-q -j 2" "exit $?"
expect "-q -j 2: nothing said" "$(wc -c <"$tmp/err")" 0
rm -rf "$tmp/o"
"$WEFT" emu -o "$tmp/o" "$tmp/two" >/dev/null 2>"$tmp/err" || fail "no -j" "exit $?"
expect "no -j on a small trace: nothing said of workers" "$(grep -c 'worker' "$tmp/err")" 0

# ---- --mpi: the same split across ranks ---------------------------------------------------
if command -v mpirun >/dev/null 2>&1 && { nm -D "$WEFT" 2>/dev/null | grep -q MPI_Init ||
	ldd "$WEFT" 2>/dev/null | grep -q libmpi; }; then
	OMPI_ALLOW_RUN_AS_ROOT=1
	OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	OMPI_MCA_btl_vader_single_copy_mechanism=none
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_vader_single_copy_mechanism \
		ASAN_OPTIONS
	for t in two k; do
		rm -rf "$tmp/out1" "$tmp/outn"
		"$WEFT" emu -q -j 1 -o "$tmp/out1" "$tmp/$t" 2>"$tmp/err" || fail "$t -j 1" "exit $?"
		mpirun --oversubscribe -n 2 "$WEFT" emu --mpi -o "$tmp/outn" "$tmp/$t" >/dev/null 2>"$tmp/err" ||
			fail "$t mpirun -n 2" "exit $?"
		expect "$t mpirun -n 2: rank 0 says it split into 2" \
			"$(grep -c '^weft: --mpi: 2 ranks, looms split by stream bytes: ' "$tmp/err")" 1
		same_tree "$t mpirun -n 2: -j 1's bytes" "$tmp/out1" "$tmp/outn"
	done
else
	skip "--mpi splits" "no mpirun, or a weft without MPI"
fi

finish
