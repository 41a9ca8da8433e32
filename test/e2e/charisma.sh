#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the CHARISMA importer and the file I/O model.
#
#   WEFT=/abs/weft sh test/e2e/charisma.sh
#
# Every fixture is built here, byte by byte, with a small layout helper that
# places each field as C does (at the next multiple of its alignment, capped
# by the profile: 8 for charisma-default, 4 for charisma-align4, 1 for
# charisma-packed; the record rounded to its largest alignment). Checks:
#   - one file holding all 16 record types (RW with several requests, an
#     app-wide open/close, async RW + ASYNCH_END, APP_LOAD with 0 clients,
#     records out of time order), for each built-in profile and both byte
#     orders: the profile is probed and named; time per state (Reading,
#     Writing, Waiting for I/O) and bytes read/written per client equal the
#     hand computation; the 6 thread.prv bodies are identical; cpu.prv
#     holds each node's clients in an application and no clients in I/O
#     (one client per node); weft check;
#   - the header sizes per profile (8 + 144 / 135 / 140 bytes);
#   - a profile file: the iPSC RW variant, a machine-dependent record, all
#     clients on one node (its clients in I/O, hand-computed);
#   - weft import charisma FILE -o DIR, then emu DIR == emu FILE;
#   - malformed files: bad magic, version 2, truncated record, unknown record
#     type, count running past the file, ambiguous and impossible probes —
#     exact messages;
#   - the sort: a window too small for the file's disorder (WEFT_SORT_WINDOW)
#     spills sorted runs to TMPDIR, leaves nothing there, same output;
#   - weft synth --format charisma for each profile and byte order: probed,
#     weft check, le = be, deterministic, every record type, spill = window,
#     records handled on one thread = on two (WEFT_IMPORT_THREADS=1), import
#     read back, the iPSC variant.
# Prints "ok NAME" / "FAIL NAME: why"; exits 1 on failures, 2 if it cannot run.

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT

if "$WEFT" check --help >/dev/null 2>&1; then HAVE_CHECK=1; else HAVE_CHECK=0; fi


# ---- layout helper -------------------------------------------------------------
# F: the file; ORD: le|be; CAP: alignment cap; P: offset in the record; RA: the
# record's alignment so far.

emit() { # N VALUE: an N-byte integer in byte order ORD
	_n=$1
	_v=$2
	_s=
	_i=0
	while [ $_i -lt "$_n" ]; do
		if [ "$ORD" = le ]; then _sh=$((8 * _i)); else _sh=$((8 * (_n - 1 - _i))); fi
		_s="$_s\\$(printf '%03o' $(((_v >> _sh) & 255)))"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2059
	printf "$_s" >>"$F"
	P=$((P + _n))
}
pad() { # A: align to min(A, CAP)
	_a=$1
	[ "$_a" -gt "$CAP" ] && _a=$CAP
	[ "$_a" -gt "$RA" ] && RA=$_a
	while [ $((P % _a)) -ne 0 ]; do emit 1 0; done
}
fld() { pad "$2"; emit "$1" "$3"; } # SIZE ALIGN VALUE
byte() { fld 1 1 "$1"; }
ushort() { fld 2 2 "$1"; }
int() { fld 4 4 "$1"; } # int, long, u_long, time_t and the Trace*Id types
ts() { fld 8 8 "$1"; }  # TimestampType, BigInt
dbl() { # HEX: 16 hex digits of an IEEE double, most significant first
	pad 8
	_h=$1
	_k=0
	while [ $_k -lt 8 ]; do
		if [ "$ORD" = be ]; then _o=$((2 * _k)); else _o=$((14 - 2 * _k)); fi
		_c=$(printf '%s' "$_h" | cut -c $((_o + 1))-$((_o + 2)))
		emit 1 $((0x$_c))
		_k=$((_k + 1))
	done
}
str() { # N TEXT: char[N], NUL padded
	_t=$2
	_k=0
	while [ $_k -lt "$1" ]; do
		if [ -n "$_t" ]; then
			emit 1 "$(printf '%d' "'$(printf '%s' "$_t" | cut -c1)")"
			_t=$(printf '%s' "$_t" | cut -c2-)
		else
			emit 1 0
		fi
		_k=$((_k + 1))
	done
}
rbegin() { P=0; RA=1; ushort "$1"; }
rend() { pad "$RA"; }
req() { # OFFSET MEMOFF SIZE CLIENT: one TraceIORequest (aligned as its struct)
	pad 8
	ts "$1"
	int "$2"
	ts "$3"
	int "$4"
	pad 8
}
magic() { P=0; RA=1; int 19088743; int "${1:-1}"; } # 0x01234567, version

header() { # SYSTEM_TYPE [UNIT_HEX]
	rbegin 0
	int 700000000 # start_date 1992-03-07
	int 0         # gmt_offset
	ts 0          # timestamp
	int 2164392708
	byte "$1"
	int 1
	str 80 "NX/2 R3.3"
	int 128
	int 8
	int 4
	int 4
	int 16
	dbl "${2:-3eb0c6f7a0b5ed8d}" # 1e-6 s per tick: 1 tick = 1000 ns
	rend
}
app_load() { # T APP CLIENT... (0 clients: the [1] element is there, as zero)
	_t=$1
	_app=$2
	shift 2
	rbegin 1
	ts "$_t"
	str 32 "ocean"
	str 128 "/usr/nas/ocean"
	int 501
	int 65536
	int "$_app"
	ushort $#
	pad 4
	_ao=$P
	if [ $# -eq 0 ]; then int 0; fi
	for _c in "$@"; do int "$_c"; done
	atail "$_ao" 4
}
# atail ARRAY_OFFSET ELEMENT_SIZE: the [1] idiom: after the last element comes
# the tail padding of the one-element struct (not a re-rounding).
atail() {
	_s1=$((($1 + $2 + RA - 1) / RA * RA))
	_k=$((_s1 - $1 - $2))
	while [ $_k -gt 0 ]; do emit 1 0; _k=$((_k - 1)); done
}
rec_app_client() { rbegin "$1"; ts "$2"; int "$3"; int "$4"; rend; } # TYPE T APP CLIENT
app_exit() { rbegin 2; ts "$1"; int "$2"; rend; }
open_rec() { # TYPE T APP|CLIENT FILE FD SIZE FLAGS
	rbegin "$1"
	ts "$2"
	int "$3"
	str 32 "data"
	str 128 "/cfs/data"
	int "$4"
	int "$5"
	ts "$6"
	int 699999000
	byte "$7"
	rend
}
close_rec() { rbegin "$1"; ts "$2"; int "$3"; int "$4"; ts "$5"; rend; } # TYPE T WHO FD SIZE
rw() { # START END FD OP AID APP N, then the requests (req ...) and rend
	rbegin 9
	ts "$1"
	ts "$2"
	int "$3"
	byte "$4"
	int "$5"
	int "$6"
	ushort "$7"
	pad 8
	AO=$P
}
rwend() { atail "$AO" "$ESIZE"; } # after the requests of rw
aend() { rbegin 14; ts "$1"; ts "$2"; int "$3"; int "$4"; int "$5"; rend; } # CALL END AID CLIENT APP
size_rec() { rbegin "$1"; ts "$2"; int "$3"; int "$4"; ts "$5"; ts "$6"; rend; }
link_rec() { rbegin "$1"; ts "$2"; int "$3"; int "$4"; ushort "$5"; rend; }
fcntl_rec() { rbegin 15; ts "$1"; int "$2"; int "$3"; int "$4"; int "$5"; rend; }

# The scenario (times in ticks of 1 us). Clients 3, 5, 9 in application 7
# (9 joins), client 12 joins application 8 (loaded with 0 clients).
scenario() {
	magic
	header 1
	app_load 100 7 3 5
	rec_app_client 3 110 7 9
	app_load 120 8
	rec_app_client 3 130 8 12
	rw 140 145 2 4 0 8 1; req 0 0 64 12; rwend                  # client 12 reads 64 B, 5 us
	open_rec 5 200 7 42 4 0 12                                  # APP_OPEN write|create
	open_rec 6 210 9 43 6 8192 1                                # CLIENT_OPEN read
	rw 300 350 4 2 0 7 3                                         # app-wide sync write, 50 us
	req 0 0 1000 3
	req 1000 0 2000 5
	req 3000 0 500 9
	rwend
	rw 400 420 6 4 0 7 1; req 0 0 4096 9; rwend                  # read 20 us
	rw 500 0 6 5 11 7 1; req 4096 0 8192 9; rwend                # async read
	aend 560 600 11 9 7                                          # waits 40 us
	size_rec 10 900 3 42 3500 8192                               # EXTEND (out of order)
	rw 700 760 4 6 0 7 1; req 5000 0 100 3; rwend                # write 60 us
	rw 800 830 4 4 0 7 1; req 0 0 300 5; rwend                   # read 30 us
	size_rec 11 910 5 42 8192 4000                               # TRUNCATE
	link_rec 12 920 9 43 2                                       # LINK
	link_rec 13 930 9 43 1                                       # UNLINK
	fcntl_rec 940 3 4 3 0
	close_rec 8 950 9 6 12288                                    # CLIENT_CLOSE
	close_rec 7 960 7 4 4000                                     # APP_CLOSE
	rec_app_client 4 970 7 9                                     # APP_CLIENT_LEAVE
	app_exit 1000 7
	app_exit 1000 8
}

# Expected per thread (tid = client + 1): "tid read_ns write_ns wait_ns bytes_read bytes_written"
EXPECTED='4 0 110000 0 0 1100
6 30000 50000 0 300 2000
10 20000 50000 40000 12288 500
13 5000 0 0 64 0'

# cpu.prv body: client 3 (node03, row 1) and 5 (node05, row 2) load at 100
# us (time 0), 9 (node09, row 3) joins at 110, 12 (node12, row 4) at 130; 9
# leaves at 970, application 7 (3, 5) and 8 (12) exit at 1000. Loom names
# are padded to the widest node number, so rows come in node order, and so
# do the records of one time (the loom folders are named as the looms).
CPU_EXPECTED='2:1:1:1:1:0:1091:1
2:3:1:2:1:0:1091:1
2:5:1:3:1:10000:1091:1
2:7:1:4:1:30000:1091:1
2:5:1:3:1:870000:1091:0
2:1:1:1:1:900000:1091:0
2:3:1:2:1:900000:1091:0
2:7:1:4:1:900000:1091:0'

# summary DIR: the same line per thread from thread.prv and thread.row.
summary() {
	sed -n '/^LEVEL THREAD/,$p' "$1/thread.row" | awk 'NR > 1 && NF { split($2, b, "."); print b[2] }' >"$tmp/tids"
	# rows in Paraver order (appl, task, thread) are the distinct ids of the body, sorted
	awk -F: 'FNR > 1 { print $3 ":" $4 ":" $5 }' "$1/thread.prv" | sort -t: -k1,1n -k2,2n -k3,3n -u >"$tmp/keys"
	awk -F: '
	FILENAME == ARGV[1] { tid[FNR] = $0; next }
	FILENAME == ARGV[2] { key[$0] = FNR; next }
	FNR == 1 { next }
	{ k = key[$3 ":" $4 ":" $5] }
	$1 == 1 { d = $7 - $6; if ($8 == 50) rd[k] += d; if ($8 == 51) wr[k] += d; if ($8 == 52) wt[k] += d }
	$1 == 2 { for (i = 7; i < NF; i += 2) { if ($i == 1070) br[k] += $(i + 1); if ($i == 1071) bw[k] += $(i + 1) } }
	END { for (r = 1; r in tid; r++) printf "%s %d %d %d %d %d\n", tid[r], rd[r], wr[r], wt[r], br[r], bw[r] }
	' "$tmp/tids" "$tmp/keys" "$1/thread.prv" | sort -n
}

check_prv() { # NAME DIR
	[ $HAVE_CHECK = 1 ] || return 0
	if "$WEFT" check -q "$2/thread.prv" "$2/cpu.prv" >"$tmp/out" 2>&1; then
		result "$1" ""
	else
		result "$1" "weft check: $(head -n 2 "$tmp/out" | tr '\n' ' ')"
	fi
}

# ---- the scenario, per profile and byte order ------------------------------------

for prof in default packed align4; do
	case $prof in
	default) CAP=8 HSIZE=144 ESIZE=32 ;;
	packed) CAP=1 HSIZE=135 ESIZE=24 ;;
	align4) CAP=4 HSIZE=140 ESIZE=24 ;;
	esac
	for ORD in le be; do
		name=$prof-$ORD
		F=$tmp/hdr-$name.bin
		: >"$F"
		magic
		header 3
		sz=$(wc -c <"$F")
		result "$name header size" "$([ "$sz" -eq $((8 + HSIZE)) ] || echo "$sz bytes, expected $((8 + HSIZE))")"

		F=$tmp/$name.bin
		: >"$F"
		scenario
		out=$tmp/out-$name
		"$WEFT" emu -o "$out" "$F" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -ne 0 ]; then
			result "$name emu" "exit $rc: $(head -n 3 "$tmp/err" | tr '\n' ' ')"
			continue
		fi
		result "$name emu" ""
		want="weft: $F: CHARISMA machine profile charisma-$prof (probed on the header record)"
		result "$name probe named" "$(grep -qxF "$want" "$tmp/err" || echo "stderr: $(head -c 300 "$tmp/err")")"
		summary "$out" >"$tmp/got"
		printf '%s\n' "$EXPECTED" >"$tmp/want"
		result "$name states and bytes" "$(cmp -s "$tmp/got" "$tmp/want" || diff "$tmp/want" "$tmp/got" | tr '\n' '|')"
		grep -q '^50 Reading$' "$out/thread.pcf" && grep -q '^51 Writing$' "$out/thread.pcf" &&
			grep -q '^52 Waiting for I/O$' "$out/thread.pcf"
		result "$name state labels" "$([ $? -eq 0 ] || echo "missing in thread.pcf")"
		check_prv "$name weft check" "$out"
		# every record of the scenario, exactly (worked out by hand:
		# test/e2e/coverage/README.md, "charisma-scenario")
		cx=$here/coverage/charisma-scenario.expect
		awk -F: -v slo=50 -v shi=54 -v tlo=1070 -v thi=1080 -f "$here/coverage/canon.awk" "$out/thread.prv" |
			LC_ALL=C sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n >"$tmp/got"
		grep -v '^#' "$cx" | LC_ALL=C sort -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n >"$tmp/want"
		result "$name every record exactly" \
			"$(cmp -s "$tmp/want" "$tmp/got" || diff "$tmp/want" "$tmp/got" | grep '^[<>]' | head -n 8 | tr '\n' '|')"
		tail -n +2 "$out/thread.prv" >"$tmp/body-$name"
		if [ "$name" != default-le ]; then
			result "$name body = default-le body" \
				"$(cmp -s "$tmp/body-default-le" "$tmp/body-$name" || diff "$tmp/body-default-le" "$tmp/body-$name" | head -n 4 | tr '\n' '|')"
		fi
		# cpu.prv: one node per client: clients in an application (1091) on
		# each node's CPU (rows: node03, node05, node09, node12), no clients in
		# I/O (1090: it would repeat each client's state)
		tail -n +2 "$out/cpu.prv" >"$tmp/got"
		printf '%s\n' "$CPU_EXPECTED" >"$tmp/want"
		result "$name cpu.prv" "$(cmp -s "$tmp/got" "$tmp/want" || diff "$tmp/want" "$tmp/got" | head -n 6 | tr '\n' '|')"
		# the explicit profile gives the same
		"$WEFT" emu -q --charisma-profile charisma-$prof -o "$out.p" "$F" >/dev/null 2>"$tmp/err"
		tail -n +2 "$out.p/thread.prv" 2>/dev/null | cmp -s - "$tmp/body-$name"
		result "$name --charisma-profile" "$([ $? -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
	done
done

# The Paraver date is the trace's start_date (1992-03-07 20:26 UTC).
head -n 1 "$tmp/out-default-le/thread.prv" | grep -q '^#Paraver (07/03/1992 at 20:26)'
result "paraver date" "$([ $? -eq 0 ] || head -c 60 "$tmp/out-default-le/thread.prv")"

# ---- weft import, read back ------------------------------------------------------------

F=$tmp/default-be.bin
"$WEFT" import charisma "$F" -o "$tmp/imp" >/dev/null 2>"$tmp/err"
rc=$?
result "import" "$([ $rc -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
n=$(find "$tmp/imp" -name stream.obs | wc -l)
result "import streams" "$([ "$n" -eq 4 ] || echo "$n streams, expected 4")"
"$WEFT" emu -q -o "$tmp/imp-out" "$tmp/imp" >/dev/null 2>"$tmp/err"
tail -n +2 "$tmp/imp-out/thread.prv" 2>/dev/null | cmp -s - "$tmp/body-default-le"
result "import read back" "$([ $? -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"

# ---- a profile file: the iPSC RW variant, a machine-dependent record, one node -------------

cat >"$tmp/ipsc.profile" <<'PROF'
# iPSC/860: RW records without appl_id and num_clients
base = charisma-default
rw_app_fields = absent
nodes = one
record.16 = disk_config: int disk, int capacity_mb, char[6] model
PROF
CAP=8
for ORD in le be; do
	F=$tmp/ipsc-$ORD.bin
	: >"$F"
	magic
	header 1
	rbegin 16; int 0; int 760; str 6 "MAXTOR"; rend                # 2+2+4+4+6 = 18 -> 20
	app_load 100 1 0 1
	open_rec 5 110 1 77 3 0 1
	rbegin 9; ts 200 ; ts 260; int 3; byte 4; int 0; req 0 0 512 0; rend    # 72 bytes
	rbegin 9; ts 300 ; ts 310; int 3; byte 6; int 0; req 512 0 256 1; rend
	rbegin 9; ts 400 ; ts 0; int 3; byte 5; int 21; req 768 0 128 1; rend
	aend 450 470 21 1 -1
	app_exit 500 1
	"$WEFT" emu -q --charisma-profile "$tmp/ipsc.profile" -o "$tmp/ipsc-$ORD" "$F" >/dev/null 2>"$tmp/err"
	rc=$?
	result "ipsc-$ORD emu" "$([ $rc -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
	[ $rc -eq 0 ] || continue
	summary "$tmp/ipsc-$ORD" >"$tmp/got"
	printf '1 60000 0 0 512 0\n2 0 10000 20000 128 256\n' >"$tmp/want"
	result "ipsc-$ORD states and bytes" "$(cmp -s "$tmp/got" "$tmp/want" || diff "$tmp/want" "$tmp/got" | tr '\n' '|')"
	n=$(sed -n 's/^LEVEL NODE SIZE //p' "$tmp/ipsc-$ORD/thread.row")
	result "ipsc-$ORD one node" "$([ "$n" = 1 ] || echo "$n nodes")"
	# both clients on the node: 2 in the application from 100 us (time 0) to
	# 500; in I/O (1090): client 0 reads 200-260, client 1 writes 300-310 and
	# waits 450-470; two values of 1091 at one instant are two lines (one
	# value of a type a record, doc/paraver-output.md)
	tail -n +2 "$tmp/ipsc-$ORD/cpu.prv" >"$tmp/got"
	printf '%s\n' 2:1:1:1:1:0:1091:1 2:1:1:1:1:0:1091:2 2:1:1:1:1:100000:1090:1 2:1:1:1:1:160000:1090:0 \
		2:1:1:1:1:200000:1090:1 2:1:1:1:1:210000:1090:0 2:1:1:1:1:350000:1090:1 \
		2:1:1:1:1:370000:1090:0 2:1:1:1:1:400000:1091:1 2:1:1:1:1:400000:1091:0 >"$tmp/want"
	result "ipsc-$ORD clients in I/O on the node" "$(cmp -s "$tmp/got" "$tmp/want" || diff "$tmp/want" "$tmp/got" | head -n 6 | tr '\n' '|')"
	check_prv "ipsc-$ORD weft check" "$tmp/ipsc-$ORD"
done

# open flags 128 (a bit no label names, issue 24): the value is written as
# read, and weft check accepts the outputs (a warning: Paraver shows 128)
ORD=le
F=$tmp/flags128.bin
: >"$F"
magic
header 1
rbegin 16; int 0; int 760; str 6 "MAXTOR"; rend
app_load 100 1 0 1
open_rec 5 110 1 77 3 0 128
rbegin 9; ts 200 ; ts 260; int 3; byte 4; int 0; req 0 0 512 0; rend
app_exit 500 1
"$WEFT" emu -q --charisma-profile "$tmp/ipsc.profile" -o "$tmp/flags128" "$F" >/dev/null 2>"$tmp/err"
rc=$?
result "open flags 128: emu" "$([ $rc -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
if [ $rc -eq 0 ]; then
	result "open flags 128: written" "$(grep -q ':1080:128' "$tmp/flags128/thread.prv" || echo "no 1080:128")"
	check_prv "open flags 128: weft check" "$tmp/flags128"
fi

# ---- hand-built logs of issue 30 (test/e2e/charisma/README.md) ---------------------

# system_type 9: not in the seed's 1..8 list, whose "/* etc... */" says more
# machines exist. The probe keeps charisma-default; client 3 (tid 4) reads
# 64 bytes from 140 to 145 us: Reading 5000 ns.
ORD=le
CAP=8
F=$tmp/sys9.bin
: >"$F"
magic
header 9
app_load 100 7 3
rw 140 145 2 4 0 7 1; req 0 0 64 3; rwend
app_exit 200 7
rm -rf "$tmp/sys9"
if "$WEFT" emu -o "$tmp/sys9" "$F" >"$tmp/out" 2>"$tmp/err"; then
	expect "system_type 9: probed" "$(grep -c "CHARISMA machine profile charisma-default (probed on the header record)" "$tmp/err")" 1
	expect "system_type 9: read 64 bytes in 5 us" "$(summary "$tmp/sys9")" "4 5000 0 0 64 0"
else
	fail "system_type 9" "$(head -n 1 "$tmp/err")"
fi
# an error of the run on a converted log names the log, not the temporary
# folder it was converted into
"$WEFT" emu -q --charisma-profile charisma-default --from 1s -o "$tmp/sys9-from" "$F" >/dev/null 2>"$tmp/err"
expect "error names the log" "$(head -n 1 "$tmp/err")" "weft: error: $F: --from 1000000000 ns is past the end of the trace (100000 ns)"

# ---- malformed files ------------------------------------------------------------------------

# bad NAME WANT [OPTIONS]: weft import charisma exits 1 with exactly WANT.
bad() {
	_n=$1
	_w=$2
	shift 2
	"$WEFT" import "$@" charisma "$F" -o "$tmp/bad-$_n" >"$tmp/out" 2>"$tmp/err"
	_rc=$?
	if [ $_rc -ne 1 ]; then
		result "malformed $_n" "exit $_rc, expected 1 ($(head -c 300 "$tmp/err"))"
	elif ! grep -qxF "weft: error: $_w" "$tmp/err"; then
		result "malformed $_n" "stderr: $(head -c 400 "$tmp/err")"
	elif [ -e "$tmp/bad-$_n" ]; then
		result "malformed $_n" "left $tmp/bad-$_n behind"
	else
		result "malformed $_n" ""
	fi
}
ORD=le
CAP=8
F=$tmp/m-magic.bin
printf '\211\253\315\357\001\000\000\000' >"$F"
bad magic "$F: byte offset 0: field MAGIC: expected 67 45 23 01 (little-endian) or 01 23 45 67 (big-endian), found 89 ab cd ef: not a CHARISMA trace"

F=$tmp/m-version.bin
: >"$F"
ORD=be
magic 2
header 1
bad version "$F: byte offset 4: field FORMAT_VERSION: expected 1, found 2"
ORD=le

F=$tmp/m-trunc.bin
: >"$F"
magic
header 1
rbegin 9; ts 10; int 20 # 20 bytes of an 80-byte RW: endtime is cut
bad truncated "$F: byte offset 152: record RW (9), field endtime: the record runs past the end of the file (it needs at least 80 bytes, 20 are left)" --charisma-profile charisma-default

F=$tmp/m-unknown.bin
: >"$F"
magic
header 1
app_load 100 1 1
rbegin 77; ts 5; rend
bad unknown-type "$F: byte offset 352: record type 77, field record_type: unknown record type (CHARISMA defines 0..15; declare machine-dependent records in the profile as record.77 = NAME: TYPE FIELD, ...)" --charisma-profile charisma-default

# an end time whose nanoseconds wrap around 64 bits: refused, not written
# before its start (fuzz_charisma; the start time was checked alone)
F=$tmp/m-endtime.bin
: >"$F"
magic
header 1
app_load 100 1 1
rbegin 9; ts 200; ts 18446744073709552; int 3; byte 4; int 0; req 0 0 512 1; ts 0; rend
bad end-time-overflow "$F: byte offset 352: record RW (9), field endtime: 18446744073709552 ticks overflow 64-bit nanoseconds" --charisma-profile charisma-default

F=$tmp/m-count.bin
: >"$F"
magic
header 1
rbegin 1; ts 100; str 32 x; str 128 y; int 1; int 0; int 1; ushort 1000; int 4; rend
bad count "$F: byte offset 152: record APP_LOAD (1), field num_clients: 1000 clients run past the end of the file (the record needs 4196 bytes, 200 are left)" --charisma-profile charisma-default

# A record's handling fails (RW naming a client in no application, at 352)
# before the scan reaches a truncated record (at 456): with records held in
# the sort window the scan's error comes first; with a window of 1 the RW is
# handed on when the EXIT after it comes, and the handling's error does; the
# same with the records handled on the scanning thread or on a second one.
F=$tmp/m-client.bin
: >"$F"
magic
header 1
app_load 100 1 1
rw 140 145 2 4 0 1 1; req 0 0 64 5; rwend
app_exit 200 1
rbegin 9; ts 10; int 20
for thr in 1 2; do
	export WEFT_IMPORT_THREADS=$thr
	bad "scan-first-$thr" "$F: byte offset 456: record RW (9), field endtime: the record runs past the end of the file (it needs at least 80 bytes, 20 are left)" --charisma-profile charisma-default
	export WEFT_SORT_WINDOW=1
	bad "handling-first-$thr" "$F: byte offset 352: record RW (9), field requests[0].client_id: client 5 is in no application (expected an earlier APP_LOAD or CLIENT_JOIN naming it)" --charisma-profile charisma-default
	unset WEFT_SORT_WINDOW WEFT_IMPORT_THREADS
done

F=$tmp/m-none.bin
: >"$F"
magic
header 0
bad probe-none "$F: byte offset 8: record HEADER (0): no built-in machine profile reads a plausible header (charisma-default: field system_type: expected a machine type, 1 or more, found 0; charisma-packed: field system_type: expected a machine type, 1 or more, found 0; charisma-align4: field timestamp_unit: expected a positive number of seconds per tick, found -4.18678e-151): pass --charisma-profile NAME|FILE"

# A header record (and the records after it) that charisma-default and
# charisma-align4 both read: the fields the two layouts place differently hold
# values both accept, and the bytes after the header are two EXIT records for
# one profile and EXIT, EXIT, JOIN for the other (little-endian).
F=$tmp/m-ambiguous.bin
: >"$F"
ORD=le
magic
emit 2 0; emit 2 0                 # record_type, padding
emit 4 700000000; emit 4 0         # start_date, gmt_offset (the same in both)
emit 4 0; emit 4 0; emit 4 0       # timestamp (default: 16..23; align4: 12..19, SystemId 20..23)
emit 4 3                           # default SystemId; align4 system_type 3 + padding
emit 4 3                           # default system_type 3 + padding; align4 md_version
emit 4 0                           # default md_version; align4 release_data starts
_k=0; while [ $_k -lt 80 ]; do emit 1 0; _k=$((_k + 1)); done # release_data (NULs in both)
emit 4 128; emit 4 8; emit 4 4; emit 4 4           # counts, one int apart in the two layouts
emit 4 2696277389; emit 4 1051772663               # align4 timestamp_unit 1e-6 (low, high)
emit 4 1051721730                  # default unit high word 0x3eb00002: align4 reads 02 00, an EXIT
emit 2 2; emit 2 0; emit 4 0       # default: EXIT at 152 (align4: its timestamp)
emit 4 1; emit 4 2; emit 4 1; emit 4 0             # default: timestamp, appl_id; align4: EXIT at 164
emit 2 2; emit 2 0; emit 2 3; emit 2 0             # default: EXIT at 176; align4: JOIN at 180
emit 4 50; emit 4 0; emit 4 1; emit 4 0            # timestamps, ids; both end at byte 200
bad probe-ambiguous "$F: byte offset 8: record HEADER (0): the header and the records after it are plausible with several machine profiles (charisma-default, charisma-align4): pass --charisma-profile NAME|FILE"

# ---- sorting: records out of order by more than the window are spilled -------------------

# The scenario has EXTEND (900) before RW records at 700 and 800: a window of
# 1 record overflows, the import restarts sorting through a temporary file
# in TMPDIR, and the output is the in-memory one.
F=$tmp/default-le.bin
mkdir -p "$tmp/sorttmp"
WEFT_SORT_WINDOW=1 TMPDIR=$tmp/sorttmp "$WEFT" emu -q -o "$tmp/spill" "$F" >/dev/null 2>"$tmp/err"
rc=$?
result "spill emu" "$([ $rc -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
grep -qF "weft: $F: records are out of time order by more than the sort window (1 records): sorting them through a temporary file" "$tmp/err"
result "spill announced" "$([ $? -eq 0 ] || head -c 300 "$tmp/err")"
tail -n +2 "$tmp/spill/thread.prv" 2>/dev/null | cmp -s - "$tmp/body-default-le" &&
	cmp -s "$tmp/spill/cpu.prv" "$tmp/out-default-le/cpu.prv"
result "spill output = in-memory output" "$([ $? -eq 0 ] || echo differs)"
n=$(find "$tmp/sorttmp" -type f | wc -l)
result "spill leaves no temporary file" "$([ "$n" -eq 0 ] || echo "$n files left in TMPDIR")"

# ---- weft synth --format charisma ------------------------------------------------------------

for prof in default packed align4; do
	for ORD in le be; do
		S=$tmp/synth-$prof-$ORD.bin
		"$WEFT" synth --format charisma --profile charisma-$prof --byte-order $ORD --size 300k --apps 3 \
			--clients 10 --seed 7 -o "$S" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		result "synth $prof-$ORD" "$([ $rc -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
		[ $rc -eq 0 ] || continue
		"$WEFT" emu -o "$tmp/so-$prof-$ORD" "$S" >/dev/null 2>"$tmp/err"
		rc=$?
		grep -qxF "weft: $S: CHARISMA machine profile charisma-$prof (probed on the header record)" "$tmp/err"
		found=$?
		result "synth $prof-$ORD emu, profile probed" "$([ $rc -eq 0 ] && [ $found -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
		# -q: not even the note
		rm -rf "$tmp/sq"
		"$WEFT" emu -q -o "$tmp/sq" "$S" >/dev/null 2>"$tmp/err"
		result "synth $prof-$ORD emu -q says nothing" "$([ $? -eq 0 ] && [ ! -s "$tmp/err" ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
		check_prv "synth $prof-$ORD weft check" "$tmp/so-$prof-$ORD"
	done
	tail -n +2 "$tmp/so-$prof-le/thread.prv" >"$tmp/sb-le" 2>/dev/null
	tail -n +2 "$tmp/so-$prof-be/thread.prv" 2>/dev/null | cmp -s - "$tmp/sb-le"
	result "synth $prof: le and be give the same body" "$([ $? -eq 0 ] || echo differs)"
done
S=$tmp/synth-default-le.bin
"$WEFT" synth --format charisma --profile charisma-default --byte-order le --size 300k --apps 3 --clients 10 \
	--seed 7 -o "$tmp/again.bin" >/dev/null 2>&1
result "synth deterministic" "$(cmp -s "$S" "$tmp/again.bin" || echo "same options, different bytes")"
"$WEFT" synth --format charisma --size 300k --apps 3 --clients 10 --seed 8 -o "$tmp/seed8.bin" >/dev/null 2>&1
result "synth seed matters" "$(cmp -s "$S" "$tmp/seed8.bin" && echo "seeds 7 and 8 give the same bytes")"
sz=$(wc -c <"$S")
result "synth size" "$([ "$sz" -ge 300000 ] && [ "$sz" -lt 310000 ] || echo "$sz bytes for --size 300k")"
"$WEFT" top "$S" >"$tmp/top" 2>/dev/null
missing=
for m in FP+ FP- FO. FOa FC. FCa FR[ FR] FW[ FW] FRd FWd FRA FWA FA[ FA] FE. FT. FL. FU. FF.; do
	awk -v m="$m" '$1 == m { f = 1 } END { exit !f }' "$tmp/top" || missing="$missing $m"
done
result "synth: every record type's events" "$([ -z "$missing" ] || echo "missing:$missing")"
rows=$(sed -n 's/^LEVEL THREAD SIZE //p' "$tmp/so-default-le/thread.row")
result "synth: one row per client" "$([ "$rows" = 10 ] || echo "$rows rows")"
# sorted through the spill path: the same Paraver trace
WEFT_SORT_WINDOW=16 "$WEFT" emu -q -o "$tmp/so-spill" "$S" >/dev/null 2>&1
cmp -s "$tmp/so-spill/thread.prv" "$tmp/so-default-le/thread.prv" && cmp -s "$tmp/so-spill/cpu.prv" "$tmp/so-default-le/cpu.prv"
result "synth: spilled sort = window sort" "$([ $? -eq 0 ] || echo differs)"
# records handled on a second thread (the default) or on the scanning one:
# the same trace, with many batches, with the default window and with a
# small one (the input is given back every few kB, or sorted by spills)
"$WEFT" synth --format charisma --size 2M --seed 3 -o "$tmp/big.bin" >/dev/null 2>&1
for w in "" 2000 40; do
	WEFT_SORT_WINDOW=$w "$WEFT" emu -q -o "$tmp/big2-$w" "$tmp/big.bin" >/dev/null 2>&1
	WEFT_IMPORT_THREADS=1 WEFT_SORT_WINDOW=$w "$WEFT" emu -q -o "$tmp/big1-$w" "$tmp/big.bin" >/dev/null 2>&1
	cmp -s "$tmp/big1-$w/thread.prv" "$tmp/big2-$w/thread.prv" && cmp -s "$tmp/big1-$w/cpu.prv" "$tmp/big2-$w/cpu.prv"
	result "synth: one thread = two threads (window ${w:-default})" "$([ $? -eq 0 ] || echo differs)"
done
cmp -s "$tmp/big2-/thread.prv" "$tmp/big2-40/thread.prv"
result "synth: window 40 = default window" "$([ $? -eq 0 ] || echo differs)"
# weft import, read back
"$WEFT" import charisma "$S" -o "$tmp/so-imp" >/dev/null 2>&1 &&
	"$WEFT" emu -q -o "$tmp/so-imp-out" "$tmp/so-imp" >/dev/null 2>&1
cmp -s "$tmp/so-imp-out/thread.prv" "$tmp/so-default-le/thread.prv"
result "synth: import read back" "$([ $? -eq 0 ] || echo differs)"
# the iPSC variant of a profile file
"$WEFT" synth --format charisma --profile "$tmp/ipsc.profile" --size 100k --clients 6 --apps 2 -o "$tmp/sipsc.bin" >/dev/null 2>"$tmp/err" &&
	"$WEFT" emu -q --charisma-profile "$tmp/ipsc.profile" -o "$tmp/sipsc" "$tmp/sipsc.bin" >/dev/null 2>>"$tmp/err"
result "synth ipsc profile" "$([ $? -eq 0 ] || head -n 2 "$tmp/err" | tr '\n' ' ')"
check_prv "synth ipsc weft check" "$tmp/sipsc"
"$WEFT" synth --format charisma --byte-order xe -o "$tmp/x.bin" >/dev/null 2>"$tmp/err"
rc=$?
result "synth bad byte order" "$([ $rc -eq 2 ] && grep -q "expected le or be, found 'xe'" "$tmp/err" || echo "exit $rc: $(head -c 200 "$tmp/err")")"

finish
