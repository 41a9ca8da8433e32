#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Malformed-input suite: every case builds a broken ovni trace in a temporary
# directory, runs `weft top` and/or `weft dump` on it and checks that weft
# exits 1 with the expected message on stderr, and that it neither created
# nor changed anything in the input. Usage errors must exit 2.
#
#   WEFT=/abs/path/to/weft sh test/malformed/run.sh
#
# Needs only sh, printf and coreutils. Prints "ok NAME", "FAIL NAME: why" or
# "skip NAME: why" per case, then "N passed, M failed"; exits 1 on failures.

set -u

. "$(dirname "$0")/../lib.sh"
need WEFT
# weft's stdout and stderr go to $IO, the cases live under $tmp/cases
IO=$tmp/io
mkdir "$IO" "$tmp/cases" || exit 2

# ---- building blocks ---------------------------------------------------------

# Each decimal argument as one byte.
bytes() {
	for b in "$@"; do
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "$b")"
	done
}

u32le() { bytes $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

u64le() {
	v=$1
	i=0
	while [ $i -lt 8 ]; do
		bytes $((v & 255))
		v=$((v >> 8))
		i=$((i + 1))
	done
}

u64be() {
	i=56
	while [ $i -ge 0 ]; do
		bytes $(($1 >> i & 255))
		i=$((i - 8))
	done
}

# stream.obs file header, little-endian.
hdr() {
	printf 'ovni'
	bytes 1 0 0 0
}

# One little-endian event: FLAGS MCV CLOCK [payload bytes...]
ev() {
	_f=$1 _m=$2 _c=$3
	shift 3
	bytes "$_f"
	printf '%s' "$_m"
	u64le "$_c"
	bytes "$@"
}

# The stream.json fields; reset with defaults() before changing some.
defaults() {
	TID=1
	PID=1
	LOOM=a
	APP='"app_id":1,'
	CPUS='"loom_cpus":[{"index":0,"phyid":0}],'
	FIN='"finished":1,'
	EXTRA=
	VERSION=3
}

meta_json() {
	printf '{"version":%s,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread",' \
		"$VERSION"
	printf '"tid":%s,"pid":%s,"loom":"%s",%s%s%s%s"require":{"ovni":"1.1.0"}}}\n' \
		"$TID" "$PID" "$LOOM" "$APP" "$CPUS" "$FIN" "$EXTRA"
}

# Two well-formed events: OHp at 8 (clock 100), OHr at 20 (clock 200).
good_obs() {
	hdr
	ev 0 OHp 100
	ev 0 OHr 200
}

# mkstream DIR: a valid stream from the current fields and good_obs.
mkstream() {
	mkdir -p "$1"
	meta_json >"$1/stream.json"
	good_obs >"$1/stream.obs"
}

# newcase NAME: a fresh directory $C for the case.
newcase() {
	C=$tmp/cases/$1
	mkdir "$C"
	defaults
}

# Names, sizes, modes, times and checksums of everything under a directory
# (not of its parent: the ".." lines are left out).
if ls -laR --time-style=full-iso "$tmp" >/dev/null 2>&1; then
	LS_TIME=--time-style=full-iso
else
	LS_TIME=
fi
snapshot() {
	# shellcheck disable=SC2086
	ls -laR $LS_TIME "$1" 2>&1 | grep -v ' \.\.$'
	find "$1" -type f -exec cksum {} + 2>/dev/null | LC_ALL=C sort
}

# ---- the checks -------------------------------------------------------------

# check NAME TARGET TOP_TEXT DUMP_TEXT: both commands must exit 1 with their
# text on stderr ("-" skips a command). The case directory $C must not change.
check() {
	_name=$1 _target=$2 _ttop=$3 _tdump=$4
	_why=
	_before=$(snapshot "$C")
	for _cmd in top dump; do
		if [ "$_cmd" = top ]; then _want=$_ttop; else _want=$_tdump; fi
		[ "$_want" = - ] && continue
		"$WEFT" "$_cmd" "$_target" >"$IO/out" 2>"$IO/err" </dev/null
		_rc=$?
		if [ $_rc -ne 1 ]; then
			_why="$_why$_cmd exited $_rc, expected 1 ($(head -c 300 "$IO/err")); "
		elif ! grep -F -q -e "$_want" "$IO/err"; then
			_why="$_why$_cmd: stderr lacks \"$_want\", found \"$(head -c 400 "$IO/err")\"; "
		elif ! grep -q '^weft: error: ' "$IO/err"; then
			_why="$_why$_cmd: stderr has no 'weft: error:' line; "
		fi
	done
	_after=$(snapshot "$C")
	[ "$_before" = "$_after" ] || _why="${_why}weft changed the input directory; "
	result "$_name" "$_why"
}

check2() { check "$1" "$2" "$3" "$3"; }

# accept NAME TARGET [TOP_STDOUT_TEXT]: both commands must exit 0.
accept() {
	_name=$1 _target=$2 _text=${3:-}
	_why=
	_before=$(snapshot "$C")
	for _cmd in top dump; do
		"$WEFT" "$_cmd" "$_target" >"$IO/out" 2>"$IO/err" </dev/null
		_rc=$?
		if [ $_rc -ne 0 ]; then
			_why="$_why$_cmd exited $_rc, expected 0 ($(head -c 300 "$IO/err")); "
		elif [ "$_cmd" = top ] && [ -n "$_text" ] && ! grep -F -q -e "$_text" "$IO/out"; then
			_why="${_why}top output lacks \"$_text\"; "
		fi
	done
	_after=$(snapshot "$C")
	[ "$_before" = "$_after" ] || _why="${_why}weft changed the input directory; "
	result "$_name" "$_why"
}

# usage NAME TEXT ARGS...: exit 2 and TEXT on stderr.
usage() {
	_name=$1 _want=$2
	shift 2
	"$WEFT" "$@" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	_why=
	if [ $_rc -ne 2 ]; then
		_why="exited $_rc, expected 2"
	elif ! grep -F -q -e "$_want" "$IO/err"; then
		_why="stderr lacks \"$_want\", found \"$(head -c 300 "$IO/err")\""
	fi
	result "$_name" "$_why"
}

# ---- baseline: the building blocks make a valid trace -------------------------

newcase valid-baseline
mkstream "$C/loom.a/proc.1/thread.1"
accept valid-baseline "$C" "events 2 in 1 streams"

newcase big-endian-accepted
mkdir -p "$C/t"
meta_json >"$C/t/stream.json"
{
	printf 'ovni'
	bytes 0 0 0 1
	bytes 0
	printf 'OHp'
	u64be 100
	bytes 0
	printf 'OHr'
	u64be 200
} >"$C/t/stream.obs"
accept big-endian-accepted "$C" "span 100 .. 200 (100 ns)"

# ---- directory layout -----------------------------------------------------------

newcase empty-dir
check2 empty-dir "$C" "no ovni streams found under $C"

newcase obs-without-json
mkstream "$C/t1"
mkdir "$C/t2"
good_obs >"$C/t2/stream.obs"
check2 obs-without-json "$C" \
	"$C/t2: stream.obs without stream.json: the stream's metadata is missing"

newcase json-without-obs
mkdir "$C/t"
meta_json >"$C/t/stream.json"
check2 json-without-obs "$C" "$C/t: stream.json without stream.obs: a stream needs both files"

newcase v1-layout
mkdir -p "$C/loom.a/proc.1"
printf '{"version":1,"app_id":1,"cpus":[{"index":0,"phyid":0}]}\n' >"$C/loom.a/proc.1/metadata.json"
good_obs >"$C/loom.a/proc.1/thread.1.obs"
check2 v1-layout "$C" \
	"$C: this is an ovni trace format v1 (written by libovni 1.4 or earlier; found loom.a/proc.1/metadata.json); weft reads format v3"

newcase v2-layout
mkdir -p "$C/loom.a/proc.1"
printf '{"version":2,"app_id":1,"cpus":[{"index":0,"phyid":0}]}\n' >"$C/loom.a/proc.1/metadata.json"
good_obs >"$C/loom.a/proc.1/thread.1.obs"
printf '{"version":2,"ovni":{"lib":{"version":"1.10.0","commit":"x"}}}\n' \
	>"$C/loom.a/proc.1/thread.1.json"
check2 v2-layout "$C" \
	"$C: this is an ovni trace format v2 (written by libovni 1.5 to 1.10; found loom.a/proc.1/thread.1.json)"

newcase trace-is-file
good_obs >"$C/file"
check2 trace-is-file "$C/file" "$C/file: this is one thread's ovni stream (stream.obs), not a trace: give its trace directory"

newcase trace-missing
check2 trace-missing "$C/nothing" "$C/nothing: cannot read trace: No such file or directory"

newcase unreadable-obs
mkstream "$C/t"
chmod 000 "$C/t/stream.obs"
if cat "$C/t/stream.obs" >/dev/null 2>&1; then
	skip unreadable-obs "mode 000 does not stop this user from reading (root?)"
else
	check2 unreadable-obs "$C" "$C/t/stream.obs: cannot open for reading: Permission denied"
fi
chmod 644 "$C/t/stream.obs"

newcase unreadable-json
mkstream "$C/t"
chmod 000 "$C/t/stream.json"
if cat "$C/t/stream.json" >/dev/null 2>&1; then
	skip unreadable-json "mode 000 does not stop this user from reading (root?)"
else
	check2 unreadable-json "$C" "$C/t/stream.json: cannot open for reading: Permission denied"
fi
chmod 644 "$C/t/stream.json"

newcase unreadable-dir
mkstream "$C/t"
mkdir "$C/u"
chmod 000 "$C/u"
if ls "$C/u" >/dev/null 2>&1; then
	skip unreadable-dir "mode 000 does not stop this user from listing (root?)"
else
	check2 unreadable-dir "$C" "$C/u: cannot open directory: Permission denied"
fi
chmod 755 "$C/u"

# ---- stream.obs header ------------------------------------------------------------

# Prefixes of a valid 20-byte stream (header + one 12-byte event).
n=0
while [ $n -le 11 ]; do
	newcase "obs-$n-bytes"
	mkdir "$C/t"
	meta_json >"$C/t/stream.json"
	{
		hdr
		ev 0 OHp 100
	} | head -c $n >"$C/t/stream.obs"
	size=$(wc -c <"$C/t/stream.obs" | tr -d ' ')
	if [ "$size" != $n ]; then
		result "obs-$n-bytes" "could not build a $n-byte file (got $size bytes)"
	elif [ $n -eq 0 ]; then
		check2 obs-0-bytes "$C" "$C/t/stream.obs: empty file, expected the 8-byte stream header"
	elif [ $n -lt 8 ]; then
		check2 "obs-$n-bytes" "$C" \
			"$C/t/stream.obs: incomplete stream header: $n bytes, expected at least 8"
	elif [ $n -eq 8 ]; then
		accept obs-8-bytes "$C" "events 0 in 1 streams"
	else
		check2 "obs-$n-bytes" "$C" \
			"$C/t/stream.obs: truncated event at byte offset 8: expected a 12-byte event header, found $((n - 8)) bytes before the end of the file"
	fi
	n=$((n + 1))
done

newcase bad-magic
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	printf 'OVNI'
	bytes 1 0 0 0
	ev 0 OHp 100
} >"$C/t/stream.obs"
check2 bad-magic "$C" \
	"$C/t/stream.obs: bad magic at byte offset 0: expected \"ovni\" (6f 76 6e 69), found 4f 56 4e 49"

newcase bad-version
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	printf 'ovni'
	bytes 2 0 0 0
	ev 0 OHp 100
} >"$C/t/stream.obs"
check2 bad-version "$C" \
	"$C/t/stream.obs: unsupported stream format version at byte offset 4: expected 1 (in either byte order), found bytes 02 00 00 00"

# ---- events -------------------------------------------------------------------------

newcase truncated-event
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	ev 15 OHx 300 2 0 0 0 255 255 255 255 0 0 0 0 0 0 0 0
} | head -c 47 >"$C/t/stream.obs"
check2 truncated-event "$C" \
	"$C/t/stream.obs: truncated event OHx at byte offset 32: expected 28 bytes, found 15 before the end of the file"

newcase truncated-jumbo-header
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	ev 19 VYc 300
	bytes 7 0
} >"$C/t/stream.obs"
check2 truncated-jumbo-header "$C" \
	"$C/t/stream.obs: truncated jumbo event VYc at byte offset 32: expected a 16-byte header with its length word, found 14 bytes before the end of the file"

newcase truncated-jumbo-data
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	ev 19 VYc 300
	u32le 100
	printf 'only ten b'
} >"$C/t/stream.obs"
check2 truncated-jumbo-data "$C" \
	"$C/t/stream.obs: truncated event VYc at byte offset 32: expected 116 bytes, found 26 before the end of the file"

newcase garbage-tail
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	bytes 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
} >"$C/t/stream.obs"
check2 garbage-tail "$C" \
	"$C/t/stream.obs: garbage at byte offset 32: expected an event header with a printable MCV, found bytes 00 00 00 00"

newcase space-in-mcv
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	ev 0 'O e' 300
} >"$C/t/stream.obs"
check2 space-in-mcv "$C" \
	"$C/t/stream.obs: garbage at byte offset 32: expected an event header with a printable MCV, found bytes 00 4f 20 65"

newcase clock-backwards
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	good_obs
	ev 0 OHc 150
} >"$C/t/stream.obs"
check2 clock-backwards "$C" \
	"$C/t/stream.obs: clock goes backwards at byte offset 32 (event OHc): expected a clock >= 200 (the previous event's), found 150"

newcase nested-unordered-region
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	hdr
	ev 0 OHp 100
	ev 0 'OU[' 110
	ev 0 'OU[' 120
	ev 0 'OU]' 130
	ev 0 'OU]' 140
} >"$C/t/stream.obs"
# as ovnisort: an OU[ inside a region is one of its events (issue 23)
accept nested-unordered-region "$C"

newcase unclosed-unordered-region
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	hdr
	ev 0 OHp 100
	ev 0 'OU[' 110
	ev 0 OHr 50
} >"$C/t/stream.obs"
# a region never closed is not sorted (ovnisort): its clock going back is an error
check unclosed-unordered-region "$C" \
	"$C/t/stream.obs: clock goes backwards at byte offset 32, in an unordered region (OU[) that never closes: expected OU] after it (ovnisort sorts only closed regions)" \
	"$C/t/stream.obs: clock goes backwards at byte offset 32 (event OHr): expected a clock >= 110 (the previous event's), found 50"

newcase close-without-open
mkdir "$C/t"
meta_json >"$C/t/stream.json"
{
	hdr
	ev 0 OHp 100
	ev 0 'OU]' 110
} >"$C/t/stream.obs"
# an OU] outside any region is an event like others (ovnisort, ovniemu)
accept close-without-open "$C"

# ---- stream.json ----------------------------------------------------------------------

newcase json-not-object
mkstream "$C/t"
printf '[1, 2, 3]\n' >"$C/t/stream.json"
check2 json-not-object "$C" "$C/t/stream.json: expected a JSON object at the top, found an array"

newcase json-invalid
mkstream "$C/t"
printf '{"version": 3, "ovni": {"tid": 1,\n' >"$C/t/stream.json"
check2 json-invalid "$C" "$C/t/stream.json: byte offset 23: an object that never ends (no '}')"

newcase json-empty
mkstream "$C/t"
: >"$C/t/stream.json"
check2 json-empty "$C" "$C/t/stream.json: empty file, expected a JSON object"

newcase metadata-version-2
VERSION=2
mkstream "$C/t"
check2 metadata-version-2 "$C" \
	"$C/t/stream.json: key 'version': expected metadata version 3 (libovni >= 1.11), found 2"

newcase missing-finished
FIN=
mkstream "$C/t"
check2 missing-finished "$C" \
	"$C/t/stream.json: missing key 'ovni.finished': the thread never finished"

newcase finished-0
FIN='"finished":0,'
mkstream "$C/t"
check2 finished-0 "$C" "$C/t/stream.json: key 'ovni.finished': expected 1, found 0"

newcase tid-zero
TID=0
mkstream "$C/t"
check2 tid-zero "$C" "$C/t/stream.json: key 'ovni.tid': expected a non-zero integer, found 0"

newcase tid-string
TID='"7"'
mkstream "$C/t"
check2 tid-string "$C" "$C/t/stream.json: key 'ovni.tid': expected a non-zero integer, found a string"

newcase loom-with-slash
LOOM=a/b
mkstream "$C/t"
check2 loom-with-slash "$C" \
	"$C/t/stream.json: key 'ovni.loom': expected a non-empty name without '/', found \"a/b\""

newcase rank-without-nranks
EXTRA='"rank":0,'
mkstream "$C/t"
check2 rank-without-nranks "$C" \
	"$C/t/stream.json: key 'ovni.nranks' is missing but 'ovni.rank' is present (expected both)"

newcase bad-require-version
mkdir "$C/t"
printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread","tid":1,"pid":1,"loom":"a","app_id":1,"loom_cpus":[{"index":0,"phyid":0}],"finished":1,"require":{"ovni":"1.1"}}}\n' \
	>"$C/t/stream.json"
good_obs >"$C/t/stream.obs"
check2 bad-require-version "$C" \
	"$C/t/stream.json: key 'ovni.require.ovni': expected a version \"major.minor.patch\", found \"1.1\""

newcase bad-mark-type
EXTRA='"mark":{"100":{"title":"x","chan_type":"single"}},'
mkstream "$C/t"
check2 bad-mark-type "$C" \
	"$C/t/stream.json: key 'ovni.mark.100': expected a decimal integer in 0..99, found \"100\""

# ---- merging streams into looms, processes, threads and CPUs --------------------------

newcase loom-without-cpus
CPUS=
mkstream "$C/t"
check2 loom-without-cpus "$C" "loom a has no physical CPUs: no stream of it lists 'ovni.loom_cpus'"

newcase empty-cpu-list
CPUS='"loom_cpus":[],'
mkstream "$C/t"
check2 empty-cpu-list "$C" \
	"$C/t/stream.json: key 'ovni.loom_cpus': expected at least one CPU, found an empty array"

newcase duplicate-cpu-index
CPUS='"loom_cpus":[{"index":0,"phyid":0},{"index":0,"phyid":1}],'
mkstream "$C/t"
check2 duplicate-cpu-index "$C" \
	"loom a: CPU index 0 is taken by both phyid 0 and phyid 1, expected each index once (from $C/t/stream.json)"

newcase cpu-index-out-of-range
CPUS='"loom_cpus":[{"index":0,"phyid":0},{"index":5,"phyid":1}],'
mkstream "$C/t"
check2 cpu-index-out-of-range "$C" \
	"loom a: CPU phyid 1 has index 5, expected an index below the number of CPUs (2) (from $C/t/stream.json)"

newcase same-phyid-other-index
CPUS='"loom_cpus":[{"index":0,"phyid":0},{"index":1,"phyid":1}],'
mkstream "$C/t1"
TID=2
CPUS='"loom_cpus":[{"index":1,"phyid":0},{"index":0,"phyid":1}],'
mkstream "$C/t2"
check2 same-phyid-other-index "$C" \
	"$C/t2/stream.json: key 'ovni.loom_cpus[0]': CPU phyid 0 of loom a has index 0 in $C/t1/stream.json, found index 1"

newcase conflicting-app-id
mkstream "$C/t1"
TID=2
APP='"app_id":2,'
mkstream "$C/t2"
check2 conflicting-app-id "$C" \
	"$C/t2/stream.json: key 'ovni.app_id': process 1 of loom a has app_id 1 in $C/t1/stream.json, found 2"

newcase missing-app-id
APP=
mkstream "$C/t1"
TID=2
mkstream "$C/t2"
check2 missing-app-id "$C" \
	"process 1 of loom a has no app_id: expected 'ovni.app_id' in at least one of its streams"

newcase duplicate-tid
mkstream "$C/t1"
mkstream "$C/t2"
check2 duplicate-tid "$C" \
	"$C/t2/stream.json: key 'ovni.tid': thread 1 of process 1 in loom a already exists (stream 0)"

newcase rank-conflict
EXTRA='"rank":0,"nranks":2,'
mkstream "$C/t1"
TID=2
EXTRA='"rank":1,"nranks":2,'
mkstream "$C/t2"
check2 rank-conflict "$C" \
	"$C/t2/stream.json: key 'ovni.rank': process 1 of loom a has rank 0 of 2 in $C/t1/stream.json, found rank 1 of 2"

# ---- usage errors ------------------------------------------------------------------------

newcase usage
mkstream "$C/t"
usage usage-no-args "Usage: weft COMMAND"
usage usage-unknown-command "weft: unknown command 'frobnicate'" frobnicate "$C"
usage usage-top-unknown-option "weft top: unknown option" top --no-such-option "$C"
usage usage-dump-unknown-option "weft dump: unknown option" dump -Q "$C"
usage usage-top-no-trace "weft top: expected one TRACE directory, found 0 arguments" top
usage usage-dump-two-traces "weft dump: expected one TRACE directory, found 2 arguments" \
	dump "$C" "$C"

finish
