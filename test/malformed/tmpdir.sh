#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft's temporaries in $TMPDIR (doc/dev/outputs.md): a log's conversion
# lives in the private folder $TMPDIR/weft-UID, the sweep of what killed
# runs left there never follows a link, and the folder is refused when it
# is not private. The attacker (racer.c) plants a killed run's conversion
# whose subfolder it keeps swapping with a link to a folder outside, while
# weft sweeps: nothing outside may go.
#
#   WEFT=/abs/path/to/weft sh test/malformed/tmpdir.sh
#
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
# a read-only mount still there when the script ends (a failed case) goes first
trap 'umount "$tmp/ro" 2>/dev/null; lib_cleanup' EXIT
cd "$tmp" || exit 2
cc=${CC:-cc}
if ! $cc -std=c11 -O1 -o racer "$here/racer.c" 2>err.txt; then
	fail "racer" "cannot compile $here/racer.c with $cc: $(head -c 200 err.txt)"
	finish
fi
"$WEFT" synth --format picl -o log.trf --procs 2 -n 50 --seed 1 >/dev/null 2>&1 ||
	{ echo "tmpdir.sh: weft synth failed" >&2; exit 2; }
dead=$(sh -c 'echo $$') # a PID no process has any more
u=weft-$(id -u)
T=$tmp/t
mkdir -p "$T/$u" outside
chmod 700 "$T/$u"
i=0
while [ $i -lt 200 ]; do
	: >outside/f$i
	i=$((i + 1))
done

# plant DIR: a killed run's conversion in DIR whose "sub" holds files of
# the names of those outside, "sub.lnk" a link to outside; a racer swaps
# the two until told to stop (a sweep that removes DIR/sub/f1 by path
# while sub is the link removes outside/f1)
plant() {
	mkdir -p "$1/sub"
	(cd "$1/sub" && i=0 && while [ $i -lt 200 ]; do : >f$i && i=$((i + 1)); done)
	ln -s "$tmp/outside" "$1/sub.lnk"
	./racer "$1" sub stop &
}

WHY= kept=
for round in 1 2 3 4 5 6 7 8 9 10; do
	rm -f stop
	plant "$T/weft-import-$dead-a$round"    # where weft swept before its private folder
	plant "$T/$u/weft-import-$dead-b$round" # in it
	kept="${kept}weft-import-$dead-a$round "
	TMPDIR=$T "$WEFT" emu -q -o out.$round log.trf >/dev/null 2>err.txt || WHY="$WHY round $round: $(head -c 200 err.txt);"
	: >stop
	wait
	[ -e "$T/$u/weft-import-$dead-b$round" ] && WHY="$WHY round $round: the killed run's conversion stayed;"
done
n=$(ls outside | grep -c '^f[0-9]*$')
expect "racing a link swap: nothing outside the run's folders goes" "$n:$(ls outside | wc -l | tr -d ' ')${WHY:+ $WHY}" 200:200
expect "TMPDIR itself is left alone" "$(ls -A "$T" | LC_ALL=C sort | tr '\n' ' ')" \
	"$(printf '%s\n' $kept "$u" | LC_ALL=C sort | tr '\n' ' ')"
expect "the private folder: 0700, the run's conversion gone" \
	"$(stat -c %a "$T/$u"):$(ls -A "$T/$u" | tr '\n' ' ')" "700:"

# the folder refused when it is not private: exit 1, named, nothing made
chmod 755 "$T/$u"
TMPDIR=$T "$WEFT" emu -q -o r1 log.trf >/dev/null 2>err.txt
expect "a private folder others can reach: refused" "$?:$(cat err.txt):$(ls -d r1 2>/dev/null)" \
	"1:weft: error: $T/$u: other users can reach it (mode 0755): weft keeps its temporaries only in a folder no one else can (chmod 700 it, or set TMPDIR to a folder of your own):"
rm -rf "$T/$u"
ln -s "$tmp/outside" "$T/$u"
TMPDIR=$T "$WEFT" emu -q -o r2 log.trf >/dev/null 2>err.txt
expect "a link in the private folder's place: refused" "$?:$(cat err.txt):$(ls outside | wc -l | tr -d ' ')" \
	"1:weft: error: $T/$u: a symbolic link, not weft's private temporary folder (remove it, or set TMPDIR to a folder of your own):200"
rm -f "$T/$u"
if [ "$(id -u)" = 0 ]; then
	mkdir -m 700 "$T/$u" && chown 65534 "$T/$u"
	TMPDIR=$T "$WEFT" emu -q -o r3 log.trf >/dev/null 2>err.txt
	expect "someone else's private folder: refused" "$?:$(cat err.txt)" \
		"1:weft: error: $T/$u: owned by user 65534, not by you (0): weft keeps its temporaries only in a folder of yours (remove it, or set TMPDIR to a folder of your own)"
	rm -rf "$T/$u"
fi
# a TMPDIR that cannot be written: 1, with what to do
mkdir ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then
	# root writes anywhere: a read-only mount stands in, where one can be made
	if mount -t tmpfs -o ro,size=16k tmpfs ro 2>/dev/null; then
		TMPDIR=$tmp/ro "$WEFT" emu -q -o r4 log.trf >/dev/null 2>err.txt
		expect "a read-only TMPDIR: 1, named" "$?:$(cat err.txt)" \
			"1:weft: error: $tmp/ro/$u: cannot create weft's temporary folder: Read-only file system (set TMPDIR to a folder you can write)"
		umount ro
	else
		skip "a read-only TMPDIR" "cannot mount a tmpfs here"
	fi
else
	TMPDIR=$tmp/ro "$WEFT" emu -q -o r4 log.trf >/dev/null 2>err.txt
	expect "an unwritable TMPDIR: 1, named" "$?:$(cat err.txt)" \
		"1:weft: error: $tmp/ro/$u: cannot create weft's temporary folder: Permission denied (set TMPDIR to a folder you can write)"
fi

finish
