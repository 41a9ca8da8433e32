#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Outputs and temporaries the system refuses, output names no output can
# have, and what failed or killed runs leave (weft(1), EXIT STATUS):
#   - an unusable output name (empty, a directory, no directory to write it
#     in) is a usage error, 2, found before the work, nothing made;
#   - whatever the system refuses (a read-only file system, permission, too
#     many open files) is 1, with the errno's text and what to do;
#   - a failed run removes every folder it made, parents included; a killed
#     synth, plot or sync leaves a temporary that the next run of the same
#     output removes; an exit for want of memory leaves nothing.
#
#   WEFT=/abs/path/to/weft sh test/malformed/outputs.sh
#
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why", then
# "N passed, M failed". Cases needing root (a read-only mount, another
# user) or strace are skipped, with a message, without them.

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
MNT=
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; lib_cleanup' EXIT
cd "$tmp" || exit 2

"$WEFT" synth -o tr --looms 1 --procs 1 --threads 2 --cpus 2 -n 2000 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" synth --format picl -o log.trf --procs 2 -n 50 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" import picl log.trf -o ptr >/dev/null 2>&1 &&
	"$WEFT" emu -q -o p tr >/dev/null 2>&1 ||
	{ echo "outputs.sh: weft synth or emu failed" >&2; exit 2; }
P=$tmp/p/thread.prv

# run NAME RC STDERR ARGS...: weft ARGS exits RC with exactly STDERR
run() {
	_n=$1 _rc=$2 _err=$3
	shift 3
	"$WEFT" "$@" >out.txt 2>err.txt </dev/null
	expect "$_n" "$?:$(cat err.txt)" "$_rc:$_err"
}

# the entries of the test's folder, to see that nothing was made
: >out.txt
: >err.txt
base=$(ls -A | tr '\n' ' ')
nothing_new() {
	result "$1: nothing made" "$([ "$(ls -A | tr '\n' ' ')" = "$base" ] || echo "now: $(ls -A | tr '\n' ' ')")"
}

# ---- unusable names: 2 ----------------------------------------------------------------

run "emu -o ''" 2 "weft emu: -o: an empty name names no directory
Try 'weft emu --help'." emu -q -o '' tr
for c in "sync" "plot" "synth --format picl --procs 2 -n 20"; do
	what=${c%% *}
	arg=tr pre="weft: error: " post=
	[ "$what" = plot ] && arg=$P
	# synth --format reports a usage error as its usage
	[ "$what" = synth ] && arg= pre="weft synth: " post="
Try 'weft synth --help'."
	# shellcheck disable=SC2086
	run "$what -o ''" 2 "${pre}an empty name names no file$post" $c -o '' $arg
	# shellcheck disable=SC2086
	run "$what -o /" 2 "${pre}/: names a directory, not a new file$post" $c -o / $arg
	# shellcheck disable=SC2086
	run "$what -o ." 2 "${pre}.: names a directory, not a new file$post" $c -o . $arg
	# shellcheck disable=SC2086
	run "$what -o x/" 2 "${pre}x/: names a directory, not a new file$post" $c -o x/ $arg
	# shellcheck disable=SC2086
	run "$what -o a directory" 2 "${pre}tr: is a directory; -o names the file to write$post" $c -o tr $arg
	# shellcheck disable=SC2086
	run "$what -o in no directory" 2 "${pre}no/such/f: no/such is no directory to write it in$post" \
		$c -o no/such/f $arg
done
run "synth -o ''" 2 "weft: error: an empty name names no directory" synth -n 20 -o ''
run "synth -o ." 2 "weft: error: .: names a directory, not a new directory" synth -n 20 -o .
run "import -o ''" 2 "weft: error: an empty name names no directory" import picl log.trf -o ''
run "import -o /" 2 "weft: error: /: names a directory, not a new directory" import picl log.trf -o /
run "import -o in no directory" 2 "weft: error: no/such/d: no/such is no directory to write it in" \
	import picl log.trf -o no/such/d
nothing_new "unusable names"

# ---- what the system refuses: 1, and what to do ------------------------------------

# run_as_other ARGS...: weft as an ordinary user (nobody) when this is root
other=
if [ "$(id -u)" != 0 ]; then
	other=self
elif command -v setpriv >/dev/null 2>&1 && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	other=nobody
fi
if [ -z "$other" ]; then
	skip "permission denied" "root without setpriv: no user to be refused"
else
	chmod 755 "$tmp"
	mkdir shut && cp -r tr shut/tr && cp -r ptr shut/ptr && cp log.trf shut/ && chmod -R a+rX shut &&
		chmod 555 shut shut/tr shut/ptr
	as_other() {
		if [ "$other" = nobody ]; then
			setpriv --reuid=65534 --regid=65534 --clear-groups "$WEFT" "$@"
		else
			"$WEFT" "$@"
		fi
	}
	H="Permission denied (use -o to write elsewhere)"
	as_other emu -q shut/tr >/dev/null 2>err.txt
	expect "emu into a trace folder one cannot write" "$?:$(cat err.txt)" \
		"1:weft: error: shut/tr/.weft: cannot create weft's folder of outputs: $H"
	as_other emu -q -o shut/o shut/tr >/dev/null 2>err.txt
	expect "emu -o in a folder one cannot write" "$?:$(cat err.txt)" \
		"1:weft: error: shut/o: cannot create directory: $H"
	# (a trace with messages: weft sync writes nothing for one without)
	as_other sync shut/ptr >/dev/null 2>err.txt
	expect "sync into a trace folder one cannot write" "$?:$(cat err.txt)" \
		"1:weft: error: shut/ptr/clock.json: cannot create: $H"
	as_other synth -n 20 -o shut/s >/dev/null 2>err.txt
	expect "synth into a folder one cannot write" "$?:$(cat err.txt)" "1:weft: error: shut/s: cannot create: $H"
	as_other import picl shut/log.trf -o shut/i >/dev/null 2>err.txt
	expect "import into a folder one cannot write" "$?:$(cat err.txt)" "1:weft: error: shut/i: cannot create: $H"
	ouid=65534
	[ "$other" = self ] && ouid=$(id -u)
	TMPDIR=$tmp/shut as_other emu -q -o "$tmp/p2" shut/log.trf >/dev/null 2>err.txt
	expect "a TMPDIR one cannot write" "$?:$(cat err.txt)" \
		"1:weft: error: $tmp/shut/weft-$ouid: cannot create weft's temporary folder: Permission denied (set TMPDIR to a folder you can write)"
	chmod 700 "$tmp"
fi

MNT=$tmp/mnt
mkdir "$MNT"
if mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
	"$WEFT" emu -q -o "$MNT/o" tr && cp -r tr "$MNT/tr" && mount -o remount,ro "$MNT" ||
		fail "read-only mount" "cannot set it up"
	H="Read-only file system (use -o to write elsewhere)"
	run "emu into a read-only file system" 1 "weft: error: $MNT/o/.weft/lock: cannot create: $H" \
		emu -q -o "$MNT/o" tr
	run "emu into a read-only trace folder" 1 \
		"weft: error: $MNT/tr/.weft: cannot create weft's folder of outputs: $H" emu -q "$MNT/tr"
	run "plot into a read-only file system" 1 "weft: error: $MNT/o/thread.svg: cannot create: $H" \
		plot -q "$MNT/o/thread.prv"
	umount "$MNT"
else
	skip "read-only file system" "cannot mount a tmpfs here (needs root)"
fi
MNT=

# too few descriptors: every limit ends in 0 or 1, never a crash or an
# internal error; a refused output says what to do; nothing is left
WHY= seen=
for n in 8 10 12 14 16 18 20 24; do
	rm -rf fd
	(ulimit -n $n && exec "$WEFT" emu -q -o fd tr) >/dev/null 2>err.txt
	rc=$?
	case $rc in
	0) ;;
	1)
		grep -q 'Too many open files' err.txt && seen=1
		grep -q '^weft: error: fd/.*Too many open files' err.txt && ! grep -q 'ulimit -n' err.txt &&
			WHY="$WHY -n $n: no hint: $(cat err.txt);"
		[ -e fd ] && WHY="$WHY -n $n: left fd/: $(ls -A fd | tr '\n' ' ');"
		;;
	*) WHY="$WHY -n $n: exit $rc $(head -c 200 err.txt);" ;;
	esac
done
[ -n "$seen" ] || WHY="$WHY no limit was too low;"
result "too many open files: 0 or 1, nothing left" "$WHY"

# ---- what failed or killed runs leave ------------------------------------------------

# a run that fails at the end (a window past the trace) made a/b/c: all go
rm -rf fd
base=$(ls -A | tr '\n' ' ')
run "a failed run" 1 "weft: error: tr: --from 9000000000 ns is past the end of the trace (302127 ns)" \
	emu -q --from 9000000000 -o a/b/c tr
nothing_new "a failed run into a/b/c"

# check --views on a folder without views: 1, named (under ASan, no leak)
mkdir nocfg
run "check --views without cfg/" 1 "weft: error: nocfg/cfg: cannot open the views folder" check --views nocfg
rmdir nocfg

# out of memory: whatever the limit, nothing left (an AddressSanitizer
# build reserves more address space than any limit leaves)
if ldd "$WEFT" 2>/dev/null | grep -q asan; then
	skip "out of memory" "an AddressSanitizer build cannot run under ulimit -v"
else
	mkdir -p T
	WHY= failed=
	for kb in 100000 60000 40000 30000 25000 20000 17000 15000 13000 12000 11000 10000; do
		rm -rf m
		(ulimit -v $kb && TMPDIR=$tmp/T exec "$WEFT" emu -q -j 1 -o m/n log.trf) >/dev/null 2>err.txt
		rc=$?
		# 0: enough; 127: too little for the loader, nothing ran
		[ $rc -eq 0 ] || [ $rc -eq 127 ] && continue
		failed=1
		[ $rc -ge 128 ] && WHY="$WHY -v $kb: killed by signal $((rc - 128));"
		[ -e m ] && WHY="$WHY -v $kb: left m/: $(find m | tr '\n' ' ');"
		[ -z "$(ls -A T/* 2>/dev/null)" ] || WHY="$WHY -v $kb: left in TMPDIR: $(ls -A T/*);"
	done
	[ -n "$failed" ] || WHY="$WHY no limit was too low;"
	result "out of memory: nothing left" "$WHY"
fi

# killed at the rename of its temporary: the next run of the same output
# takes it away
if command -v strace >/dev/null 2>&1 && strace -qq -o /dev/null -e trace=none true 2>/dev/null; then
	# (LeakSanitizer cannot work under ptrace: make check-asan)
	for c in "synth -n 20 -o ks" "synth --format picl --procs 2 -n 20 -o kp.trf" "plot -q -o k.svg $P" \
		"sync -o k.json ptr"; do
		# shellcheck disable=SC2086
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -qq -o /dev/null -e trace=rename \
			-e inject=rename:signal=SIGKILL:when=1 "$WEFT" $c >/dev/null 2>&1
		rc=$?
		left=$(ls -A | grep -c 'tmp-')
		# shellcheck disable=SC2086
		"$WEFT" $c >/dev/null 2>err.txt
		expect "killed ${c%% -*}: it left a temporary, the next run takes it" \
			"$rc:$left:$?:$(ls -A | grep -c 'tmp-')" "137:1:0:0"
	done
else
	skip "killed runs' temporaries" "no strace that can trace here"
fi

finish
