#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the tracer driver: weft serve, weft attach and
# contrib/python/weft_driver.py.
#
#   WEFT=/abs/path/to/weft sh test/e2e/driver.sh
#
# - the socket: created in a private folder (made 0700 when missing, else
#   required so), mode 0600, removed at the end with the folder it made; a
#   folder others can enter, a file in the way and a live server are
#   refused (exit 2) and left as they are; a stale socket is replaced;
# - weft attach: the toplevel session of query.sh's -i test over the
#   socket, line for line; a standard output that refuses its writes (a
#   full disk) is an error (exit 1);
# - driver_test.py (Python: /usr/bin/python3, else python3): three
#   analysers at once (asynchronous counting, synchronous on a rare event
#   asking current at each stop, one adding and removing patterns at its
#   stops and while the replay runs) each get exactly what weft query
#   prints with their patterns; the protocol's replies byte for byte; a
#   killed analyser, one that never reads, one that leaves at its stop and
#   1,000 malformed requests (some naming a FIFO, which reading would
#   hang) leave the server and the others working; --plain;
# - contrib/python/task_histogram.py on a nOS-V trace.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fail_show=$tmp/err
LC_ALL=C
export LC_ALL
: > "$tmp/err"

if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=$(command -v python3)
fi

# wait_for PATH: until it exists (a server's socket), at most 300 s (a
# sanitized server on a busy machine starts in seconds, not minutes)
wait_for() {
	_n=0
	while [ ! -e "$1" ] && [ $_n -lt 3000 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
}

# reap PID: its exit status once it ends; one still running after 600 s
# (a hang) is killed, and its status is then 137
reap() {
	_n=0
	while kill -0 "$1" 2> /dev/null && [ $_n -lt 6000 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	kill -0 "$1" 2> /dev/null && kill -KILL "$1"
	wait "$1"
}

# tmo CMD...: CMD, killed after 300 s (a hang fails the test, never holds it)
tmo() {
	if command -v timeout > /dev/null 2>&1; then
		timeout 300 "$@"
	else
		"$@"
	fi
}

small=$corpus/ovni/o-small/trace

# ---- the socket --------------------------------------------------------------------

"$WEFT" serve --socket "$tmp/new/s" "$small" 2> "$tmp/err" &
pid=$!
wait_for "$tmp/new/s"
dmode=$(stat -c %a "$tmp/new")
smode=$(stat -c %a "$tmp/new/s")
stype=$(stat -c %F "$tmp/new/s")
printf 'go\n' | tmo "$WEFT" attach "$tmp/new/s" > /dev/null 2>> "$tmp/err"
reap $pid
rc=$?
[ $rc = 0 ] && [ "$dmode" = 700 ] && [ "$smode" = 600 ] && [ "$stype" = socket ] && [ ! -e "$tmp/new" ] &&
	pass "the socket: its missing folder made 0700, the socket 0600, both gone at the end" ||
	fail "socket modes" "exit $rc, folder $dmode, socket $smode ($stype), left: $(ls -d "$tmp/new" 2>&1)"

mkdir -m 755 "$tmp/open"
"$WEFT" serve --socket "$tmp/open/s" "$small" > /dev/null 2> "$tmp/msg"
rc=$?
[ $rc = 2 ] && grep -q "the socket's folder must be private (yours, mode 0700" "$tmp/msg" && [ ! -e "$tmp/open/s" ] &&
	pass "a folder others can enter is refused (exit 2)" || fail "open folder" "exit $rc: $(cat "$tmp/msg")"

mkdir -m 700 "$tmp/priv"
echo keep > "$tmp/priv/file"
"$WEFT" serve --socket "$tmp/priv/file" "$small" > /dev/null 2> "$tmp/msg"
rc=$?
[ $rc = 2 ] && grep -q "exists and is not a socket" "$tmp/msg" && [ "$(cat "$tmp/priv/file")" = keep ] &&
	pass "a file where the socket goes is refused and left alone" || fail "file in the way" "exit $rc: $(cat "$tmp/msg")"

"$WEFT" serve --socket "$tmp/priv/s" "$small" 2> "$tmp/err" &
pid=$!
wait_for "$tmp/priv/s"
"$WEFT" serve --socket "$tmp/priv/s" "$small" > /dev/null 2> "$tmp/msg"
rc=$?
[ $rc = 2 ] && grep -q "another server is listening there" "$tmp/msg" &&
	pass "a live server's socket is not taken over" || fail "live server" "exit $rc: $(cat "$tmp/msg")"
kill -KILL $pid
wait $pid 2> /dev/null
# its socket is left behind, stale: the next server replaces it
"$WEFT" serve --socket "$tmp/priv/s" "$small" 2> "$tmp/err" &
pid=$!
n=0
while ! printf 'go\n' | tmo "$WEFT" attach "$tmp/priv/s" > "$tmp/out" 2> /dev/null && [ $n -lt 3000 ]; do
	sleep 0.1
	n=$((n + 1))
done
reap $pid
rc=$?
[ $rc = 0 ] && grep -q '^end of trace after 4858 events$' "$tmp/out" &&
	pass "a stale socket (its server killed) is replaced" || fail "stale socket" "exit $rc: $(cat "$tmp/out")"

"$WEFT" serve "$small" > /dev/null 2> "$tmp/msg"
[ $? = 2 ] && grep -q "expected --socket PATH" "$tmp/msg" && pass "serve without --socket: usage error" ||
	fail "no --socket" "$(cat "$tmp/msg")"
"$WEFT" attach "$tmp/priv/none" > /dev/null 2> "$tmp/msg"
[ $? = 1 ] && grep -q "cannot connect" "$tmp/msg" && pass "attach to no server: exit 1, says so" ||
	fail "attach nothing" "$(cat "$tmp/msg")"

# a standard output that refuses the session's answers (a full disk): said, exit 1
"$WEFT" serve --socket "$tmp/priv/full" "$small" 2> "$tmp/err" &
pid=$!
wait_for "$tmp/priv/full"
printf 'go\n' | tmo "$WEFT" attach "$tmp/priv/full" > /dev/full 2> "$tmp/msg"
rc=$?
reap $pid
[ $rc = 1 ] && grep -q "^weft: error: standard output: write failed: No space left on device" "$tmp/msg" &&
	pass "attach with stdout on a full disk: exit 1, says so" || fail "attach to /dev/full" "exit $rc: $(cat "$tmp/msg")"

# ---- weft attach: query.sh's -i session over the socket ---------------------------

cat > "$tmp/cmds" <<'EOF'
current
add d: when mcv = "OHe" do current(tid), stop
add c: when mcv = "OHp" and loom = node00 do count
list
step
step
current(time, state.ovni, cpu)
go
current(tid, state.ovni)
remove d
remove d
bogus
add x: when foo = 1 do count
add s: when mcv = "OHe" and tid = 200001 do_synchro current(tid), call(ended)
go
summary
reset
list
go
EOF
"$WEFT" serve --socket "$tmp/at/s" "$small" 2> "$tmp/err" &
pid=$!
wait_for "$tmp/at/s"
tmo "$WEFT" attach "$tmp/at/s" < "$tmp/cmds" > "$tmp/session" 2>> "$tmp/err"
rc=$?
reap $pid
src=$?
cat > "$tmp/want" <<'EOF'
error: current: no event yet (the replay has not begun)
added d
added c
d: when mcv = "OHe" do current(tid), stop
c: when mcv = "OHp" and loom = node00 do count
step: chrono=0 time=0 mcv=OHx loom=node00 pid=100000 tid=100000 desc="starts running on cpu 0 (created by thread -1, tag 0)"
step: chrono=1 time=0 mcv=OHx loom=node01 pid=200000 tid=200000 desc="starts running on cpu 0 (created by thread -1, tag 0)"
current: time=0 state.ovni=Unknown cpu=-
d: tid=101000
stop: chrono=4428 time=627029 mcv=OHe loom=node00 pid=101000 tid=101000 desc=ends
current: tid=101000 state.ovni=Running
removed d
error: remove: you have no pattern labelled "d"
error: unknown command "bogus" (help lists the commands)
error: add, column 9: unknown attribute "foo" (expected mcv, model, cat, val, model_name, time, clock, chrono, loom, pid, tid, rank, app, cpu, stream, desc, state.<model> or a payload field of an event table: see weft models)
added s
s: calls=ended tid=200001
stop: chrono=4774 time=683116 mcv=OHe loom=node01 pid=200000 tid=200001 desc=ends
c: count 60
reset: removed 2 patterns
no patterns
end of trace after 4858 events
EOF
if [ $rc = 0 ] && [ $src = 0 ] && cmp -s "$tmp/want" "$tmp/session"; then
	pass "attach: add, list, step, current, go to a stop, remove, do_synchro with call, summary, reset, the end"
else
	fail "attach session" "exit $rc/$src: $(diff "$tmp/want" "$tmp/session" | head -6 | tr '\n' '|')"
fi
# the same stops as weft query -i (the toplevel over a pipe)
shown() { grep -E '^(step|stop|current|d|s): |^added |^removed '; }
shown < "$tmp/want" > "$tmp/w1"
tmo "$WEFT" query -i "$small" < "$tmp/cmds" 2>> "$tmp/err" | shown > "$tmp/w2"
cmp -s "$tmp/w1" "$tmp/w2" && pass "attach shows what weft query -i shows" ||
	fail "attach vs -i" "$(diff "$tmp/w1" "$tmp/w2" | head -4 | tr '\n' '|')"

# quitting at a stop lets the replay go on (a disconnect counts as go)
"$WEFT" serve --socket "$tmp/q/s" --wait 2 "$small" 2> "$tmp/err" &
pid=$!
wait_for "$tmp/q/s"
printf '%s\n' 'add h: when mcv = "OHe" do_synchro current(tid)' go quit |
	"$WEFT" attach "$tmp/q/s" > "$tmp/out1" 2>> "$tmp/err" &
apid=$!
printf '%s\n' 'add n: when mcv = "OHe" do count' go | tmo "$WEFT" attach "$tmp/q/s" > "$tmp/out2" 2>> "$tmp/err"
reap $apid
reap $pid
rc=$?
[ $rc = 0 ] && grep -q '^stop:' "$tmp/out1" && grep -q '^n: count 8$' "$tmp/out2" &&
	pass "attach quitting at its stop counts as go: the other analyser sees the end" ||
	fail "quit at a stop" "exit $rc: $(cat "$tmp/out1" "$tmp/out2" | tr '\n' '|')"

# ---- the Python module ---------------------------------------------------------------

if [ -z "$PY" ]; then
	fail "python3" "no /usr/bin/python3 and no python3 on PATH: the Python module is not tested"
	finish
fi
mkdir "$tmp/py"
"$WEFT" synth -o "$tmp/trace" --events 300k --seed 3 > /dev/null 2> "$tmp/err" || fail "synth" "weft synth failed"
tmo "$PY" "$here/driver_test.py" "$WEFT" "$top" "$tmp/py" "$tmp/trace" > "$tmp/py.out" 2> "$tmp/py.err"
prc=$?
while IFS= read -r line; do
	case $line in
	"ok "*) pass "${line#ok }" ;;
	"FAIL "*)
		rest=${line#FAIL }
		fail "${rest%%: *}" "${rest#*: }"
		;;
	esac
done < "$tmp/py.out"
[ $prc = 0 ] && [ "$(grep -c '^ok ' "$tmp/py.out")" -ge 50 ] && pass "driver_test.py ran all its checks" ||
	fail "driver_test.py" "exit $prc, $(grep -c '^ok ' "$tmp/py.out") checks passed: $(tail -n 3 "$tmp/py.err" | tr '\n' '|')"

# the example analyser: every task body of a nOS-V trace, timed
"$WEFT" synth -o "$tmp/nosv" --events 100k --models nosv --seed 1 > /dev/null 2> "$tmp/err"
want=$("$WEFT" query "$tmp/nosv" 'e: when mcv = "VTe" do count' | awk '{ print $3 }')
for mode in "" --sync; do
	"$WEFT" serve --socket "$tmp/h/s" "$tmp/nosv" 2> "$tmp/err" &
	pid=$!
	wait_for "$tmp/h/s"
	tmo "$PY" "$top/contrib/python/task_histogram.py" "$tmp/h/s" --every 500 $mode > "$tmp/hist" 2> "$tmp/hist.err"
	hrc=$?
	reap $pid
	got=$(awk '/^task bodies:/ { sub(",", "", $3); print $3 }' "$tmp/hist")
	sum=$(awk '/ ns / { s += $3 } END { print s + 0 }' "$tmp/hist")
	redraws=$(grep -c '^after ' "$tmp/hist.err")
	[ $hrc = 0 ] && [ -n "$want" ] && [ "$got" = "$want" ] && [ "$sum" = "$want" ] && [ "$redraws" -gt 1 ] &&
		pass "task_histogram.py ${mode:-(asynchronous)}: $got bodies binned, $redraws redraws" ||
		fail "task_histogram.py $mode" "exit $hrc: $got and $sum bodies, weft query $want; $redraws redraws $(head -c 300 "$tmp/hist.err")"
done

finish
