#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Hardening suite (issue 14): outputs appear together or not at all, hostile
# or odd inputs get a precise error, wrong answers stay fixed. Each case runs
# the weft binary and compares its exit status and its whole stderr with the
# exact expected text.
#
#   WEFT=/abs/path/to/weft sh test/malformed/hardening.sh
#
# Prints "ok NAME", "FAIL NAME: why" or "skip NAME: why" per case, then
# "N passed, M failed" (test/lib.sh); exits 1 on failures. Cases needing a
# tmpfs mount (root) are skipped, with a message, where mounting fails.

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
MNT=
# a tmpfs still mounted when the script ends (a failed case) goes first
trap '[ -n "$MNT" ] && umount "$MNT" 2>/dev/null; lib_cleanup' EXIT
IO=$tmp/io
mkdir "$IO" || exit 2
cd "$tmp" || exit 2

# run RC STDERR ARGS...: weft ARGS must exit RC with exactly STDERR (a
# trailing newline aside); sets WHY ("" when it did).
run() {
	_rc=$1 _err=$2
	shift 2
	"$WEFT" "$@" >"$IO/out" 2>"$IO/err" </dev/null
	_got=$?
	WHY=
	if [ "$_got" -ne "$_rc" ]; then
		WHY="exited $_got, expected $_rc ($(head -c 300 "$IO/err")); "
	elif [ "$(cat "$IO/err")" != "$_err" ]; then
		WHY="stderr is \"$(head -c 400 "$IO/err")\", expected \"$_err\"; "
	fi
}

# The entries of a directory (hidden ones too), one line.
entries() { ls -A "$1" 2>&1 | tr '\n' ' '; }

# Fingerprint of a directory tree: names and checksums.
fp() { (cd "$1" && find . -type f -exec cksum {} + | LC_ALL=C sort); }

"$WEFT" synth -o small --looms 1 --procs 1 --threads 2 --cpus 2 --events 2000 --seed 1 >/dev/null 2>&1 &&
	"$WEFT" synth -o mid --looms 1 --procs 1 --threads 2 --cpus 2 --events 8000 --seed 1 >/dev/null 2>&1 ||
	{ echo "hardening.sh: weft synth failed" >&2; exit 2; }

# ---- item 1: no half outputs ---------------------------------------------------

# a directory where a .prv goes: refused before the emulation, nothing new
mkdir -p dirinway/cpu.prv/x
run 2 "weft: error: dirinway/cpu.prv: is a directory; weft writes a file of that name and will not replace a directory" \
	emu -o dirinway small
[ "$(entries dirinway)" = "cpu.prv " ] || WHY="${WHY}left: $(entries dirinway); "
result outputs-dir-in-the-way "$WHY"

# a file where cfg/ goes
mkdir cfgfile && : >cfgfile/cfg
run 2 "weft: error: cfgfile/cfg: not a directory, but weft writes cfgfile/cfg/cpu/andfork/agent.cfg in it" \
	emu -o cfgfile small
[ "$(entries cfgfile)" = "cfg " ] || WHY="${WHY}left: $(entries cfgfile); "
result outputs-file-in-the-way "$WHY"

# -o naming an existing file is a usage error
: >plainfile
run 2 "weft: error: plainfile: is an existing file; -o names the output directory" emu -o plainfile small
[ -f plainfile ] && [ ! -s plainfile ] || WHY="${WHY}plainfile changed; "
result outputs-o-existing-file "$WHY"

# a file-size limit (ulimit -f, 512-byte blocks): EFBIG named, not a kill
WHY=
(ulimit -f 100 && exec "$WEFT" emu -o fsize mid) >"$IO/out" 2>"$IO/err"
_got=$?
[ "$_got" -eq 1 ] || WHY="exited $_got, expected 1; "
[ "$(cat "$IO/err")" = "weft: error: fsize/thread.prv: write failed: File too large (raise the file-size limit: ulimit -f)" ] ||
	WHY="${WHY}stderr is \"$(cat "$IO/err")\"; "
[ -e fsize ] && WHY="${WHY}left fsize: $(entries fsize); "
result outputs-file-size-limit "$WHY"

# what a killed run left (a dead PID in the name) goes on the next run; a
# live run's (PID 1) stays
"$WEFT" emu -o stale small >/dev/null 2>&1
dead=$(sh -c 'echo $$')
printf 'half' >"stale/.thread.prv.weft-tmp-$dead"
printf 'half' >"stale/.cpu.prv.gz.weft-tmp-$dead"
printf 'live' >"stale/.thread.prv.weft-tmp-1"
"$WEFT" emu -o stale small >"$IO/out" 2>"$IO/err"
WHY=
[ $? -eq 0 ] || WHY="exited non-zero: $(cat "$IO/err"); "
[ "$(ls -A stale | grep weft-tmp | tr '\n' ' ')" = ".thread.prv.weft-tmp-1 " ] ||
	WHY="temporaries: $(ls -A stale | grep weft-tmp | tr '\n' ' '); "
result outputs-stale-temporaries "$WHY"

# the same for the conversion of a log a killed run left in weft's private
# folder of TMPDIR (what lies in TMPDIR itself is no longer weft's: kept)
u=weft-$(id -u)
mkdir -p imp/"weft-import-$dead-aaaaaa"/loom.x imp/"$u"/"weft-import-$dead-aaaaaa"/loom.x \
	imp/"$u"/weft-import-1-bbbbbb imp/"$u"/weft-import-zz
chmod 700 imp/"$u"
"$WEFT" synth --format picl -o imp.log --procs 2 -n 50 --seed 1 >/dev/null 2>&1
TMPDIR=$PWD/imp "$WEFT" emu -q -o imp.out imp.log >"$IO/out" 2>"$IO/err"
WHY=
[ $? -eq 0 ] || WHY="exited non-zero: $(cat "$IO/err"); "
[ "$(ls -A imp/"$u" | tr '\n' ' ')" = "weft-import-1-bbbbbb weft-import-zz " ] ||
	WHY="${WHY}left in TMPDIR/$u: $(ls -A imp/"$u" | tr '\n' ' '); "
[ "$(ls -A imp | tr '\n' ' ')" = "$u weft-import-$dead-aaaaaa " ] ||
	WHY="${WHY}TMPDIR: $(ls -A imp | tr '\n' ' '); "
result imports-stale-temporaries "$WHY"

# a full file system (tmpfs of a size that fits the plain temporaries but not
# the compressed copy, then one that fits nothing): ENOSPC named, no output,
# and a previous complete output stays as it was
MNT=$tmp/mnt
mkdir "$MNT"
if ! mount -t tmpfs -o size=64k tmpfs "$MNT" 2>/dev/null; then
	MNT=
	skip outputs-full-disk "cannot mount a tmpfs here (needs root)"
	skip outputs-full-disk-gzip "cannot mount a tmpfs here (needs root)"
	skip outputs-full-disk-keeps-previous "cannot mount a tmpfs here (needs root)"
else
	# which output meets the full disk first depends on the sizes of the
	# views and traces: any of them, named
	run 1 - emu -o "$MNT/o" mid
	case "$WHY" in "exited "*) ;; *)
		WHY=
		grep -q "^weft: error: $MNT/o/[a-z/.-]*: write failed: No space left on device (free some space, or use -o to write elsewhere)\$" "$IO/err" ||
			WHY="stderr is \"$(head -c 400 "$IO/err")\", expected an output named with ENOSPC; "
	esac
	[ "$(entries "$MNT")" = "" ] || WHY="${WHY}left: $(entries "$MNT"); "
	result outputs-full-disk "$WHY"

	"$WEFT" emu -o plain mid >/dev/null 2>&1
	umount "$MNT"
	k=$(($(wc -c <plain/thread.prv) / 1024 + 8))
	mount -t tmpfs -o size=${k}k tmpfs "$MNT"
	run 1 "weft: error: $MNT/o/thread.prv.gz: write failed: No space left on device (free some space, or use -o to write elsewhere)" emu -z -o "$MNT/o" mid
	[ "$(entries "$MNT")" = "" ] || WHY="${WHY}left: $(entries "$MNT"); "
	result outputs-full-disk-gzip "$WHY"
	umount "$MNT"

	mount -t tmpfs -o size=300k tmpfs "$MNT"
	"$WEFT" emu -o "$MNT/o" small >/dev/null 2>&1
	before=$(fp "$MNT/o")
	run 1 "weft: error: $MNT/o/thread.prv: write failed: No space left on device (free some space, or use -o to write elsewhere)" emu -o "$MNT/o" mid
	[ "$(fp "$MNT/o")" = "$before" ] || WHY="${WHY}the previous output changed; "
	[ "$(ls -A "$MNT/o" | grep -c weft-)" = 0 ] || WHY="${WHY}temporaries left: $(entries "$MNT/o"); "
	result outputs-full-disk-keeps-previous "$WHY"
	umount "$MNT"
	MNT=
fi

# ---- item 4: the CHARISMA importer -----------------------------------------------

# patch FILE OFFSET OCTAL-BYTES: overwrite bytes in place
patch() { printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null; }

"$WEFT" synth --format charisma -o c1.log --apps 1 --clients 1 --size 600 --seed 1 >/dev/null 2>&1
PROBED="weft: c.log: CHARISMA machine profile charisma-default (probed on the header record)"

# client -1 is charisma-default's "no client": it cannot be a client (it
# became a stream with tid 0 that weft's own reader refused)
cp c1.log c.log
for o in 372 600 808; do patch c.log $o '\377\377\377\377'; done
run 1 "$PROBED
weft: error: c.log: byte offset 352: record CLIENT_JOIN (3), field client_id: client -1 is the profile's value for no client (no_client): expected the id of one" \
	import charisma c.log -o imp1
[ -e imp1 ] && WHY="${WHY}imp1 was written; "
result charisma-no-client-sentinel "$WHY"

# another negative client keeps its number (tid -2), readable back
cp c1.log c.log
for o in 372 600 808; do patch c.log $o '\376\377\377\377'; done
run 0 "$PROBED" import charisma c.log -o imp2
[ "$WHY" = "" ] && run 0 "" top imp2
[ "$WHY" = "" ] && [ ! -d imp2/loom.node-2/proc.2/thread.-2 ] && WHY="no stream thread.-2: $(ls -R imp2 | tr '\n' ' ')"
result charisma-negative-client "$WHY"

# a start_date whose nanoseconds overflow 64 bits (8-byte time_t profile)
cat >t8.prof <<'PROF'
byte = 1 unsigned 1
char = 1 unsigned 1
u_short = 2 unsigned 2
int = 4 signed 4
long = 4 signed 4
u_long = 4 unsigned 4
time_t = 8 signed 8
double = 8 float 8
TimestampType = 8 unsigned 8
BigInt = 8 signed 8
TraceAppId = 4 signed 4
TraceClientId = 4 signed 4
TraceUserId = 4 signed 4
TraceFileId = 4 signed 4
TraceFileDesc = 4 signed 4
TraceAsyncId = 4 signed 4
name_length = 32
path_length = 128
align_max = 0
tail_padding = yes
array_size = one_element
rw_app_fields = present
no_app = all_ones
no_client = all_ones
nodes = per_client
PROF
"$WEFT" synth --format charisma --profile t8.prof -o c8.log --apps 1 --clients 1 --size 600 --seed 1 >/dev/null 2>&1
patch c8.log 16 '\330\374\377\377\377\377\377\177' # 9223372036854775000 s
run 1 "weft: error: c8.log: byte offset 16: record HEADER (0), fields start_date (9223372036854775000 s) and timestamp (1000 ticks of 1e-06 s): the clock origin they give is out of range: expected start_date minus timestamp within 1678..2262 (ns in 64 bits)" \
	emu --charisma-profile t8.prof -o e8 c8.log
[ -e e8 ] && WHY="${WHY}e8 was written; "
result charisma-origin-overflow "$WHY"

# ---- item 5: input checks ---------------------------------------------------------

# the trace small with its first thread's stream.json changed by a command
# (reading the file on stdin, writing it on stdout): the copy is $1
jcase() {
	rm -rf "$1" && cp -R small "$1"
	J=$(find "$1" -name stream.json | LC_ALL=C sort | head -n 1)
	shift
	"$@" <"$J" >"$J.new" && mv "$J.new" "$J"
}
# at TEXT: the byte offset of TEXT in $J
at() { grep -bo -F -e "$1" "$J" | head -n 1 | cut -d: -f1; }

jcase jnul sed 's/"loom": "node00"/"loom": "node\\u0000zz"/'
o=$(at '\u0000')
run 1 "weft: error: $J: byte offset $o: \\u0000 inside a string: names and values cannot hold a NUL" top jnul
result json-escaped-nul "$WHY"

jcase jraw cat
o=$(($(at '"node00"') + 5))
{ head -c "$o" "$J"; printf '\000'; tail -c +$((o + 1)) "$J"; } >"$J.new" && mv "$J.new" "$J"
run 1 "weft: error: $J: byte offset $o: a NUL byte inside a string: names and values cannot hold one" top jraw
result json-raw-nul "$WHY"

deep=$(printf '%1001s' '' | tr ' ' '[')$(printf '%1001s' '' | tr ' ' ']')
jcase jdeep sed "s/\"version\": 3,/\"version\": 3, \"deep\": $deep,/"
o=$(($(at '"deep"') + 8 + 999))
run 1 "weft: error: $J: byte offset $o: arrays and objects nested more than 1000 deep (weft's JSON reader stops there)" top jdeep
result json-nested-too-deep "$WHY"

# 1000 levels are fine
deep=$(printf '%999s' '' | tr ' ' '[')$(printf '%999s' '' | tr ' ' ']')
jcase jdeep2 sed "s/\"version\": 3,/\"version\": 3, \"deep\": $deep,/"
run 0 "" top jdeep2
result json-nested-1000 "$WHY"

# NUL bytes in text logs: the line and the byte offset, never a quote cut short
"$WEFT" synth --format picl -o p.log --procs 2 -n 50 --seed 1 >/dev/null 2>&1
"$WEFT" synth --format picl -o pbig.log --procs 2 -n 5000 --seed 1 >/dev/null 2>&1
"$WEFT" synth --format visandor -o v.log --agents 2 -n 20 >/dev/null 2>&1
nulline() { # FILE LINE PREFIX OUT: line LINE of FILE becomes PREFIX, a NUL, "1 0 0"
	{ head -n $(($2 - 1)) "$1"; printf '%s\0001 0 0\n' "$3"; tail -n +$(($2 + 1)) "$1"; } >"$4"
	echo $(($(head -n $(($2 - 1)) "$1" | wc -c) + ${#3}))
}
o=$(nulline p.log 3 "-3 -901 0.0000" pn.log)
run 1 "weft: error: pn.log:3: byte offset $o: a NUL byte: a text log has none" emu --format picl -o x pn.log
result picl-nul-forced "$WHY"
run 1 "weft: error: pn.log: not an ovni trace directory, and not a log in a format weft recognises (charisma, visandor, picl): line 3, byte offset $o: a NUL byte; if it is one, name it (emu --format NAME, import NAME FILE) to see what does not match" \
	emu -o x pn.log
result picl-nul-detect "$WHY"
o=$(nulline pbig.log 3001 "-3 -901 0.0000" pn2.log) # past what detection reads
run 1 "weft: error: pn2.log:3001: byte offset $o: a NUL byte: a text log has none" emu -o x pn2.log
result picl-nul-late "$WHY"
o=$(nulline v.log 3 "ab" vn.log)
run 1 "weft: error: vn.log:3: byte offset $o: a NUL byte: a text log has none" emu --format visandor -o x vn.log
result visandor-nul "$WHY"
printf '0\000\n' >vf.log
run 1 "weft: error: vf.log:1: byte offset 1: a NUL byte: a text log has none" emu --format visandor -o x vf.log
result visandor-nul-flag-line "$WHY"

# an empty file (sniff() did NULL + 0, UB) and a first line no format starts so
: >empty.log
run 1 "weft: error: empty.log: not a PICL trace: no line looks like a PICL record" emu --format picl -o x empty.log
result picl-empty "$WHY"
run 1 "weft: error: empty.log: not an ovni trace directory, and not a log in a format weft recognises (charisma, visandor, picl): the file is empty; if it is one, name it (emu --format NAME, import NAME FILE) to see what does not match" \
	top empty.log
result detect-empty "$WHY"
{ echo "garbage"; cat p.log; } >pg.log
run 1 "weft: error: pg.log: not an ovni trace directory, and not a log in a format weft recognises (charisma, visandor, picl): line 1 'garbage' starts none of them; if it is one, name it (emu --format NAME, import NAME FILE) to see what does not match" \
	top pg.log
result detect-first-line "$WHY"
run 1 "weft: error: pg.log:1: record of 1 fields: expected at least 6 (record type, event type, timestamp, processor, process, number of data fields)" \
	emu --format picl -o x pg.log
result detect-first-line-forced "$WHY"

# ---- item 6: wrong answers --------------------------------------------------------

# weft stats agrees with thread.prv on the time in every and-fork and
# or-branch state of every agent (stats dropped the Idle time before an
# agent's first event: its state was set only when Paraver was written)
prv_times() { # DIR: "row:state ns" summed over thread.prv's state records
	awk -F: '$1 == 1 { s[$5 ":" $8] += $7 - $6 } END { for (k in s) print k, s[k] }' "$1/thread.prv" |
		LC_ALL=C sort
}
stats_times() { # LOG DIR MODEL: the same from weft stats, labels as in thread.pcf
	"$WEFT" stats "$1" 2>/dev/null | awk -v pcf="$2/thread.pcf" -v m="$3" '
		BEGIN { while ((getline l < pcf) > 0) { if (l == "STATES") on = 1; else if (l == "") on = 0;
			else if (on) { v = l; sub(/ .*/, "", v); n = l; sub(/^[0-9]+ /, "", n); id[n] = v } } }
		$2 == m && $3 == "state" && $(NF - 2) > 0 { split($1, t, "/"); n = $5; for (i = 6; i <= NF - 3; i++) n = n " " $i;
			printf "%s:%s %d\n", t[3], id[n], $(NF - 2) * 1e9 + 0.5 }' | LC_ALL=C sort
}
for kind in and or; do
	"$WEFT" synth --format visandor -o "v$kind.log" --kind $kind --agents 3 -n 60 >/dev/null 2>&1
	"$WEFT" emu -o "v$kind" "v$kind.log" >/dev/null 2>&1
	model=andfork
	[ $kind = or ] && model=orbranch
	a=$(prv_times "v$kind")
	b=$(stats_times "v$kind.log" "v$kind" $model)
	WHY=
	[ -n "$a" ] && [ "$a" = "$b" ] || WHY="thread.prv: $(echo $a), stats: $(echo $b)"
	result "stats-visandor-$kind-agrees-with-prv" "$WHY"
done

# an or-branch cut and then failed ends once: its node stays open for the
# other branch (it closed early, and branch 1's events found no node)
printf '1\n 1 5 0 0 1000 0\n 4 20 1 2 1000 0\n 9 21 1 0 1000 0\n 10 26 1 0 1000 0\n 11 23 1 0 1000 0\n 12 21 1 1 1001 1\n 15 22 1 1 1001 1\n 16 6 0 0 1000 0\n' >cutfail.log
run 0 "" emu --strict -q -o cutfail cutfail.log
result orbranch-cut-then-fail "$WHY"

# dump --stream with a drift table prints the times of the whole trace (the
# reference host's first event placed t_ref only when its streams were shown)
bytes() { for b in "$@"; do printf "\\$(printf '%03o' "$b")"; done; }
u64le() { _v=$1; _i=0; while [ $_i -lt 8 ]; do bytes $((_v & 255)); _v=$((_v >> 8)); _i=$((_i + 1)); done; }
ovni_stream() { # DIR LOOM TID CLOCK...: a thread stream with OHp/OHr events at the clocks
	mkdir -p "$1"
	printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread","tid":%s,"pid":%s,"loom":"%s","app_id":1,"loom_cpus":[{"index":0,"phyid":0}],"finished":1,"require":{"ovni":"1.1.0"}}}\n' \
		"$3" "$3" "$2" >"$1/stream.json"
	_d=$1
	shift 3
	{ printf 'ovni'; bytes 1 0 0 0; _m=OHp; for _c in "$@"; do bytes 0; printf '%s' $_m; u64le "$_c"; _m=OHr; done; } >"$_d/stream.obs"
}
ovni_stream drift/loom.h0/proc.1/thread.1 h0 1 1000 2000
ovni_stream drift/loom.h1/proc.2/thread.2 h1 2 1000000000 1000000100
{
	printf '%-20s %-20s %-20s\n' wallclock h0 h1
	printf '%-20s %-20s %-20s\n' 1700000000.000000 0 0
	printf '%-20s %-20s %-20s\n' 1700000001.000000 0 1000000
} >drift.txt
"$WEFT" dump -c drift.txt drift 2>/dev/null | grep ' h1/' >"$IO/all"
"$WEFT" dump -c drift.txt --stream loom.h1 drift 2>/dev/null >"$IO/one"
WHY=
[ -s "$IO/all" ] && cmp -s "$IO/all" "$IO/one" || WHY="merged: $(cat "$IO/all" | tr '\n' ' '), --stream: $(cat "$IO/one" | tr '\n' ' ')"
result dump-stream-drift-same-times "$WHY"

# an ovni trace (its clock taken as absolute) and a CHARISMA log of 1992: 24
# years apart by their absolute clocks, refused without --align (it drew a
# 24-year timeline without a word); the offset it suggests works
run 1 "weft: c1.log: CHARISMA machine profile charisma-default (probed on the header record)
weft: warning: only 1 of 2 looms have rank information; ordering looms by name
weft: error: c1.log starts 24.1 years after small by their absolute clocks (an ovni trace's own clock, a converted log's start date): they are not one run; to show them on one timeline pass --align c1.log=-759999000.000001000s (starts it with small) or another offset" \
	emu -o mixed small c1.log
[ -e mixed ] && WHY="${WHY}mixed was written; "
result inputs-decades-apart "$WHY"
run 0 "weft: warning: only 1 of 2 looms have rank information; ordering looms by name" emu -q -o mixed --align c1.log=-759999000.000001000s small c1.log
result inputs-decades-apart-aligned "$WHY"

# ---- item 8: options ----------------------------------------------------------------

# dump, top and query read a CHARISMA log of a non-default profile, and a
# VisAndOr log in another time unit, as emu does
"$WEFT" synth --format charisma --profile t8.prof -o c8top.log --apps 1 --clients 1 --size 600 --seed 1 >/dev/null 2>&1
run 0 "" top --charisma-profile t8.prof c8top.log
[ "$WHY" = "" ] && [ "$(head -n 1 "$IO/out")" != "FC.          1" ] && WHY="top printed $(head -n 1 "$IO/out")"
result top-charisma-profile "$WHY"
run 0 "" dump --charisma-profile t8.prof c8top.log
[ "$WHY" = "" ] && [ "$(head -n 1 "$IO/out")" != "1001000 FP+ node0/2/1 joins its application" ] &&
	WHY="dump printed $(head -n 1 "$IO/out")"
result dump-charisma-profile "$WHY"
run 0 "" query --charisma-profile t8.prof c8top.log 'o: when mcv = "FO." do count'
[ "$WHY" = "" ] && [ "$(cat "$IO/out")" != "o: count 1" ] && WHY="query printed $(cat "$IO/out")"
result query-charisma-profile "$WHY"
run 0 "" dump --time-unit ms --format visandor vand.log
[ "$WHY" = "" ] && [ "$(sed -n 3p "$IO/out" | cut -d' ' -f1-2)" != "3000001 AF." ] && WHY="dump printed $(sed -n 3p "$IO/out")"
result dump-time-unit "$WHY"

# message fields have names in dump and query: size, tag, dst, src
run 0 "" dump p.log
grep -m 1 ' XS\[ ' "$IO/out" >"$IO/line"
[ "$WHY" = "" ] && [ "$(cat "$IO/line")" != "143001 XS[ picl.0/1/1 enters PICL event -21: sends 1096 bytes of type 1 to processor 1" ] &&
	WHY="dump printed $(cat "$IO/line")"
result dump-message-fields "$WHY"
run 0 "" query p.log 'big: when size > 1100 and tag = 1 do count' 'from1: when mcv = "XR]" and src = 1 do count' 'to1: when dst = 1 do count'
[ "$WHY" = "" ] && [ "$(cat "$IO/out" | tr '\n' ' ')" != "big: count 2 from1: count 3 to1: count 3 " ] &&
	WHY="query printed $(cat "$IO/out" | tr '\n' ' ')"
result query-message-fields "$WHY"

finish
