#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Malformed-input suite of `weft emu`: every case builds, byte by byte, a small
# ovni trace (loom "a", process 1, threads 1 and 2, CPUs index 0 and 1 with
# phyid 0 and 1, mark type 1 single "T1" and type 2 stack "T2") that breaks
# one rule of the ovni model, and checks that
#   - `weft emu -o OUT TRACE` exits 1 with the exact message on stderr (the
#     stream.obs file, the event MCV, its byte offset, the thread, the rule)
#     and leaves no .prv file in OUT;
#   - `weft emu -k -o OUT TRACE` (keep going) exits 0, prints the same text as
#     a warning and writes thread.prv (valid for `weft check`, when available).
# Then: clock-offset tables that are broken, broken drift tables and weft clock files, a host matching
# no loom, and usage errors (exit 2).
#
#   WEFT=/abs/path/to/weft sh test/malformed/emu.sh
#
# Needs only sh, printf and coreutils. Prints "ok NAME" or "FAIL NAME: why"
# per case, then "N passed, M failed"; exits 1 on failures, 2 if it cannot run.

set -u

. "$(dirname "$0")/../lib.sh"
need WEFT
IO=$tmp/io
mkdir "$IO" "$tmp/cases" || exit 2

# `weft check` is being written alongside this suite: use it once it works.
if "$WEFT" check --help >/dev/null 2>&1; then
	HAVE_CHECK=1
else
	HAVE_CHECK=0
	echo "note: '$WEFT check' is not usable; the Paraver validity checks are skipped"
fi

# The start of what weft said, on one line.
errtext() { head -n 3 "$IO/err" | head -c 400 | tr '\n' ' '; }


# ---- building blocks ---------------------------------------------------------

. "$top/test/obsbytes.sh" # bytes, i32le, i64le, hdr, ev (stream.obs byte by byte)

# The events the cases use, with their sizes in bytes:
ohx() { ev 15 OHx "$1"; i32le "$2"; i32le -1; i64le 0; } # CLOCK CPU (28)
st() { ev 0 "$1" "$2"; }                                  # MCV CLOCK (12)
oas() { ev 3 OAs "$1"; i32le "$2"; }                      # CLOCK CPU (16)
oar() { ev 7 OAr "$1"; i32le "$2"; i32le "$3"; }          # CLOCK CPU TID (20)
mark() { ev 11 "$1" "$2"; i64le "$3"; i32le "$4"; }       # MCV CLOCK VALUE TYPE (24)

MARKS='"mark":{"1":{"title":"T1","chan_type":"single"},"2":{"title":"T2","chan_type":"stack"}},'
CPUS='"loom_cpus":[{"index":0,"phyid":0},{"index":1,"phyid":1}],'

# newcase NAME: a fresh case; the trace is $T, the output directory $OUT.
newcase() {
	NAME=$1
	REQUIRE='"ovni":"1.1.0"' # the models the streams require
	C=$tmp/cases/$1
	T=$C/trace
	OUT=$C/out
	mkdir -p "$T"
}

# obs TID: creates the stream directory of thread TID (process 1, loom a)
# with its stream.json, and prints the path of its stream.obs.
obs() {
	_d=$T/loom.a/proc.1/thread.$1
	mkdir -p "$_d"
	printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread",' >"$_d/stream.json"
	printf '"tid":%s,"pid":1,"loom":"a","app_id":1,%s%s"finished":1,"require":{%s}}}\n' \
		"$1" "$CPUS" "$MARKS" "$REQUIRE" >>"$_d/stream.json"
	echo "$_d/stream.obs"
}

# at TID MCV OFFSET CLOCK TIME: the prefix of a model error raised by an event.
at() {
	echo "$T/loom.a/proc.1/thread.$1/stream.obs: event $2 at byte offset $3 (clock $4, time $5 ns), thread $1: "
}

# List of .prv files (plain or gzip) under a directory, if it exists.
prv_files() {
	[ -d "$1" ] || return 0
	find "$1" -name '*.prv' -o -name '*.prv.gz'
}

# rejects WANT [OPTIONS...]: `weft emu OPTIONS -o OUT TRACE` must fail with
# WANT, leaving no .prv; with -k it must warn with WANT and succeed.
rejects() {
	_want=$1
	shift
	_why=
	rm -rf "$OUT"
	"$WEFT" emu "$@" -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	if [ $_rc -ne 1 ]; then
		_why="${_why}exited $_rc, expected 1 ($(errtext)); "
	elif ! grep -F -q -x -e "weft: error: $_want" "$IO/err"; then
		_why="${_why}stderr lacks the line \"weft: error: $_want\", found \"$(errtext)\"; "
	fi
	_left=$(prv_files "$OUT")
	[ -z "$_left" ] || _why="${_why}a failed run left $(echo "$_left" | tr '\n' ' '); "
	result "$NAME" "$_why"

	_why=
	rm -rf "$OUT"
	"$WEFT" emu -k "$@" -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	if [ $_rc -ne 0 ]; then
		_why="${_why}exited $_rc, expected 0 ($(errtext)); "
	elif ! grep -F -q -x -e "weft: warning: $_want" "$IO/err"; then
		_why="${_why}stderr lacks the line \"weft: warning: $_want\", found \"$(errtext)\"; "
	elif ! grep -F -q -e "model errors were skipped (--keep-going)" "$IO/err"; then
		_why="${_why}stderr lacks the count of skipped model errors; "
	elif [ ! -f "$OUT/thread.prv" ] || [ ! -f "$OUT/cpu.prv" ]; then
		_why="${_why}no thread.prv or cpu.prv in $OUT; "
	elif [ $HAVE_CHECK = 1 ] && ! "$WEFT" check -q "$OUT/thread.prv" "$OUT/cpu.prv" >"$IO/out" 2>"$IO/err"; then
		_why="${_why}weft check rejects the output: $(errtext); "
	fi
	result "$NAME -k" "$_why"
}

# accepts [OPTIONS...] [-- TEXT]: exit 0, thread.prv and cpu.prv written (and
# valid), and, when given, TEXT on stderr.
accepts() {
	_text=
	_n=$#
	_i=0
	_opts=
	while [ $_i -lt $_n ]; do
		if [ "$1" = -- ]; then
			_text=$2
			break
		fi
		_opts="$_opts $1"
		shift
		_i=$((_i + 1))
	done
	_why=
	rm -rf "$OUT"
	# shellcheck disable=SC2086
	"$WEFT" emu $_opts -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	if [ $_rc -ne 0 ]; then
		_why="${_why}exited $_rc, expected 0 ($(errtext)); "
	elif [ -n "$_text" ] && ! grep -F -q -e "$_text" "$IO/err"; then
		_why="${_why}stderr lacks \"$_text\", found \"$(errtext)\"; "
	elif grep -q '^weft: error' "$IO/err"; then
		_why="${_why}an error on stderr: $(errtext); "
	elif [ ! -f "$OUT/thread.prv" ] || [ ! -f "$OUT/cpu.prv" ]; then
		_why="${_why}no thread.prv or cpu.prv in $OUT; "
	elif [ $HAVE_CHECK = 1 ] && ! "$WEFT" check -q "$OUT/thread.prv" "$OUT/cpu.prv" >"$IO/out" 2>"$IO/err"; then
		_why="${_why}weft check rejects the output: $(errtext); "
	fi
	result "$NAME" "$_why"
}

# ---- baselines: the building blocks make traces weft accepts -----------------

newcase valid-two-threads
{ hdr; ohx 100 0; mark OM= 110 3 1; mark 'OM[' 120 5 2; mark 'OM]' 130 5 2; st 'OF[' 140; st 'OF]' 150
  st OHc 160; st OHp 170; st OHw 180; st OHr 190; oas 200 1; st OHe 300; } >"$(obs 1)"
{ hdr; ohx 105 -1; oar 210 0 1; oas 220 1; st OHp 230; st OHr 240; st OHe 310; } >"$(obs 2)"
accepts -l

# Bursts: groups of 100; group 1 has 98 gaps of 50 ns and one of 500 (median
# 50), group 2 has 99 gaps of 150 (median 150, above 100 ns: a warning); the
# 201st burst starts a third group that never completes (not reported).
newcase burst-stats
bursts() { # FIRST_CLOCK GAP COUNT
	_c=$1
	_k=0
	while [ $_k -lt "$3" ]; do
		st OB. $_c
		_c=$((_c + $2))
		_k=$((_k + 1))
	done
}
{ hdr; ohx 100 0; bursts 1000 50 50; bursts 3950 50 50; bursts 10000 150 100; st OB. 30000
  st OHe 40000; } >"$(obs 1)"
accepts --bursts -- "weft: bursts of thread 1 (loom a, pid 1): 2 groups of 100, median gap per group min/avg/max = 50/100/150 ns, largest gap 500 ns"
NAME=burst-stats-slow
accepts --bursts -- "weft: warning: thread 1: 1 of 2 burst groups have a median gap above 100 ns"
# without --bursts: no statistics
"$WEFT" emu -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
if [ $? -ne 0 ] || grep -q -e 'bursts of thread' -e 'burst groups' "$IO/err"; then
	result burst-stats-off "emu without --bursts printed \"$(errtext)\" or failed"
else
	result burst-stats-off ""
fi
"$WEFT" emu -q --bursts -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
if [ $? -ne 0 ] || [ -s "$IO/err" ]; then
	result burst-stats-quiet "emu -q printed \"$(errtext)\" or failed"
else
	result burst-stats-quiet ""
fi

newcase valid-vcpu-shared
{ hdr; ohx 100 -1; st OHe 300; } >"$(obs 1)"
{ hdr; ohx 110 -1; st OHe 310; } >"$(obs 2)"
accepts

newcase valid-cooling-overlaps-running
{ hdr; ohx 100 0; st OHc 200; st OHp 300; st OHw 400; st OHr 500; st OHe 600; } >"$(obs 1)"
{ hdr; ohx 250 1; oas 260 0; st OHe 280; ohx 410 0; st OHe 450; } >"$(obs 2)"
accepts

newcase valid-oar-on-paused
{ hdr; ohx 100 0; oar 200 0 2; st OHe 300; } >"$(obs 1)"
{ hdr; ohx 110 1; st OHp 120; st OHr 400; st OHe 500; } >"$(obs 2)"
accepts

newcase valid-oas-same-cpu
{ hdr; ohx 100 1; oas 200 1; st OHe 300; } >"$(obs 1)"
accepts

newcase valid-dead-restarts
{ hdr; ohx 100 0; st OHe 200; ohx 300 1; st OHe 400; } >"$(obs 1)"
accepts

newcase valid-mark-stack-left-without-lint
{ hdr; ohx 100 0; mark 'OM[' 110 4 2; st OHe 300; } >"$(obs 1)"
accepts

# ---- what ovniemu ignores: OB. payloads, every OU event -------------------------

# an OB. burst probe with a 4-byte payload (libovni's flush test writes big
# jumbo ones), and OUj, a jumbo event of the OU category (ovnisort's)
newcase ob-payload-ou-any
{ hdr; ohx 100 0; ev 3 OB. 150; i32le 7; ev 19 OUj 160; i32le 4; i32le 0; st OB. 170; st OHe 200; } >"$(obs 1)"
accepts

# ---- kernel model: context switches ------------------------------------------

KERNEL='"ovni":"1.1.0","kernel":"1.0.0"'

# Thread 1 runs on CPU 0 and is switched out at clock 200 (time 100), back in
# at 300: type 45 value 3 on its row and on CPU 0's row, then 0.
newcase kernel-valid
REQUIRE=$KERNEL
{ hdr; ohx 100 0; st KCO 200; st KCI 300; st OHe 400; } >"$(obs 1)"
accepts
for _f in thread cpu; do
	_got=$(grep -c -e ':100:45:3$' -e ':200:45:0$' "$OUT/$_f.prv" 2>/dev/null)
	if [ "$_got" = 2 ]; then
		result "kernel-valid $_f.prv 45:3 at 100, 45:0 at 200" ""
	else
		result "kernel-valid $_f.prv 45:3 at 100, 45:0 at 200" "found $_got of the 2 records"
	fi
done

newcase kernel-kco-twice
REQUIRE=$KERNEL
{ hdr; ohx 100 0; st KCO 200; st KCO 300; st KCI 350; st OHe 400; } >"$(obs 1)"
rejects "$(at 1 KCO 48 300 200)thread 1 is already out of its CPU: expected KCI before another KCO"

newcase kernel-kci-without-kco
REQUIRE=$KERNEL
{ hdr; ohx 100 0; st KCI 200; st OHe 400; } >"$(obs 1)"
rejects "$(at 1 KCI 36 200 100)thread 1 is not out of its CPU: expected KCO before KCI"

newcase kernel-ovni-event-while-out
REQUIRE=$KERNEL
{ hdr; ohx 100 0; st KCO 200; st OHp 250; st KCI 300; st OHe 400; } >"$(obs 1)"
rejects "$(at 1 OHp 48 250 150)thread 1 is out of its CPU (KCO without KCI): expected no ovni event until KCI"

# ---- thread states -----------------------------------------------------------

newcase ohp-while-unknown
{ hdr; st OHp 100; ohx 150 0; st OHe 200; } >"$(obs 1)"
rejects "$(at 1 OHp 8 100 0)thread 1 is Unknown: expected Running or Cooling"

newcase ohx-twice
{ hdr; ohx 100 0; ohx 200 1; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OHx 36 200 100)thread 1 is Running: expected it not started (Unknown) or Dead"

newcase ohx-while-paused
{ hdr; ohx 100 0; st OHp 150; ohx 200 1; st OHr 250; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OHx 48 200 100)thread 1 is Paused: expected it not started (Unknown) or Dead"

newcase ohr-while-running
{ hdr; ohx 100 0; st OHr 200; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OHr 36 200 100)thread 1 is Running: expected Paused or Warming"

newcase ohw-while-running
{ hdr; ohx 100 0; st OHw 200; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OHw 36 200 100)thread 1 is Running: expected Paused"

newcase ohc-while-paused
{ hdr; ohx 100 0; st OHp 150; st OHc 200; st OHr 250; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OHc 48 200 100)thread 1 is Paused: expected Running"

newcase ohe-while-paused
{ hdr; ohx 100 0; st OHp 200; st OHe 300; st OHr 400; st OHe 500; } >"$(obs 1)"
rejects "$(at 1 OHe 48 300 200)thread 1 is Paused: expected Running or Cooling"

newcase ohe-while-unknown
{ hdr; st OHe 100; ohx 150 0; st OHe 200; } >"$(obs 1)"
rejects "$(at 1 OHe 8 100 0)thread 1 is Unknown: expected Running or Cooling"

# ---- CPUs ----------------------------------------------------------------------

newcase two-running-on-one-cpu
{ hdr; ohx 100 0; st OHe 300; } >"$(obs 1)"
{ hdr; ohx 200 0; st OHe 400; } >"$(obs 2)"
rejects "$(at 2 OHx 8 200 100)physical cpu 0 (phyid 0) of loom a has 2 threads running at once"

newcase resume-onto-busy-cpu
{ hdr; ohx 100 0; st OHp 150; st OHr 250; st OHe 400; } >"$(obs 1)"
{ hdr; ohx 200 1; oas 210 0; st OHe 300; } >"$(obs 2)"
rejects "$(at 1 OHr 48 250 150)physical cpu 0 (phyid 0) of loom a has 2 threads running at once"

newcase ohx-cpu-out-of-range
{ hdr; ohx 100 7; ohx 150 0; st OHe 200; } >"$(obs 1)"
rejects "$(at 1 OHx 8 100 0)cannot find cpu with index 7 in loom a (it has 2 cpus)"

newcase oas-while-paused
{ hdr; ohx 100 0; st OHp 150; oas 200 1; st OHr 250; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OAs 48 200 100)thread 1 is Paused: expected it active (Running, Cooling or Warming)"

newcase oas-before-ohx
{ hdr; oas 100 1; ohx 200 0; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OAs 8 100 0)thread 1 has no cpu (state Unknown): expected one before OAs"

newcase oas-cpu-out-of-range
{ hdr; ohx 100 0; oas 200 2; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OAs 36 200 100)cannot find cpu with index 2 in loom a"

newcase oas-onto-running-thread
{ hdr; ohx 100 0; oas 300 1; st OHe 400; } >"$(obs 1)"
{ hdr; ohx 200 1; st OHe 500; } >"$(obs 2)"
rejects "$(at 1 OAs 36 300 200)physical cpu 1 (phyid 1) of loom a has 2 threads running at once"

newcase oar-unknown-tid
{ hdr; ohx 100 0; oar 200 1 9; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OAr 36 200 100)thread 9 not found in process 1 or loom a"

newcase oar-same-cpu
{ hdr; ohx 100 0; oar 300 1 2; st OHe 400; } >"$(obs 1)"
{ hdr; ohx 200 1; st OHp 250; st OHr 500; st OHe 600; } >"$(obs 2)"
rejects "$(at 1 OAr 36 300 200)thread 2 is already on cpu 1: expected another cpu"

newcase oar-dead-target
{ hdr; ohx 100 0; oar 300 1 2; st OHe 400; } >"$(obs 1)"
{ hdr; ohx 200 1; st OHe 250; } >"$(obs 2)"
rejects "$(at 1 OAr 36 300 200)thread 2 is Dead: expected a started, live thread with a cpu"

# ---- flushes -------------------------------------------------------------------

newcase flush-end-without-start
{ hdr; ohx 100 0; st 'OF]' 200; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OF]' 36 200 100)thread 1 is not flushing: expected OF[ before OF]"

newcase flush-start-twice
{ hdr; ohx 100 0; st 'OF[' 200; st 'OF[' 250; st 'OF]' 260; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OF[' 48 250 150)thread 1 is already flushing: expected OF] before another OF["

# ---- marks ---------------------------------------------------------------------

newcase mark-undeclared-type
{ hdr; ohx 100 0; mark OM= 200 3 5; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OM= 36 200 100)cannot find mark with type 5: expected a type declared in ovni.mark of stream.json"

newcase mark-value-zero
{ hdr; ohx 100 0; mark 'OM[' 200 0 2; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OM[' 36 200 100)mark value cannot be zero (type 2)"

newcase mark-pop-not-top
{ hdr; ohx 100 0; mark 'OM[' 200 3 2; mark 'OM]' 250 4 2; mark 'OM]' 260 3 2; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OM]' 60 250 150)pop of value 4 from mark type 2: expected the top of the stack, 3"

newcase mark-pop-empty
{ hdr; ohx 100 0; mark 'OM]' 200 3 2; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OM]' 36 200 100)pop of value 3 from mark type 2: the stack is empty"

newcase mark-push-on-single
{ hdr; ohx 100 0; mark 'OM[' 200 3 1; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 'OM[' 36 200 100)OM[ on mark type 1, which is single: expected OM="

newcase mark-set-on-stack
{ hdr; ohx 100 0; mark OM= 200 3 2; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OM= 36 200 100)OM= on mark type 2, which is a stack: expected OM[ or OM]"

# ---- events ----------------------------------------------------------------------

newcase oas-payload-8-bytes
{ hdr; ohx 100 0; ev 7 OAs 200; i32le 1; i32le 0; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OAs 36 200 100)payload of 8 bytes: expected exactly 4 as declared (i32 cpu; exact)"

# ovniemu reads no payload of OHp: any is accepted (issue 23)
newcase ohp-with-payload
{ hdr; ohx 100 0; ev 1 OHp 200; bytes 0 0; st OHr 250; st OHe 300; } >"$(obs 1)"
accepts

newcase vtc-payload-4-bytes
REQUIRE='"ovni":"1.1.0","nosv":"2.7.0"'
{ hdr; ohx 100 0; ev 3 VTc 200; i32le 1; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 VTc 36 200 100)payload of 4 bytes: expected at least 8 as declared (u32 taskid, u32 typeid)"

newcase unknown-event
{ hdr; ohx 100 0; st OZz 200; st OHe 300; } >"$(obs 1)"
rejects "$(at 1 OZz 36 200 100)unknown ovni event OZz: model O has no such event (weft models O lists them)"

# ---- end of the trace ------------------------------------------------------------

newcase not-dead-at-end
{ hdr; ohx 100 0; st OHe 200; } >"$(obs 1)"
{ hdr; ohx 150 1; } >"$(obs 2)"
rejects "$T: thread 2 (loom a, pid 1) is Running at the end of the trace: expected Dead (OHe)"

newcase paused-at-end
{ hdr; ohx 100 0; st OHp 200; } >"$(obs 1)"
rejects "$T: thread 1 (loom a, pid 1) is Paused at the end of the trace: expected Dead (OHe)"

# ovniemu's -l checks neither mark stacks nor flushes: warnings, errors
# only under weft's own --strict
newcase lint-mark-stack-not-empty
{ hdr; ohx 100 0; mark 'OM[' 110 4 2; mark 'OM[' 120 5 2; st OHe 300; } >"$(obs 1)"
accepts -l -- "weft: warning: thread 1 ends with 2 value(s) on the stack of mark type 2 (an error with --strict)"
NAME=lint-mark-stack-not-empty-strict
rejects "$T: thread 1 ends with 2 value(s) on the stack of mark type 2 (-l --strict)" -l --strict

newcase lint-flushing-at-end
{ hdr; ohx 100 0; st 'OF[' 110; st OHe 300; } >"$(obs 1)"
accepts -l -- "weft: warning: thread 1 ends while flushing (OF[ without OF]) (an error with --strict)"
NAME=lint-flushing-at-end-strict
rejects "$T: thread 1 ends while flushing (OF[ without OF]) (-l --strict)" -l --strict

# ---- clock-offset tables -----------------------------------------------------------

# offsets_line RANK HOST MEDIAN MEAN STD: one line in ovnisync's layout.
offsets_line() { printf '%-10s %-20s %-20s %-20s %-20s\n' "$@"; }
offsets_header() { offsets_line rank hostname offset_median offset_mean offset_std; }

# A valid two-thread trace for the table cases.
offsets_trace() {
	{ hdr; ohx 100 0; st OHe 200; } >"$(obs 1)"
	{ hdr; ohx 150 1; st OHe 250; } >"$(obs 2)"
}

# rejects_plain WANT [OPTIONS...]: exit 1, "weft: error: WANT..." on stderr
# (WANT is a prefix of the line), no .prv left.
rejects_plain() {
	_want=$1
	shift
	_why=
	rm -rf "$OUT"
	"$WEFT" emu "$@" -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	if [ $_rc -ne 1 ]; then
		_why="${_why}exited $_rc, expected 1 ($(errtext)); "
	elif ! grep -F -q -e "weft: error: $_want" "$IO/err"; then
		_why="${_why}stderr lacks \"weft: error: $_want\", found \"$(errtext)\"; "
	fi
	_left=$(prv_files "$OUT")
	[ -z "$_left" ] || _why="${_why}a failed run left $(echo "$_left" | tr '\n' ' '); "
	result "$NAME" "$_why"
}

newcase keep-going-nothing-left
{ hdr; st OHp 100; } >"$(obs 1)"
rejects_plain "$T/loom.a/proc.1/thread.1/stream.obs: event OHp at byte offset 8" 
rm -rf "$OUT"
"$WEFT" emu -k -o "$OUT" "$T" >"$IO/out" 2>"$IO/err" </dev/null
_rc=$?
_why=
[ $_rc -eq 1 ] || _why="exited $_rc, expected 1; "
grep -F -q -e "weft: error: $T: no Paraver record to write" "$IO/err" || _why="${_why}no 'no Paraver record' error: $(errtext); "
[ -z "$(prv_files "$OUT")" ] || _why="${_why}a .prv was left; "
result "keep-going that rejects every event writes no empty trace" "$_why"

newcase offsets-4-fields
offsets_trace
{ offsets_header; offsets_line 0 a 0 0.000000 0.000000; printf '%-10s %-20s %-20s %-20s\n' 1 b 5 5.000000; } \
	>"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt:3: expected 5 fields (rank hostname offset_median offset_mean offset_std), found 4"

newcase offsets-4-fields-with-c
offsets_trace
{ offsets_header; printf '%-10s %-20s %-20s %-20s\n' 0 a 0 0.000000; } >"$C/table.txt"
rejects_plain "$C/table.txt:2: expected 5 fields" -c "$C/table.txt"

newcase offsets-bad-median
offsets_trace
{ offsets_header; offsets_line 0 a 1.5x 1.500000 0.000000; } >"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt:2: field 3 (offset_median): expected a number of ns, found \"1.5x\""

newcase offsets-duplicate-host
offsets_trace
{ offsets_header; offsets_line 0 a 0 0.000000 0.000000; offsets_line 1 a 0 0.000000 0.000000; } \
	>"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt:3: host \"a\" appears twice (first on line 2)"

newcase offsets-header-only
offsets_trace
offsets_header >"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt: no entries after the header line"

newcase offsets-empty
offsets_trace
: >"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt: empty file, expected ovnisync's header line"

newcase offsets-drift-table-short-row
offsets_trace
{ printf '%-20s %-20s %-20s\n' wallclock a b; printf '%-20s %-20s %-20s\n' 1700000000.000000 0 12;
  printf '%-20s %-20s\n' 1700000005.000000 0; } >"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt:3: expected 3 fields (wallclock and one offset per host of the header), found 2"

newcase offsets-drift-table-backwards
offsets_trace
{ printf '%-20s %-20s\n' wallclock a; printf '%-20s %-20s\n' 1700000005.000000 0;
  printf '%-20s %-20s\n' 1700000000.500000 0; } >"$T/clock-offsets.txt"
rejects_plain "$T/clock-offsets.txt:3: field 1 (wallclock): expected a time >= the previous row's (1700000005.000000), found 1700000000.500000"

newcase clockfile-json-bad-offset
offsets_trace
printf '{"weft_clock": 1, "looms": [{"loom": "a", "offset_ns": 1.5}]}\n' >"$C/clock.json"
rejects_plain "$C/clock.json: key 'looms[0].offset_ns' (loom a): expected an integer number of ns, found a number" -c "$C/clock.json"

newcase clockfile-json-drift-without-ref
offsets_trace
printf '{"weft_clock": 1, "looms": [{"loom": "a", "offset_ns": 0, "drift_ppm": 3}]}\n' >"$C/clock.json"
rejects_plain "$C/clock.json: key 'looms[0]' (loom a): a drift needs 'ref_ns'" -c "$C/clock.json"

newcase clockfile-json-syntax
offsets_trace
printf '{"weft_clock": 1,\n "looms": [}\n' >"$C/clock.json"
rejects_plain "$C/clock.json:2: byte offset 29: expected a value (an object, array, string, number, true, false or null)" -c "$C/clock.json"

newcase offsets-missing-c-file
offsets_trace
rejects_plain "$C/none.txt: " -c "$C/none.txt"

newcase offsets-host-matches-no-loom
offsets_trace
{ offsets_header; offsets_line 0 a 0 0.000000 0.000000; offsets_line 2 zzz 500 500.000000 0.000000; } \
	>"$T/clock-offsets.txt"
accepts -- "weft: warning: $T/clock-offsets.txt:3: host zzz matches no loom of the trace"

newcase offsets-loom-without-host
offsets_trace
{ offsets_header; offsets_line 0 zzz 0 0.000000 0.000000; } >"$T/clock-offsets.txt"
accepts -- "weft: warning: $T/clock-offsets.txt: no offset for loom a (host a): using 0"

# ---- usage errors ------------------------------------------------------------------

# usage NAME TEXT ARGS...: exit 2 and TEXT on stderr, no output written.
usage() {
	_name=$1 _want=$2
	shift 2
	rm -rf "$OUT"
	"$WEFT" "$@" >"$IO/out" 2>"$IO/err" </dev/null
	_rc=$?
	_why=
	if [ $_rc -ne 2 ]; then
		_why="exited $_rc, expected 2"
	elif ! grep -F -q -e "$_want" "$IO/err"; then
		_why="stderr lacks \"$_want\", found \"$(errtext)\""
	elif [ -e "$OUT" ]; then
		_why="a usage error created $OUT"
	fi
	result "$_name" "$_why"
}

newcase usage
offsets_trace
usage usage-no-trace "weft emu: expected a TRACE directory or log, found no argument" emu -o "$OUT"
usage usage-two-traces-no-output "weft emu: several inputs: give the output directory with -o DIR" emu "$T" "$T"
usage usage-unknown-option "weft emu: unknown option" emu --no-such-option -o "$OUT" "$T"
usage usage-lookback-1 "weft emu: --lookback: expected a byte count >= 64, found '1'" \
	emu --lookback 1 -o "$OUT" "$T"
usage usage-lookback-negative "weft emu: --lookback: expected a byte count >= 64, found '-100'" \
	emu --lookback -100 -o "$OUT" "$T"
usage usage-c-without-argument "weft emu: " emu -o "$OUT" -c

finish
