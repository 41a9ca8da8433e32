#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Inputs that are not regular files (a FIFO with no writer, a directory)
# must be refused at once with a precise error, never block: weft opens
# every input without waiting and checks its type before reading. Each run
# has 300 s of wall clock (timeout(1)): a run still there then is blocked,
# not slow, however loaded the machine (each takes milliseconds); 30 s of
# CPU catch one that computes without end.
#
#   WEFT=/abs/path/to/weft sh test/malformed/fifo.sh
#
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
if ! command -v mkfifo >/dev/null 2>&1 || ! command -v timeout >/dev/null 2>&1; then
	echo "fifo.sh: needs mkfifo and timeout (coreutils)" >&2
	exit 2
fi

# limited ARGS...: weft ARGS under the limits above
limited() {
	timeout 300 sh -c 'ulimit -t 30 && exec "$@"' sh "$WEFT" "$@"
}

# refuses NAME CODE WANT ARGS...: `weft ARGS` exits CODE within the limits
# and its stderr has the line "weft: error: WANT".
refuses() {
	_name=$1 _code=$2 _want=$3
	shift 3
	limited "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
	_rc=$?
	if [ $_rc -eq 124 ]; then
		fail "$_name" "weft blocked (killed after 300 s)"
	elif [ $_rc -eq 152 ]; then
		fail "$_name" "weft computed over 30 s of CPU"
	elif [ $_rc -ne "$_code" ]; then
		fail "$_name" "exit $_rc, expected $_code: $(head -c 300 "$tmp/err")"
	elif ! grep -F -q -x -e "weft: error: $_want" "$tmp/err"; then
		fail "$_name" "stderr lacks \"weft: error: $_want\", found \"$(head -c 300 "$tmp/err")\""
	else
		pass "$_name"
	fi
}

# A valid one-thread trace: loom a, process 1, thread 1 on CPU 0.
T=$tmp/trace
S=$T/loom.a/proc.1/thread.1
mkdir -p "$S"
printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread",' >"$S/stream.json"
printf '"tid":1,"pid":1,"loom":"a","app_id":1,"loom_cpus":[{"index":0,"phyid":0}],' >>"$S/stream.json"
printf '"finished":1,"require":{"ovni":"1.1.0"}}}\n' >>"$S/stream.json"
# ovni, version 1; OHx at 100 on CPU 0 (created by -1, tag 0); OHe at 200
printf 'ovni\001\000\000\000\017OHxd\000\000\000\000\000\000\000\000\000\000\000\377\377\377\377' >"$S/stream.obs"
printf '\000\000\000\000\000\000\000\000\000OHe\310\000\000\000\000\000\000\000' >>"$S/stream.obs"
if limited emu -q -o "$tmp/good" "$T" >"$tmp/out" 2>"$tmp/err"; then
	pass "the trace is valid"
else
	fail "the trace is valid" "$(head -c 300 "$tmp/err")"
fi

fifo=$tmp/fifo
mkfifo "$fifo"
kind="a FIFO (named pipe), not a regular file"

# ---- ovni traces ---------------------------------------------------------------------
mv "$S/stream.obs" "$tmp/stream.obs"
mkfifo "$S/stream.obs"
for cmd in top dump; do
	refuses "stream.obs is a FIFO: $cmd" 1 "$S/stream.obs: $kind" "$cmd" "$T"
done
refuses "stream.obs is a FIFO: emu" 1 "$S/stream.obs: $kind" emu -o "$tmp/o1" "$T"
rm "$S/stream.obs"
mv "$tmp/stream.obs" "$S/stream.obs"

mv "$S/stream.json" "$tmp/stream.json"
mkfifo "$S/stream.json"
refuses "stream.json is a FIFO" 1 "$S/stream.json: $kind" top "$T"
rm "$S/stream.json"
mv "$tmp/stream.json" "$S/stream.json"

mkfifo "$T/clock-offsets.txt"
refuses "TRACE/clock-offsets.txt is a FIFO" 1 "$T/clock-offsets.txt: $kind" emu -o "$tmp/o2" "$T"
rm "$T/clock-offsets.txt"

# ---- clock files -----------------------------------------------------------------------
refuses "emu -c FIFO" 1 "$fifo: $kind" emu -c "$fifo" -o "$tmp/o3" "$T"
refuses "dump -c FIFO" 1 "$fifo: $kind" dump -c "$fifo" "$T"
refuses "emu -c DIRECTORY" 1 "$tmp: a directory, not a regular file" emu -c "$tmp" -o "$tmp/o4" "$T"

# ---- weft check --------------------------------------------------------------------------
cp "$tmp/good/thread.prv" "$tmp/good/thread.pcf" "$tmp/good/thread.row" "$tmp/"
mkfifo "$tmp/p.prv" "$tmp/pz.prv.gz"
refuses "check: the .prv is a FIFO" 1 "$tmp/p.prv: $kind" check "$tmp/p.prv"
refuses "check: the .prv.gz is a FIFO" 1 "$tmp/pz.prv.gz: $kind" check "$tmp/pz.prv.gz"
mv "$tmp/thread.pcf" "$tmp/thread.pcf.real"
mkfifo "$tmp/thread.pcf"
refuses "check: the .pcf is a FIFO" 1 \
	"$tmp/thread.pcf: $kind (the reader falls back to default labels; expected one beside the .prv)" \
	check "$tmp/thread.prv"
rm "$tmp/thread.pcf"
mv "$tmp/thread.pcf.real" "$tmp/thread.pcf"

# ---- legacy logs -----------------------------------------------------------------------------
refuses "import picl FIFO" 1 "$fifo: $kind" import picl "$fifo" -o "$tmp/o5"
if "$WEFT" synth --format charisma -o "$tmp/c.bin" --size 20k >/dev/null 2>"$tmp/err"; then
	mkfifo "$tmp/profile1"
	cd "$tmp" || exit 2
	refuses "--charisma-profile NAME that is a FIFO" 1 "profile1: $kind" \
		emu --charisma-profile profile1 -o "$tmp/o6" "$tmp/c.bin"
	cd "$top" || exit 2
else
	fail "synth charisma" "$(head -c 300 "$tmp/err")"
fi

finish
