#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The commit of weft emu's outputs (doc/dev/outputs.md) under faults: a run
# killed at every rename, link, symlink, unlink, mkdir and rmdir it makes
# (strace -e inject=SYSCALL:signal=SIGKILL:when=N, each call in turn) leaves
# the output folder showing the whole previous output or the whole new one,
# byte for byte; the next run then shows the whole new one and leaves
# nothing behind. The previous output is weft's (links into DIR/.weft), an
# older weft's or ovniemu's (plain files), or none. A run holding the lock
# makes a second one exit 1 naming its PID; runs started together into one
# folder never mix their files.
#
#   WEFT=/abs/path/to/weft sh test/malformed/commit.sh
#   COMMIT_KILLS=all|sample  kill at every call (the default), or at every
#   COMMIT_STRIDE-th (5) of each kind, its first and last always, in turn
#   from another one per previous output (make check's ASan flavour,
#   FLAVOUR=asan: the -Werror flavour, the same code, kills at every call;
#   the sample only looks for what the sanitizers see, at a fifth of the
#   cost)
#
# Needs strace (make deps installs it) and ptrace; skipped, with a message,
# without them. Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why", then
# "N passed, M failed".

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
cd "$tmp" || exit 2
# LeakSanitizer cannot work under ptrace (make check-asan): off for the
# runs strace traces
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
export ASAN_OPTIONS

"$WEFT" synth -o tA --looms 1 --procs 1 --threads 2 --cpus 2 -n 400 --seed 1 --models nosv >/dev/null &&
	"$WEFT" synth -o tB --looms 1 --procs 1 --threads 2 --cpus 2 -n 400 --seed 2 >/dev/null ||
	{ echo "commit.sh: weft synth failed" >&2; exit 2; }
# A: nosv views and a breakdown trace; B: none of those, compressed traces:
# from A to B names go and come as well as change
"$WEFT" emu -q -b -o refA tA && "$WEFT" emu -q -z -o refB tB || { echo "commit.sh: weft emu failed" >&2; exit 2; }

# shows DIR: what DIR shows, "NAME CKSUM SIZE" a line (a link that does not
# open shows nothing)
shows() {
	[ -d "$1" ] || return 0
	(cd "$1" && shown_files . | xargs -r cksum 2>/dev/null)
}
shows refA >A.txt
shows refB >B.txt
[ "$(wc -l <A.txt)" -gt "$(wc -l <B.txt)" ] && grep -q breakdown A.txt && grep -q 'thread.prv.gz' B.txt ||
	{ echo "commit.sh: the references are not what this test needs" >&2; exit 2; }

# dangling DIR: weft's links that do not open, outside DIR/.weft
dangling() {
	[ -d "$1" ] || return 0
	(cd "$1" && find . -path ./.weft -prune -o -type l ! -exec test -e {} \; -print | tr '\n' ' ')
}

# setup KIND: the output folder D before the run into it
setup() {
	rm -rf D
	case $1 in
	links) cp -a refA D ;;            # weft's previous output
	plain) cp -rL refA D && rm -rf D/.weft ;; # plain files, as an older weft or ovniemu left them
	none) ;;
	esac
}

# what the previous output shows, per KIND
before() {
	case $1 in none) : >before.txt ;; *) cp A.txt before.txt ;; esac
}

if ! command -v strace >/dev/null 2>&1; then
	skip "commit kills" "strace is missing (make deps installs it)"
elif ! strace -qq -o /dev/null -e trace=none true 2>/dev/null; then
	skip "commit kills" "strace cannot trace here (ptrace refused)"
else
	KILLS=${COMMIT_KILLS:-$([ "${FLAVOUR:-}" = asan ] && echo sample || echo all)}
	STRIDE=${COMMIT_STRIDE:-5}
	case $KILLS in all) STRIDE=1 ;; sample) ;; *)
		echo "commit.sh: COMMIT_KILLS=$KILLS: expected all or sample" >&2
		exit 2
		;;
	esac
	off=0
	calls="rename renameat renameat2 link linkat symlink symlinkat unlink unlinkat mkdir mkdirat rmdir"
	for kind in links plain none; do
		before $kind
		setup $kind
		# the calls of a whole run (the main thread: it alone commits)
		strace -qq -o calls.log -e trace="$(echo $calls | tr ' ' ,)" "$WEFT" emu -q -z -o D tB 2>err.txt ||
			fail "$kind: the counting run" "$(head -c 300 err.txt)"
		nkill=0 nbad=0 WHY= last=
		for c in $calls; do
			n=$(grep -c "^$c(" calls.log)
			i=1
			while [ "$i" -le "$n" ]; do
				# the sample: the first, the last, each STRIDE-th
				if [ "$i" -ne 1 ] && [ "$i" -ne "$n" ] && [ $(((i + off) % STRIDE)) -ne 0 ]; then
					i=$((i + 1))
					continue
				fi
				setup $kind
				strace -qq -o /dev/null -e trace="$c" -e inject="$c":signal=SIGKILL:when=$i \
					"$WEFT" emu -q -z -o D tB >/dev/null 2>&1
				rc=$?
				[ $rc -eq 137 ] || WHY="$WHY $c#$i: exit $rc, not killed;"
				shows D >got.txt
				cmp -s got.txt before.txt || cmp -s got.txt B.txt ||
					WHY="$WHY $c#$i: a mix ($(diff before.txt got.txt | grep -c '^[<>]') lines off the previous);"
				"$WEFT" emu -q -z -o D tB >/dev/null 2>err.txt || WHY="$WHY $c#$i: the next run: $(head -c 200 err.txt);"
				shows D >got.txt
				cmp -s got.txt B.txt || WHY="$WHY $c#$i: the next run does not show the new output;"
				[ -z "$(leftovers D)" ] || WHY="$WHY $c#$i: left $(leftovers D);"
				[ -z "$(dangling D)" ] || WHY="$WHY $c#$i: dangling $(dangling D);"
				# the first few reasons, then how many runs went wrong
				case $WHY in *";"*";"*";"*";"*";"*) WHY=$(echo "$WHY" | cut -d';' -f1-5)";" ;; esac
				[ "$WHY" = "$last" ] || nbad=$((nbad + 1))
				last=$WHY
				nkill=$((nkill + 1))
				i=$((i + 1))
			done
		done
		off=$((off + 1))
		[ "$nkill" -gt $((10 / STRIDE)) ] || WHY="$WHY only $nkill calls to kill at;"
		[ -z "$WHY" ] || WHY="$nbad of $nkill killed runs wrong, first:$WHY"
		if [ "$KILLS" = all ]; then
			result "commit kills from $kind: $nkill runs killed, each call in turn" "$WHY"
		else
			result "commit kills from $kind: $nkill runs killed, a sample (1 call in $STRIDE)" "$WHY"
		fi
	done

	# a run stopped while it holds the lock (at the switch): another is
	# refused, told who; the first then ends whole
	rm -rf L
	strace -qq -o /dev/null -e trace=renameat -e inject=renameat:signal=SIGSTOP:when=1 \
		"$WEFT" emu -q -b -o L tA >/dev/null 2>&1 &
	st=$!
	# under strace every syscall is a short tracing stop ('t' too): the
	# SIGSTOP is the stop that lasts, ten samples in a row over a second
	pid= i=0 still=0
	while [ $i -lt 3000 ] && [ $still -lt 10 ]; do
		pid=$(pgrep -P $st)
		case $(cut -d' ' -f3 "/proc/$pid/stat" 2>/dev/null) in
		T | t) still=$((still + 1)) ;;
		*) still=0 ;;
		esac
		sleep 0.1
		i=$((i + 1))
	done
	"$WEFT" emu -q -o L tB >/dev/null 2>err.txt
	rc=$?
	# a SIGCONT that comes while strace still delivers the SIGSTOP is lost:
	# again until the run is over
	while [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null; do
		sleep 0.1
	done
	wait $st
	expect "lock: a second run is refused, told who holds it" "$rc:$(cat err.txt)" \
		"1:weft: error: L: another weft run (PID $pid) is writing its outputs here: wait for it to end, or use -o to write elsewhere"
	shows L >got.txt
	result "lock: the holder ends whole" "$(cmp -s got.txt A.txt || echo "L does not show A")"
fi

# runs started together into one folder: each ends whole or is refused,
# and the folder shows one run's whole output, never a mix
WHY=
for round in 1 2 3 4 5 6 7 8; do
	rm -rf C
	"$WEFT" emu -q -b -o C tA >/dev/null 2>c1.txt &
	p1=$!
	"$WEFT" emu -q -z -o C tB >/dev/null 2>c2.txt &
	p2=$!
	wait $p1
	r1=$?
	wait $p2
	r2=$?
	for k in 1 2; do
		eval "r=\$r$k"
		[ "$r" -eq 0 ] || grep -q '^weft: error: C: another weft run (PID [0-9]*) is writing its outputs here' c$k.txt ||
			WHY="$WHY round $round run $k: exit $r $(head -c 200 c$k.txt);"
	done
	[ "$r1" -eq 0 ] || [ "$r2" -eq 0 ] || WHY="$WHY round $round: neither ended;"
	shows C >got.txt
	cmp -s got.txt A.txt || cmp -s got.txt B.txt || WHY="$WHY round $round: a mix;"
	[ -z "$(leftovers C)" ] || WHY="$WHY round $round: left $(leftovers C);"
done
result "two runs at once into one folder never mix" "$WHY"

finish
