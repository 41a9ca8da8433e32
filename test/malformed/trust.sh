#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Trust under hostile and changing inputs (issue 24, the input side): an
# input that shrinks while weft reads it, text that would break a Paraver
# or SVG file, inputs that would hang weft or exhaust it, lenient JSON,
# limits of the system, traces of killed jobs (--salvage). Each case runs
# the weft binary and checks its exit status, its error text and that
# nothing was left behind.
#
#   WEFT=/abs/path/to/weft sh test/malformed/trust.sh
#
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why", then
# "N passed, M failed" (test/lib.sh). Needs a C compiler ($CC or cc) for
# shrink.c, the shim that truncates a file while weft reads it.

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
IO=$tmp/io
mkdir "$IO" || exit 2
cd "$tmp" || exit 2
fail_show=$IO/err

# run RC STDERR ARGS...: weft ARGS must exit RC with exactly STDERR (a
# trailing newline aside); sets WHY ("" when it did).
run() {
	_rc=$1 _err=$2
	shift 2
	# a hang that computes: over 60 s of CPU (SIGXCPU, 152), however
	# loaded the machine; one that waits (a FIFO): over 600 s of wall
	# clock (124); a sanitized emu of 800,000 labels on a busy machine
	# takes well over 60 s of wall clock, not of CPU
	timeout 600 sh -c 'ulimit -t 60 && exec "$@"' sh "$WEFT" "$@" >"$IO/out" 2>"$IO/err" </dev/null
	_got=$?
	WHY=
	if [ "$_got" -ne "$_rc" ]; then
		WHY="exited $_got, expected $_rc ($(head -c 300 "$IO/err")); "
	elif [ -n "$_err" ] && [ "$(cat "$IO/err")" != "$_err" ]; then
		WHY="stderr is \"$(head -c 400 "$IO/err")\", expected \"$_err\"; "
	fi
}

# The entries of a directory (hidden ones too), one line.
entries() { ls -A "$1" 2>&1 | tr '\n' ' '; }

# left DIR WANT: the entries of DIR are WANT (a run left nothing else)
left() { [ "$(entries "$1")" = "$2" ] || WHY="${WHY}left in $1: $(entries "$1"); "; }

"$WEFT" synth -o big --looms 1 --procs 1 --threads 1 --cpus 1 --events 400000 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" synth -o small --looms 1 --procs 1 --threads 2 --cpus 2 --events 2000 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" synth --format picl -o big.trf -n 300000 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" emu -q -o bigout big >/dev/null 2>&1 ||
	{ echo "trust.sh: weft synth or emu failed" >&2; exit 2; }

# ---- item 1: an input that shrinks while mapped --------------------------------
# shrink.so cuts the file when weft maps it (SHRINK_AT=0) or gives its
# pages back the first time (1): weft then reads past the new end.
cc=${CC:-cc}
if $cc -shared -fPIC -O1 -o "$tmp/shrink.so" "$here/shrink.c" -ldl 2>"$IO/cc"; then
	# shrinks NAME AT FILE DIR RUN...: weft RUN, with FILE cut to 100000
	# bytes, exits 1 saying so and leaves DIR as it was
	shrinks() {
		_name=$1 _at=$2 _f=$3 _dir=$4
		shift 4
		_before=$(entries "$_dir")
		SHRINK_FILE=$_f SHRINK_TO=100000 SHRINK_AT=$_at LD_PRELOAD=$tmp/shrink.so \
			ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0 \
			run 1 "weft: error: $_f: changed while being read (now 100000 bytes)" "$@"
		left "$_dir" "$_before"
		result "$_name" "$WHY"
	}
	obs=$(cd big && find . -name stream.obs | sed 's|^\./||')
	for j in 1 2; do
		for at in 0 1; do
			rm -rf t && cp -R big t
			shrinks "shrunk stream.obs, emu -j $j, at $at" $at "t/$obs" . emu -q -j $j -o out t
		done
	done
	rm -rf t && cp -R big t
	shrinks "shrunk stream.obs: dump" 1 "t/$obs" . dump t
	rm -rf t && cp -R big t
	shrinks "shrunk stream.obs: sync" 1 "t/$obs" . sync -q -o clocks.json t
	for at in 0 1; do
		cp big.trf t.trf
		shrinks "shrunk PICL log: emu, at $at" $at t.trf . emu -q -o out t.trf
		cp big.trf t.trf
		shrinks "shrunk PICL log: import, at $at" $at t.trf . import picl t.trf -o out
	done
	for at in 0 1; do
		rm -rf c && cp -R bigout c
		shrinks "shrunk .prv: check, at $at" $at c/thread.prv c check c/thread.prv
		rm -rf c && cp -R bigout c
		shrinks "shrunk .prv: plot, at $at" $at c/thread.prv c plot -o c/pic.svg c/thread.prv
	done
	rm -rf t c t.trf
else
	skip "shrunk inputs" "cannot compile shrink.c with $cc: $(head -c 200 "$IO/cc")"
fi

# ---- item 4: text from the trace cannot break a Paraver or SVG file ------------
# a loom name, a mark title and a label with newlines (one title forging an
# EVENT_TYPE block), control bytes and bytes that are not UTF-8
rm -rf tx && cp -R small tx || exit 2
b1=$(printf '\377') b2=$(printf '\376') b3=$(printf '\303')
for j in $(find tx -name stream.json); do
	LC_ALL=C sed "s/\"loom\": \"\\([^\"]*\\)\"/\"loom\": \"\\1\\\\nx\\\\u0001$b1\"/
		s/\"title\": \"Synth phase\"/\"title\": \"Synth\\\\nEVENT_TYPE\\\\n0 99 evil$b2\"/
		s/\"4\": \"reduce\"/\"4\": \"re\\\\nduce$b3\"/" "$j" >"$j.new" && mv "$j.new" "$j" || exit 2
done
run 0 "" emu -q -o txo tx
for f in thread cpu; do
	"$WEFT" check -q "txo/$f.prv" >"$IO/out" 2>"$IO/err" || WHY="${WHY}check $f.prv: $(head -c 300 "$IO/err"); "
done
grep -q '^0 99 evil' txo/thread.pcf && WHY="${WHY}the title forged an EVENT_TYPE block; "
grep -q '^0 101 Synth EVENT_TYPE 0 99 evil?$' txo/thread.pcf || WHY="${WHY}the title is not on one line; "
grep -q '^4 re duce?$' txo/thread.pcf || WHY="${WHY}the label is not on one line; "
result "names and labels with newlines and bad bytes: emu, check" "$WHY"
# the views of a mark name it by its title: one line there too
WHY=
for v in txo/cfg/thread/ovni/mark-101.cfg txo/cfg/cpu/ovni/mark-101.cfg; do
	grep -q '^window_name .*: Synth EVENT_TYPE 0 99 evil?$' "$v" || WHY="${WHY}$v: the title is not on one line; "
	grep -q '^0 99 evil' "$v" && WHY="${WHY}$v: the title forged a line; "
done
result "a mark title with newlines: the views keep it to its line" "$WHY"
# a mark type whose declaration labels some values (or none): legal in
# ovni, and weft check accepts the outputs (a value without a label: a
# warning, Paraver shows its number)
rm -rf ml mlo && cp -R small ml || exit 2
for j in $(find ml -name stream.json); do
	sed 's/"labels": {"1": "pack"[^}]*}/"labels": {"1": "pack"}/
		s/"labels": {"1": "init"[^}]*}/"labels": {}/' "$j" >"$j.new" && mv "$j.new" "$j" || exit 2
done
run 0 "" emu -q -o mlo ml
for f in thread cpu; do
	"$WEFT" check -q "mlo/$f.prv" >"$IO/out" 2>"$IO/err" || WHY="${WHY}check $f.prv: $(head -c 300 "$IO/err"); "
done
grep -q 'value 2 of event type 102 (first used here) has no label.*Paraver shows its number' "$IO/err" ||
	WHY="${WHY}no warning for value 2 of type 102: $(head -c 300 "$IO/err"); "
result "mark values without labels: emu, check" "$WHY"
rm -rf ml mlo
if command -v xmllint >/dev/null 2>&1; then
	run 0 "" plot -q -o tx.svg txo/thread.prv
	xmllint --noout tx.svg 2>"$IO/err" || WHY="${WHY}xmllint: $(head -c 300 "$IO/err"); "
	result "names and labels with bad bytes: plot, xmllint" "$WHY"
else
	skip "plot, xmllint" "no xmllint (make deps installs libxml2-utils)"
fi
rm -rf tx txo tx.svg

# ---- item 5: inputs that would hang weft -----------------------------------------
# a maze of links, two to each next level, 44 levels: walked as links, 2^44
# visits; each directory is walked once
# (inside the loom folder: only loom.* folders of a trace are walked)
rm -rf maze && cp -R small maze && loom=$(ls small) && m=maze/$loom/m && mkdir -p $m/d0 || exit 2
i=1
while [ $i -le 44 ]; do
	mkdir $m/d$i && ln -s ../d$i $m/d$((i - 1))/a && ln -s ../d$i $m/d$((i - 1))/b || exit 2
	i=$((i + 1))
done
"$WEFT" top small >"$IO/want" 2>&1
run 0 "" top maze
cmp -s "$IO/out" "$IO/want" || WHY="${WHY}top differs from the trace without the maze; "
result "a maze of 44 levels of links" "$WHY"
# a stream reached by two names is one stream (the first name, in byte order)
proc=$(ls "small/$loom" | head -n 1)
rm -rf twice && cp -R small twice && ln -s "$proc" "twice/$loom/zz" || exit 2
run 0 "" top twice
cmp -s "$IO/out" "$IO/want" || WHY="${WHY}top differs from the trace itself; "
result "a process reached through a link too" "$WHY"
rm -rf maze twice
# 400,000 labels of one mark type in each of two streams: merged by value
# in a hash, not by a scan of every label for each (10^11 steps)
rm -rf labels && cp -R small labels || exit 2
for j in $(find labels -name stream.json); do
	awk 'BEGIN { n = 400000 }
		/"mark": \{/ { printf "%s\"7\": {\"title\": \"many\", \"chan_type\": \"single\", \"labels\": {", $0;
			for (i = 1; i <= n; i++) printf "%s\"%d\": \"l%d\"", (i > 1 ? ", " : ""), i, i;
			print "}},"; next }
		{ print }' "$j" >"$j.new" && mv "$j.new" "$j" || exit 2
done
run 0 "" emu -q -o labout labels
[ "$(grep -c '^[0-9]* l[0-9]*$' labout/thread.pcf 2>/dev/null)" = 400000 ] ||
	WHY="${WHY}thread.pcf lacks the 400000 labels; "
result "400000 mark labels" "$WHY"
rm -rf labels labout

# every input read as the clock file (-c) is: a regular file of bounded
# size, so /dev/zero, a FIFO with no writer or a huge file is an error at
# once (each run has its limits: a FIFO would block forever, /dev/zero grow)
mkfifo fifo || exit 2
truncate -s 70M huge || exit 2
kind_fifo="a FIFO (named pipe), not a regular file"
kind_zero="a character device, not a regular file"
for q in "/dev/zero:$kind_zero" "fifo:$kind_fifo" "huge:73400320 bytes: larger than weft reads as a pattern file (at most 64 MiB)"; do
	f=${q%%:*}
	run 2 "weft: error: $f: ${q#*:}" query -f "$f" small
	result "query -f $f" "$WHY"
done
for q in "/dev/zero:$kind_zero" "fifo:$kind_fifo" "huge:73400320 bytes: larger than weft reads as a model file (at most 64 MiB)"; do
	f=${q%%:*}
	run 1 "weft: error: $f: ${q#*:}" emu -q --model "$f" -o out small
	[ -e out ] && WHY="${WHY}out was left; "
	result "emu --model $f" "$WHY"
	run 1 "weft: error: $f: ${q#*:}" models --model "$f"
	result "models --model $f" "$WHY"
done
rm -rf c && cp -R bigout c && rm c/thread.pcf && mkfifo c/thread.pcf || exit 2
run 1 "weft: error: c/thread.pcf: $kind_fifo" plot -o c/pic.svg c/thread.prv
left c "$(cd bigout && ls -A | sed 's/$/ /' | tr -d '\n')"
result "plot with a FIFO for its .pcf" "$WHY"
rm -rf c huge fifo



# ---- item 6: stream.json is JSON, strictly -------------------------------------
# jcase NAME OFFSET WHY SED: small's first stream.json edited by SED is
# refused at OFFSET saying WHY, by emu (nothing left) and dump
J=$(cd small && find . -name stream.json | sort | head -n 1 | sed 's|^\./||')
jcase() {
	rm -rf js && cp -R small js || exit 2
	sed "$4" "small/$J" >"js/$J" || exit 2
	run 1 "weft: error: js/$J: byte offset $2: $3" emu -q -o out js
	[ -e out ] && WHY="${WHY}out was left; "
	result "stream.json: $1 (emu)" "$WHY"
	run 1 "weft: error: js/$J: byte offset $2: $3" dump js
	result "stream.json: $1 (dump)" "$WHY"
}
# the offsets: of the first byte of what is wrong, counted on the file
len=$(wc -c <"small/$J")
jcase "content after the object" "$len" "content after the top-level value (a JSON text holds one)" '$s/$/ {}/'
off=$(grep -bo '"tid": [0-9]*' "small/$J" | head -n 1 | cut -d: -f1)
jcase "a leading zero" $((off + 7)) "a number with a leading zero (JSON numbers have none: 7, not 07)" \
	's/"tid": \([0-9]\)/"tid": 0\1/'
off=$(grep -bo '"loom": "' "small/$J" | head -n 1 | cut -d: -f1)
loom=$(sed -n 's/.*"loom": "\([^"]*\)".*/\1/p' "small/$J" | head -n 1)
jcase "a raw newline in a string" $((off + 9 + ${#loom})) \
	"a raw control character (byte 0x0a) inside a string: JSON escapes it (\\n, \\t, \\u00XX)" \
	's/"loom": "\([^"]*\)"/"loom": "\1\
"/'
off=$(grep -bo '"pid": ' "small/$J" | head -n 1 | cut -d: -f1)
tid=$(grep -bo '"tid": ' "small/$J" | head -n 1 | cut -d: -f1)
jcase "a key twice" "$off" "a key given twice in one object (first at byte offset $tid)" 's/"pid": /"tid": 5, "pid": /'
rm -rf js

# ---- item 7: what the system refuses is exit 1, its text and what to do -------
# (no limit of memory or threads ends in a signal; nothing is left behind)
"$WEFT" synth --format picl -o four.trf --procs 4 -n 20000 --seed 1 >/dev/null 2>&1 ||
	{ echo "trust.sh: weft synth --format picl failed" >&2; exit 2; }
hint_mem="(raise the memory limit, ulimit -v, or free memory; emu -j 1 needs the least)"
hint_thr="(a limit of the system: memory, ulimit -v, or processes, ulimit -u; or fewer threads: emu -j 1)"
# a sanitizer's shadow memory does not fit under ulimit -v: those cases
# need a build without one
if sh -c 'ulimit -v 400000 && exec "$0" --version' "$WEFT" >/dev/null 2>&1; then
	# a thread's stack (ulimit -s) bigger than what ulimit -v leaves: the
	# workers of -j 2 cannot start
	sh -c 'ulimit -v 400000 && ulimit -s 390000 && exec "$0" emu -q -j 2 -o out four.trf' "$WEFT" \
		>"$IO/out" 2>"$IO/err" </dev/null
	rc=$?
	WHY=
	[ $rc -eq 1 ] || WHY="exited $rc, expected 1; "
	grep -q -x -F "weft: error: emu -j 2: cannot start worker 1: Resource temporarily unavailable $hint_thr" \
		"$IO/err" || WHY="${WHY}stderr: $(head -c 300 "$IO/err"); "
	[ -e out ] && WHY="${WHY}out was left; "
	result "emu -j 2 with no room for a thread's stack" "$WHY"
	# an allocation that cannot be had
	sh -c 'ulimit -v 30000 && exec "$0" emu -q -o out four.trf' "$WEFT" >"$IO/out" 2>"$IO/err" </dev/null
	rc=$?
	WHY=
	[ $rc -eq 1 ] || WHY="exited $rc, expected 1; "
	grep -q -x -e "weft: error: .*Cannot allocate memory .*" "$IO/err" ||
		WHY="${WHY}stderr: $(head -c 300 "$IO/err"); "
	result "emu under ulimit -v 30000" "$WHY"
	rm -rf out
else
	skip "ulimit -v" "$WEFT does not start under ulimit -v 400000 (a sanitizer build)"
fi
# too few descriptors (found by retry.sh): for DIR/.weft or its lock, exit
# 1 and the folders the run made go; to list the outputs at the commit,
# exit 1 too, not 0 without the views
"$WEFT" emu -q -o nfref small >/dev/null 2>&1 || exit 2
WHY=
for n in 4 5 6 7 8 9 10 11 12 13 14 15 16; do
	rm -rf nfo
	sh -c 'ulimit -n "$1" && exec "$2" emu -q -o nfo small' sh "$n" "$WEFT" >"$IO/out" 2>"$IO/err" </dev/null
	rc=$?
	case $rc in
	0) [ "$(shown_files nfo | tr '\n' ' ')" = "$(shown_files nfref | tr '\n' ' ')" ] ||
		WHY="${WHY}ulimit -n $n: exit 0 without all the outputs; " ;;
	1) [ -e nfo ] && WHY="${WHY}ulimit -n $n: nfo left ($(ls -A nfo | tr '\n' ' ')); " ;;
	*) WHY="${WHY}ulimit -n $n: exit $rc; " ;;
	esac
done
rm -rf nfo nfref
result "too few descriptors: all the outputs, or exit 1 and nothing left" "$WHY"
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	# failures of the system injected on one input (strace -P: only the
	# calls on that file)
	obs=$(cd small && find . -name stream.obs | sort | head -n 1 | sed 's|^\./||')
	strace -o /dev/null -f -P "small/$obs" -e trace=mmap -e inject=mmap:error=ENOMEM \
		"$WEFT" emu -q -o out small >"$IO/out" 2>"$IO/err" </dev/null
	rc=$?
	WHY=
	[ $rc -eq 1 ] || WHY="exited $rc, expected 1; "
	grep -q -x -F "weft: error: small/$obs: cannot map: Cannot allocate memory $hint_mem" "$IO/err" ||
		WHY="${WHY}stderr: $(grep -v '^strace' "$IO/err" | head -c 300); "
	[ -e out ] && WHY="${WHY}out was left; "
	result "no memory to map an input" "$WHY"
	strace -o /dev/null -f -P "small/$obs" -e trace=openat -e inject=openat:error=EMFILE \
		"$WEFT" dump small >"$IO/out" 2>"$IO/err" </dev/null
	rc=$?
	WHY=
	[ $rc -eq 1 ] || WHY="exited $rc, expected 1; "
	grep -q -x -F "weft: error: small/$obs: cannot open for reading: Too many open files (raise the open-file limit: ulimit -n)" \
		"$IO/err" || WHY="${WHY}stderr: $(grep -v '^strace' "$IO/err" | head -c 300); "
	result "too many open files on an input" "$WHY"
else
	skip "injected failures" "no strace that can trace here"
fi

finish
