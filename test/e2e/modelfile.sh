#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# shellcheck disable=SC2016 # model files name payload fields with a literal $
# End-to-end tests of model files (doc/dev/models.md): the worked example of
# that page, taken from it, runs from the file alone (`weft emu --model`) on a
# trace built here byte by byte, and gives the expected Paraver records and
# .pcf blocks; its errors (pop of another value, guard, -l lint, version,
# syntax) have the expected text; a model with 150 channels (more Paraver
# slots than weft ever had room for) writes traces `weft check` accepts.
#
#   WEFT=/abs/path/to/weft sh test/e2e/modelfile.sh
#
# Prints "ok NAME" or "FAIL NAME: why" per check, then "N passed, M failed".

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
TMP=$tmp

# ---- the example, from the page that teaches it -------------------------------
ZM=$TMP/zeta.model
awk '/^<!-- example: zeta.model/ { m = 1; next } m == 1 && /^```$/ { m = 2; next } m == 2 && /^```$/ { exit }
	m == 2 { print }' "$top/doc/dev/models.md" >"$ZM"
if grep -q '^model Z zeta 1.0.0$' "$ZM"; then
	result "example extracted from doc/dev/models.md" ""
else
	result "example extracted from doc/dev/models.md" "no model line in what was extracted"
fi

# ---- trace building blocks (test/obsbytes.sh) ----------------------------
. "$top/test/obsbytes.sh" # bytes, i32le, i64le, hdr, ev
ohx() { ev 15 OHx "$1"; i32le "$2"; i32le -1; i64le 0; }   # CLOCK CPU
st() { ev 0 "$1" "$2"; }                                    # MCV CLOCK
z4() { ev 3 "$1" "$2"; i32le "$3"; }                        # MCV CLOCK I32

# trace NAME REQUIRE: a trace directory with thread 1 of process 1, loom a,
# CPUs 0 and 1; prints the path of its stream.obs.
trace() {
	_d=$TMP/$1/loom.a/proc.1/thread.1
	mkdir -p "$_d"
	printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread",' >"$_d/stream.json"
	printf '"tid":1,"pid":1,"loom":"a","app_id":1,"loom_cpus":[{"index":0,"phyid":0},' >>"$_d/stream.json"
	printf '{"index":1,"phyid":1}],"finished":1,"require":{%s}}}\n' "$2" >>"$_d/stream.json"
	echo "$_d/stream.obs"
}
REQ='"ovni":"1.1.0","zeta":"1.0.0"'

# run NAME ARGS...: weft emu, exit status in $rc, stderr in $TMP/err
run() {
	_n=$1
	shift
	"$WEFT" emu -q "$@" >/dev/null 2>"$TMP/err"
	rc=$?
}

# recs FILE: ":time:type:value " of every record of types 900 and 901
recs() {
	awk -F: '$1 == 2 { for (i = 7; i < NF; i += 2) if ($i == 900 || $i == 901) printf ":%s:%s:%s ", $6, $i, $(i + 1) }' \
		"$1" 2>/dev/null
}

# ---- the example end to end --------------------------------------------------------
obs=$(trace t "$REQ")
{
	hdr
	ohx 100 0
	z4 'Zi=' 200 7
	z4 'Zp[' 300 1
	z4 'Zp[' 400 2
	st OHp 500
	st OHr 600
	z4 'Zp]' 700 2
	z4 'Zp]' 800 1
	st Zi0 900
	st OHe 1000
} >"$obs"
run ok --model "$ZM" -l -o "$TMP/out" "$TMP/t"
if [ $rc = 0 ]; then result "example: emulated" ""; else result "example: emulated" "exit $rc: $(head -c 300 "$TMP/err")"; fi
# thread.prv: 900's first value, 0, when the thread starts (0: every
# channel's first value is written); 901 = 7 from 100 to 800; 900 = 1 at
# 200, 2 at 300, 0 while paused (400), 2 again at 500, 1 at 600, 0 at 700
got=$(recs "$TMP/out/thread.prv")
want=':0:900:0 :100:901:7 :200:900:1 :300:900:2 :400:900:0 :500:900:2 :600:900:1 :700:900:0 :800:901:0 '
if [ "$got" = "$want" ]; then result "example: thread.prv records" ""; else
	result "example: thread.prv records" "expected '$want', found '$got'"; fi
got=$(recs "$TMP/out/cpu.prv")
want=':0:900:0 :200:900:1 :300:900:2 :400:900:0 :500:900:2 :600:900:1 :700:900:0 '
if [ "$got" = "$want" ]; then result "example: cpu.prv records" ""; else
	result "example: cpu.prv records" "expected '$want', found '$got'"; fi
want='EVENT_TYPE
0 900 Zeta phase of the RUNNING thread
VALUES
1 Setup
2 Compute
3 Exchange

EVENT_TYPE
0 901 Zeta iteration
'
got=$(sed -n '/^0 900 /,/^0 901 /p' "$TMP/out/thread.pcf" 2>/dev/null)
if [ "EVENT_TYPE
$got" = "$(printf '%s' "$want")" ]; then result "example: thread.pcf blocks" ""; else
	result "example: thread.pcf blocks" "found '$got'"; fi
if grep -q '^0 900 Zeta phase of the RUNNING thread$' "$TMP/out/cpu.pcf" 2>/dev/null &&
	! grep -q '^0 901 ' "$TMP/out/cpu.pcf"; then
	result "example: cpu.pcf block" ""
else
	result "example: cpu.pcf block" "expected type 900 and not 901"
fi
for f in thread cpu; do
	if "$WEFT" check "$TMP/out/$f.prv" >/dev/null 2>&1; then result "example: weft check $f.prv" ""; else
		result "example: weft check $f.prv" "rejected"; fi
done
# without its paraver block the Paraver output numbers its channels: from
# 5000, in slot order (phase on thread rows, iter, then phase's CPU rows
# share phase's number), the same records otherwise
sed '/^paraver$/,$d' "$ZM" >"$TMP/zeta-auto.model"
run auto --model "$TMP/zeta-auto.model" -l -o "$TMP/outa" "$TMP/t"
got=$(grep -A1 '^EVENT_TYPE' "$TMP/outa/thread.pcf" 2>/dev/null | grep -E '^0 50[0-9][0-9] ' | tr '\n' '|')
gotc=$(grep -E '^0 50[0-9][0-9] ' "$TMP/outa/cpu.pcf" 2>/dev/null | tr '\n' '|')
if [ $rc = 0 ] && [ "$got" = "0 5000 Zeta phase of the RUNNING thread|0 5001 Zeta iteration|" ] &&
	[ "$gotc" = "0 5000 Zeta phase of the RUNNING thread|" ] &&
	[ "$(sed 's/:5000:/:900:/g; s/:5001:/:901:/g' "$TMP/outa/thread.prv" | tail -n +2)" = "$(tail -n +2 "$TMP/out/thread.prv")" ]; then
	result "example without a paraver block: types 5000, 5001" ""
else
	result "example without a paraver block: types 5000, 5001" "exit $rc, thread.pcf '$got', cpu.pcf '$gotc': $(head -c 300 "$TMP/err")"
fi

# without the file, the model is unknown: its events are errors, as ovniemu
# refuses events of a model it has not ("model not registered"); -k skips them
run nofile -o "$TMP/out2" "$TMP/t"
if [ $rc = 1 ] && grep -q "event Z.. at byte offset .*model Z is not a model weft or ovniemu knows" "$TMP/err"; then
	result "example: not built in" ""; else
	result "example: not built in" "exit $rc (expected 1) or stderr lacks the cause: $(head -c 300 "$TMP/err")"; fi
run nofile -k -o "$TMP/out2" "$TMP/t"
if [ $rc = 0 ] && [ -z "$(recs "$TMP/out2/thread.prv")" ]; then result "example: not built in, -k" ""; else
	result "example: not built in, -k" "exit $rc or type 900 written"; fi

# weft models lists the file's model with its table
got=$("$WEFT" models --model "$ZM" Z 2>&1)
want="Z zeta      1.0.0    4 events  file $ZM
  Zp[   i32 phase                        enters phase %{phase}
  Zp]   i32 phase                        leaves phase %{phase}
  Zi=   u32 iter                         starts iteration %{iter}
  Zi0   -                                ends its iterations"
if [ "$got" = "$want" ]; then result "weft models --model" ""; else result "weft models --model" "found '$got'"; fi

# weft dump decodes the file's events with their sentences
got=$("$WEFT" dump --model "$ZM" "$TMP/t" 2>&1 | awk '{ $1 = ""; $3 = ""; print }' | sed -n '2,4p' | tr '\n' '|')
want=' Zi=  starts iteration 7| Zp[  enters phase 1| Zp[  enters phase 2|'
if [ "$got" = "$want" ]; then result "weft dump --model" ""; else result "weft dump --model" "found '$got'"; fi

# ---- errors ------------------------------------------------------------------------------
expect_err() { # NAME TEXT
	if [ $rc = 1 ] && grep -qF -- "$2" "$TMP/err"; then result "$1" ""; else
		result "$1" "exit $rc, expected '$2' in: $(head -c 400 "$TMP/err")"; fi
}

obs=$(trace popbad "$REQ")
{ hdr; ohx 100 0; z4 'Zp[' 200 2; z4 'Zp[' 300 3; z4 'Zp]' 400 2; st OHe 500; } >"$obs"
run popbad --model "$ZM" -o "$TMP/o3" "$TMP/popbad"
expect_err "error: pop of another value" "stream.obs: event Zp] at byte offset 68 (clock 400, time 300 ns), thread 1: pop of 2 (Compute) from channel zeta.phase: expected the top of the stack, 3 (Exchange)"
if [ -e "$TMP/o3/thread.prv" ]; then result "error: no thread.prv left" "found one"; else result "error: no thread.prv left" ""; fi

# a model file reusing nOS-V's Paraver type 10: refused, naming both models
cat >"$TMP/clash.model" <<'EOM'
weft-model 2
model Z clash 1.0.0
channel x single
	thread "Clash value"
event Zxx "" "does something"
paraver
	x thread 10
EOM
obs=$(trace clash '"ovni":"1.1.0","nosv":"2.0.0","clash":"1.0.0"')
{ hdr; ohx 100 0; st OHe 200; } >"$obs"
run clash --model "$TMP/clash.model" -o "$TMP/oc" "$TMP/clash"
expect_err "error: a Paraver type of two models" "Paraver type 10 of thread.prv is claimed by two models: nosv (\"nOS-V task ID of the RUNNING thread\") and clash (\"Clash value\")"

obs=$(trace guard "$REQ")
{ hdr; ohx 100 0; st OHp 150; z4 'Zp[' 200 2; st OHr 250; st OHe 500; } >"$obs"
run guard --model "$ZM" -o "$TMP/o4" "$TMP/guard"
expect_err "error: guard running" "thread 1 is Paused: expected it Running for an event of model zeta"

obs=$(trace check "$REQ")
{ hdr; ohx 100 0; st Zi0 200; st OHe 500; } >"$obs"
run check --model "$ZM" -o "$TMP/o5" "$TMP/check"
expect_err "error: check message" "thread 1: thread 1 ends iterations it never started"

obs=$(trace lint "$REQ")
{ hdr; ohx 100 0; z4 'Zp[' 200 2; st OHe 500; } >"$obs"
run lint --model "$ZM" -o "$TMP/o6" "$TMP/lint"
if [ $rc = 0 ]; then result "lint: accepted without -l" ""; else result "lint: accepted without -l" "exit $rc"; fi
run lint --model "$ZM" -l -o "$TMP/o7" "$TMP/lint"
expect_err "lint: open stack with -l" "thread 1 (loom a, pid 1) ends with 1 value(s) on the stack of channel zeta.phase (top: 2 (Compute)): expected it empty"

# a shipped model's -l checks what ovniemu's -l does: for Nanos6 the
# subsystems only, not the thread type (ovniemu 1.14.0 accepts a thread that
# ends as a worker)
obs=$(trace n6type '"ovni":"1.1.0","nanos6":"1.1.0"')
{ hdr; ohx 100 0; st 6Hw 200; st OHe 500; } >"$obs"
run n6type -l -o "$TMP/o7a" "$TMP/n6type"
if [ $rc = 0 ]; then result "lint: Nanos6 thread type left pushed, accepted (as ovniemu)" ""; else
	result "lint: Nanos6 thread type left pushed, accepted (as ovniemu)" "exit $rc: $(head -c 300 "$TMP/err")"; fi
obs=$(trace n6ss '"ovni":"1.1.0","nanos6":"1.1.0"')
{ hdr; ohx 100 0; st 6W[ 200; st OHe 500; } >"$obs"
run n6ss -l -o "$TMP/o7b" "$TMP/n6ss"
expect_err "lint: Nanos6 subsystem left pushed, refused" "ends with 1 value(s) on the stack of channel nanos6.subsystem (top: 19 (Worker: Looking for work)): expected it empty"

obs=$(trace version '"ovni":"1.1.0","zeta":"2.0.0"')
{ hdr; ohx 100 0; st OHe 500; } >"$obs"
run version --model "$ZM" -o "$TMP/o8" "$TMP/version"
expect_err "version: other major refused" "key 'ovni.require': unsupported zeta model version (want 2.0.0, have 1.0.0)"
obs=$(trace minor '"ovni":"1.1.0","zeta":"1.1.0"')
{ hdr; ohx 100 0; st OHe 500; } >"$obs"
run minor --model "$ZM" -o "$TMP/o9" "$TMP/minor"
expect_err "version: newer minor refused" "unsupported zeta model version (want 1.1.0, have 1.0.0)"
obs=$(trace older '"ovni":"1.1.0","zeta":"1.0.7"')
{ hdr; ohx 100 0; st OHe 500; } >"$obs"
run older --model "$ZM" -o "$TMP/o10" "$TMP/older"
if [ $rc = 0 ]; then result "version: same minor, other patch accepted" ""; else
	result "version: same minor, other patch accepted" "exit $rc"; fi

# an event of a model no stream requires (ovniemu: model not enabled)
obs=$(trace noreq '"ovni":"1.1.0"')
{ hdr; ohx 100 0; z4 'Zp[' 200 2; z4 'Zp]' 300 2; st OHe 500; } >"$obs"
run noreq --model "$ZM" -o "$TMP/o11" "$TMP/noreq"
expect_err "not required: refused" "model Z (zeta) is not named in any stream's ovni.require"
run noreq-a --model "$ZM" -a -o "$TMP/o12" "$TMP/noreq"
if [ $rc = 0 ] && grep -q ':100:900:2' "$TMP/o12/thread.prv"; then result "not required: accepted with -a" ""; else
	result "not required: accepted with -a" "exit $rc: $(head -c 300 "$TMP/err")"; fi

# syntax: the file's own errors, with their place
sed 's/^\tpush phase \$phase$/\tpush phases $phase/' "$ZM" >"$TMP/bad.model"
run syntax --model "$TMP/bad.model" -o "$TMP/o13" "$TMP/t"
expect_err "file error: unknown channel" "bad.model:18:7: expected a declared channel, found 'phases'"
printf 'weft-model 1\nmodel Z zeta 1.0\n' >"$TMP/bad2.model"
run syntax2 --model "$TMP/bad2.model" -o "$TMP/o14" "$TMP/t"
expect_err "file error: version" "bad2.model:2:14: expected the model version (MAJOR.MINOR.PATCH), found '1.0'"
printf 'weft-model 1\nmodel Z zeta 1.0.0\nevent Zx "" "x"\n' >"$TMP/bad3.model"
run syntax3 --model "$TMP/bad3.model" -o "$TMP/o15" "$TMP/t"
expect_err "file error: MCV" "bad3.model:3:7: expected an MCV (three characters), found 'Zx'"
printf 'weft-model 3\n' >"$TMP/bad4.model"
run syntax4 --model "$TMP/bad4.model" -o "$TMP/o16" "$TMP/t"
expect_err "file error: format version" "bad4.model:1:12: expected format version 1 to 2, found 3"
run missing --model "$TMP/none.model" -o "$TMP/o17" "$TMP/t"
expect_err "file error: missing file" "none.model: cannot open for reading: No such file or directory"
printf 'weft-model 1\nmodel O mine 1.0.0\nevent OXx "" "x"\n' >"$TMP/bad5.model"
run cmodel --model "$TMP/bad5.model" -o "$TMP/o18" "$TMP/t"
expect_err "file error: a C model is not replaced" "model O (ovni) is written in C in weft: a model file cannot replace it"

# ---- dynamic labels: a label action names values from a jumbo payload ----------------
printf '%s\n' 'weft-model 1' 'model W wlab 1.0.0' 'channel kind single' '	thread 950 "Kind"' \
	'	value 1 "Static one"' '	labels dynamic' 'event Wn+ jumbo "u32 id, str name" "names kind %{id} %{name}"' \
	'	label kind $id $name' 'event Wk= "u32 id" "is of kind %{id}"' '	set kind $id' >"$TMP/wlab.model"
# jumbo: flags 0x13, MCV, clock, u32 length, data (u32 id, NUL-terminated name)
jumbo() { ev 19 "$1" "$2"; i32le $((4 + ${#4} + 1)); i32le "$3"; printf '%s' "$4"; bytes 0; }
obs=$(trace wlab '"ovni":"1.1.0","wlab":"1.0.0"')
{
	hdr; ohx 100 0; jumbo 'Wn+' 150 7 'seven'; jumbo 'Wn+' 160 1 'not one'; jumbo 'Wn+' 170 7 'again'
	z4 'Wk=' 200 7; z4 'Wk=' 300 1; st OHe 500
} >"$obs"
run wlab --model "$TMP/wlab.model" -o "$TMP/o20" "$TMP/wlab"
got=$(sed -n '/^0 950 Kind$/,/^$/p' "$TMP/o20/thread.pcf" 2>/dev/null | tr '\n' '|')
if [ $rc = 0 ] && [ "$got" = '0 950 Kind|VALUES|1 Static one|7 seven||' ]; then result "label: dynamic labels in the .pcf" ""; else
	result "label: dynamic labels in the .pcf" "exit $rc, found '$got': $(head -c 300 "$TMP/err")"; fi
printf '%s\n' 'weft-model 1' 'model W wlab 1.0.0' 'channel kind single' 'event Wn+ jumbo "u32 id, str name" "x"' \
	'	label kind $id $name' >"$TMP/wlab2.model"
run wlab2 --model "$TMP/wlab2.model" -o "$TMP/o21" "$TMP/wlab"
expect_err "label: needs a dynamic channel" "wlab2.model:5:8: expected a channel with 'labels dynamic', found 'kind'"

# ---- many Paraver slots: 150 channels of one model ----------------------------------------
{
	printf 'weft-model 1\nmodel Y many 1.0.0\n'
	i=0
	while [ $i -lt 150 ]; do
		printf 'channel c%d single\n\tthread %d "channel %d"\n\tcpu %d "channel %d of the RUNNING thread"\n' \
			$i $((1000 + i)) $i $((1000 + i)) $i
		i=$((i + 1))
	done
	printf 'event Ys= "i32 v" "sets all to %%{v}"\n'
	i=0
	while [ $i -lt 150 ]; do
		printf '\tset c%d $v\n' $i
		i=$((i + 1))
	done
} >"$TMP/many.model"
obs=$(trace many '"ovni":"1.1.0","many":"1.0.0"')
{ hdr; ohx 100 0; z4 'Ys=' 200 5; st OHe 500; } >"$obs"
run many --model "$TMP/many.model" -o "$TMP/o19" "$TMP/many"
n=$(grep -o ':1[01][0-9][0-9]:5' "$TMP/o19/cpu.prv" 2>/dev/null | wc -l)
if [ $rc = 0 ] && [ "$n" = 150 ]; then result "150 channels: emulated" ""; else
	result "150 channels: emulated" "exit $rc, $n of 150 CPU records: $(head -c 300 "$TMP/err")"; fi
for f in thread cpu; do
	if "$WEFT" check "$TMP/o19/$f.prv" >/dev/null 2>&1; then result "150 channels: weft check $f.prv" ""; else
		result "150 channels: weft check $f.prv" "rejected"; fi
done

# ---- a check of a payload field (OpenMP refuses ids 0, as ovniemu) -------------------
z8() { ev 7 "$1" "$2"; i32le "$3"; i32le "$4"; }            # MCV CLOCK I32 I32
obs=$(trace omp '"ovni":"1.1.0","openmp":"1.2.1"')
{
	hdr
	ohx 100 0
	z8 PPc 200 0 5
} >"$obs"
run omp -o "$TMP/omp.out" "$TMP/omp"
expect "check \$field: task id 0 refused" "$rc $(sed 's/.*PPc/PPc/' "$TMP/err")" \
	"1 PPc at byte offset 36 (clock 200, time 100 ns), thread 1: task id cannot be 0"
{
	hdr
	ohx 100 0
	z8 PPc 200 4 0
} >"$obs"
run omp -o "$TMP/omp.out" "$TMP/omp"
expect "check \$field: type id 0 refused" "$rc $(sed 's/.*PPc/PPc/' "$TMP/err")" \
	"1 PPc at byte offset 36 (clock 200, time 100 ns), thread 1: task type id cannot be 0"
{
	hdr
	ohx 100 0
	z4 PQx 200 0
} >"$obs"
run omp -o "$TMP/omp.out" "$TMP/omp"
expect "check \$field: worksharing type id 0 refused" "$rc $(sed 's/.*PQx/PQx/' "$TMP/err")" \
	"1 PQx at byte offset 36 (clock 200, time 100 ns), thread 1: worksharing type id cannot be 0"

# ---- Nanos6's old 6TC: accepted and ignored, whatever its payload ----------------------
obs=$(trace n6 '"ovni":"1.1.0","nanos6":"1.1.0"')
{
	hdr
	ohx 100 0
	z8 6TC 200 1 2
	st 6TC 300
	st OHe 400
} >"$obs"
"$WEFT" emu -o "$TMP/n6.out" "$TMP/n6" >/dev/null 2>"$TMP/err"
rc=$?
fail_show=$TMP/err
expect "6TC ignored: exit status and no warning" "$rc $(grep -c -i 'warn\|skip\|error' "$TMP/err")" "0 0"

# ---- --model is read once the options are: --help never loads it ---------------------
# (every command that takes --model: a broken file before or after --help
# gives the help, exit 0; without --help, its error, exit 1)
printf 'weft-model 1\nmodel q broken\n' >"$TMP/broken.model"
for c in emu dump models; do
	a=$("$WEFT" $c --model "$TMP/broken.model" --help >/dev/null 2>&1; echo $?)
	b=$("$WEFT" $c --help --model "$TMP/broken.model" >/dev/null 2>&1; echo $?)
	expect "$c: --model FILE --help and --help --model FILE alike" "$a $b" "0 0"
done
"$WEFT" models --model "$TMP/broken.model" >/dev/null 2>"$TMP/err"
rc=$?
fail_show=$TMP/err
expect "models: a broken --model file is refused, naming it" "$rc $(grep -c 'broken.model' "$TMP/err")" "1 1"
"$WEFT" models --model "$ZM" >"$TMP/models.out" 2>&1
expect "models: the file --model gave is listed as that file" "$(grep -c "^Z zeta .*file $ZM" "$TMP/models.out")" "1"

finish
