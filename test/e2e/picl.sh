#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of the PICL importer and the msg model.
#
#   WEFT=/abs/weft sh test/e2e/picl.sh
#
# Fixtures in test/e2e/picl/ (hand-written, times hand-computed; the
# origin is each log's earliest record): state intervals, communication
# records (lsend psend receiver lrecv precv size tag) and unmatched sends
# written as '#' comments, file I/O as fileio records, scoped -6 aliases,
# records continued with '\', checked from thread.prv; `weft synth --format
# picl` (determinism, validity, causality, clocks, truth file, usage
# errors); sorted and unsorted logs giving the same streams; every output
# passes `weft check`; malformed logs fail with their exact error.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fx="$here/picl"

# emu NAME: emulate fixture NAME.trf into $tmp/NAME and check it
emu() {
	rm -rf "$tmp/$1"
	if ! "$WEFT" emu -q -o "$tmp/$1" "$fx/$1.trf" 2>"$tmp/err"; then
		fail "$1 emu" "$(head -3 "$tmp/err")"
		return 1
	fi
	if ! "$WEFT" check -q "$tmp/$1/thread.prv" >"$tmp/chk" 2>&1; then
		fail "$1 check" "$(head -3 "$tmp/chk")"
		return 1
	fi
	pass "$1 emu+check"
}
# total STATE time per task: sum of state intervals of that value on a task
state_time() { # dir task state
	awk -F: -v t="$2" -v s="$3" '$1 == "1" && $4 == t && $8 == s { n += $7 - $6 } END { print n + 0 }' \
		"$tmp/$1/thread.prv"
}
# communication records with the padding removed
comms() {
	awk -F: '$1 == "3" { o = $1; for (i = 2; i <= NF; i++) o = o ":" ($i + 0); print o }' "$tmp/$1/thread.prv"
}

# Table 20 of the seed: processor 6 alone
if emu table20; then
	expect "table20 Sending" "$(state_time table20 1 31)" 46000
	expect "table20 Receiving (blocked)" "$(state_time table20 1 32)" 1213000
	expect "table20 Clock sync" "$(state_time table20 1 36)" 8084000
	expect "table20 comms" "$(comms table20 | wc -l | tr -d ' ')" 0
	expect "table20 user block labels" "$(grep -c '^[0-9]* user event' "$tmp/table20/thread.pcf")" 2
fi

# fft.trf (old format, real): 16 tasks, 64 communication lines
if emu fft; then
	expect "fft comms" "$(comms fft | wc -l | tr -d ' ')" 64
	expect "fft tasks" "$(sed -n 's/^LEVEL TASK SIZE //p' "$tmp/fft/thread.row")" 16
	# processor 9 is task 10 (loom picl.09: names padded, rows in processor order)
	expect "fft first comm" "$(comms fft | head -1)" "3:3:1:2:1:455000:889000:19:1:10:1:996000:1273000:1:30008"
	expect "fft rows in processor order" "$(sed -n '/^LEVEL NODE/,/^$/p' "$tmp/fft/thread.row" | sed -n '2p;11p;12p;17p' | tr '\n' ' ')" \
		"picl.00 picl.09 picl.10 picl.15 "
	expect "fft comment lines" "$(grep -c '^#:' "$tmp/fft/thread.prv")" 0
fi

# blocking send/receive between two processors
if emu blocking; then
	expect "blocking comm" "$(comms blocking)" "3:1:1:1:1:10000:20000:3:1:2:1:5000:30000:100:5"
	expect "blocking Sending" "$(state_time blocking 1 31)" 10000
	expect "blocking Receiving" "$(state_time blocking 2 32)" 25000
	expect "blocking Running" "$(state_time blocking 1 30)" 30000
fi

# broadcast (destination -1), exponents, quoted descriptors
if emu bcast; then
	expect "bcast comms" "$(comms bcast | tr '\n' ' ')" \
		"3:1:1:1:1:1000:2000:3:1:2:1:3000:4000:8:7 3:1:1:1:1:1000:2000:5:1:3:1:3000:5000:8:7 3:1:1:1:1:1000:2000:7:1:4:1:3000:6000:8:7 "
	expect "bcast Receiving" "$(state_time bcast 4 32)" 3000
fi

# non-blocking: psend from the -31 exit, lrecv from the -57 entry; -6 alias
if emu nonblock; then
	expect "nonblock comm" "$(comms nonblock)" "3:1:1:1:1:4000:8000:3:1:2:1:2000:12000:64:9"
	expect "nonblock Sending" "$(state_time nonblock 1 31)" 3000
	expect "nonblock Receiving" "$(state_time nonblock 2 32)" 6000
fi

# receive before send (negative times): paired and reported
if emu causal; then
	expect "causal comm" "$(comms causal)" "3:1:1:1:1:6000:9000:3:1:2:1:2000:4000:16:3"
	"$WEFT" emu -o "$tmp/causal2" "$fx/causal.trf" 2>"$tmp/err" >/dev/null
	expect "causal warning" "$(grep -c 'received before they are sent' "$tmp/err")" 1
fi

# unmatched send: a '#' line, reported per key; host 32767 on its own loom;
# -5 label; file I/O as events of the fileio model (open at its exit: file
# operation 1 open, file id 1, one open file)
if emu unmatched; then
	expect "unmatched comms" "$(comms unmatched | wc -l | tr -d ' ')" 0
	expect "unmatched comment" "$(grep -c '^#:1:1:1:1:2000:' "$tmp/unmatched/thread.prv")" 1
	"$WEFT" emu -o "$tmp/unmatched2" "$fx/unmatched.trf" 2>"$tmp/err" >/dev/null
	expect "unmatched report" "$(grep -c 'processor 0 to processor 1, type 11: 1 sends and 0 receives unmatched' "$tmp/err")" 1
	expect "unmatched label" "$(grep -c '^1 phase one' "$tmp/unmatched/thread.pcf")" 1
	expect "unmatched host loom" "$(grep -c '^picl.host$' "$tmp/unmatched/thread.row")" 1
	expect "unmatched file open" "$(grep -c '^2:1:1:1:1:6000:1076:1:1072:1:1080:0:1074:1$' "$tmp/unmatched/thread.prv")" 1
	# the ovni model's (the user-event mark, 100, too: its first 0, as
	# ovniemu writes every first value), no fileio 0
	expect "unmatched ovni values at the start, not fileio ones" \
		"$(awk -F: '$1 == 2 && $6 == 0' "$tmp/unmatched/thread.prv" | tr '\n' ' ')" \
		"2:1:1:1:1:0:6:1:4:1:2:1:100:0 2:3:1:2:1:0:6:3:4:1:2:32768:100:0 "
fi

# hand-worked logs of issue 30 (test/e2e/picl/README.md)
# marks of communication events: punctual sends and receives, paired
if emu marks; then
	expect "marks comms" "$(comms marks | tr '\n' ' ')" \
		"3:1:1:1:1:10000:10000:3:1:2:1:30000:30000:100:5 3:1:1:1:1:40000:50000:3:1:2:1:45000:70000:200:6 3:3:1:2:1:80000:85000:1:1:1:1:90000:90000:8:7 "
	expect "marks send values" "$(grep -c '^2:1:1:1:1:10000:1047:21:1041:100:1042:6:1043:2$' "$tmp/marks/thread.prv")" 1
	expect "marks receive values" "$(grep -c '^2:3:1:2:1:30000:1047:52:1044:100:1045:6:1046:1$' "$tmp/marks/thread.prv")" 1
	expect "marks no send state" "$(state_time marks 1 31)" 0
fi

# several processes on one processor: a row each
if emu processes; then
	expect "processes rows" "$(sed -n '/^LEVEL THREAD/,$p' "$tmp/processes/thread.row" | sed 1d | tr '\n' ' ')" \
		"TH 1.12 picl.0/12 TH 1.13 picl.0/13 TH 1.2 picl.1/2 "
	expect "processes Sync of process 11" "$(state_time processes 1 35)" 10000
	expect "processes Sync of process 12" "$(state_time processes 2 35)" 10000
	expect "processes comms" "$(comms processes | tr '\n' ' ')" \
		"3:4:1:3:1:30000:31000:2:1:2:1:36000:45000:8:4 3:4:1:3:1:32000:33000:1:1:1:1:35000:40000:8:4 3:2:1:2:1:50000:52000:1:1:1:1:55000:58000:16:5 "
	expect "processes message on both rows" "$(grep -c '^2:[12]:1:[12]:1:60000:.*1053:1$' "$tmp/processes/thread.prv")" 2
fi
expect "processes statistics" "$("$WEFT" stats -q "$fx/processes.trf" | tr -s ' ' | sed -n '/^Statistics/,$p' | sed 1,2d | tr '\n' '|')" \
	"picl.0/13/13 -101 -1 sync0 [-402] 0.000010 s 0.000010 s 0.000000 s equal|processor 0 (2 rows) -102 -1 recv0 (blocking) [-52] 3 3 +0 equal|2 stated values: 2 equal, 0 within rounding, 0 differ, 0 not measured|"

# a second process found after a sorted log's first batches were written:
# read again, holding it, and shown as two rows
"$WEFT" synth --format picl -o "$tmp/late.trf" --procs 3 -n 12000 --no-stats --seed 2 >/dev/null 2>&1
t=$(tail -1 "$tmp/late.trf" | awk '{print $3}')
printf -- '-3 -602 %s 0 5 0\n-4 -602 %s 0 5 0\n' "$t" "$t" >>"$tmp/late.trf"
rm -rf "$tmp/late"
"$WEFT" emu -q -o "$tmp/late" "$tmp/late.trf" 2>"$tmp/err"
expect "second process late: rows" "$(sed -n '/^LEVEL THREAD/,$p' "$tmp/late/thread.row" | sed 1d | tr '\n' ' ')" \
	"TH 1.1 picl.0/1 TH 1.6 picl.0/6 TH 1.2 picl.1/2 TH 1.3 picl.2/3 "

# -5 labels in their scope: a value per label text, rows named
if emu labels; then
	expect "labels values" "$(grep ':100:[1-9]' "$tmp/labels/thread.prv" | tr '\n' ' ')" \
		"2:1:1:1:1:10000:100:1 2:3:1:2:1:10000:100:3 2:5:1:3:1:10000:100:1 2:1:1:1:1:30000:100:2 2:3:1:2:1:30000:100:4 "
	expect "labels pcf" "$(sed -n '/^0 100 /,/^$/p' "$tmp/labels/thread.pcf" | tr '\n' '|')" \
		"0 100 PICL user block|VALUES|1 broadcast|3 ring step|2 phase A|4 user event 1||"
	expect "labels row name" "$(grep -c '^TH 1.2 worker (picl.1/2)$' "$tmp/labels/thread.row")" 1
fi
expect "labels stats per row" "$("$WEFT" stats -q "$fx/labels.trf" | tr -s ' ' | awk '$3 == "op" && $4 == "-" && $1 == "picl.1/2/2" && !/tracing/' | cut -d' ' -f5- | tr '\n' '|')" \
	"ring step [0] 0.000010000 1 -|user event 1 [1] 0.000010000 1 -|"

# header and user records of processor -1 apply to every processor
expect "subsets: records of processor -1 on every stream" \
	"$("$WEFT" dump "$fx/subsets.trf" | grep -E ' XU[dt] ' | cut -d' ' -f1-3 | tr '\n' ' ')" \
	"1 XUt picl.0/1/1 1 XUt picl.1/2/2 50001 XUd picl.0/1/1 50001 XUd picl.1/2/2 "

# old format, verbose lines: send state to the second compstats
if emu verbose; then
	expect "verbose comm" "$(comms verbose)" "3:1:1:1:1:10000:25000:3:1:2:1:5000:40000:12:42"
	expect "verbose Receiving" "$(state_time verbose 2 32)" 35000
fi

# old format with the host (-32768) and a user block
if emu oldhost; then
	expect "oldhost comm" "$(comms oldhost)" "3:3:1:2:1:100000:100000:1:1:1:1:150000:300000:2:7"
	expect "oldhost Receiving" "$(state_time oldhost 1 32)" 150000
	expect "oldhost block" "$(grep -c ':400000:100:4' "$tmp/oldhost/thread.prv")" 1
fi

# the seed's Table 20 with its long records broken by '\' as typeset: joined
if emu table20-cont; then
	expect "table20-cont Sending" "$(state_time table20-cont 1 31)" 46000
	expect "table20-cont Receiving (blocked)" "$(state_time table20-cont 1 32)" 1213000
	"$WEFT" emu -o "$tmp/t20c2" "$fx/table20-cont.trf" 2>"$tmp/err" >/dev/null
	expect "table20-cont one warning" "$(grep -c "record continued on the next line with '\\\\': joined" "$tmp/err")" 1
	expect "table20-cont warning line" "$(grep -o 'table20-cont.trf:[0-9]*: record continued' "$tmp/err")" \
		"table20-cont.trf:25: record continued"
fi

# file I/O as fileio events: open (op 1, file 1, one open file) at the open's
# exit, write 4096 and read 100 bytes of file 1 (by descriptor 5), close
# (op 2), a write mark of 8 bytes after the close (no file any more); user
# event 1 as mark type 100 value 2
if emu files; then
	expect "files fileio records" "$(awk -F: '$1 == 2' "$tmp/files/thread.prv" | tr '\n' ' ')" \
		"2:1:1:1:1:0:6:1:4:1:2:1:100:0 2:1:1:1:1:1000:100:2 2:1:1:1:1:12000:1076:1:1072:1:1080:0:1074:1 2:1:1:1:1:20000:1071:4096:1072:1 2:1:1:1:1:60000:1070:100:1072:1 2:1:1:1:1:81000:1072:1:1076:2:1074:0 2:1:1:1:1:90000:100:0 2:1:1:1:1:95000:1071:8 2:0:1:1:1:100000:6:0:4:3:2:0 "
	expect "files requires fileio" "$("$WEFT" import picl "$fx/files.trf" -o "$tmp/files-imp" >/dev/null 2>&1 &&
		grep -c '"fileio": "1.0.0"' "$tmp/files-imp/loom.picl.0/proc.1/thread.1/stream.json")" 1
	expect "files events" "$("$WEFT" top "$tmp/files-imp" | awk '$1 ~ /^F..$/ {printf "%s=%s ", $1, $2}' | tr ' ' '\n' | sort | tr '\n' ' ')" \
		"FC.=1 FD.=3 FN.=1 FO.=1 FR[=1 FR]=1 FW[=2 FW]=2 Fc[=1 Fc]=1 Fo[=1 Fo]=1 "
	expect "files pcf" "$(grep -c '^0 1071 File I/O: bytes written$' "$tmp/files/thread.pcf")" 1
fi

# kept records (doc/formats/legacy.md §2.4, item 9): user record data
# (Table 20's 0.000124), -7 messages, file names of -201 opens, subset
# definitions (-201, -202, -203; global ones on every processor) reach dump,
# query, the .pcf and weft stats
expect "table20 user record values" "$("$WEFT" dump "$fx/table20.trf" | grep ' XUd ')" \
"715671001 XUd picl.6/7/7 writes user record 0 of event 0 with data \"0.000124\" (first field: 124000 x 1e-9)
717007001 XUd picl.6/7/7 writes user record 0 of event 1 with data \"0.000410\" (first field: 410000 x 1e-9)"
if emu table20; then
	expect "table20 user record values prv" "$(grep -o '1051:1:1052:[0-9]*' "$tmp/table20/thread.prv" | tr '\n' ' ')" \
		"1051:1:1052:124000 1051:1:1052:410000 "
fi
expect "kept dump" "$("$WEFT" dump "$fx/kept.trf" | grep -E ' (XU[dt]|XM\.|XB.|FN\.) ')" \
'1 XBe picl.0/1/1 defines event type subset -2001 of 2: "-21 -52"
1 XBp picl.0/1/1 defines processor subset -3001 of 2: "0 1"
1 XBe picl.1/2/2 defines event type subset -2001 of 2: "-21 -52"
1 XBp picl.1/2/2 defines processor subset -3001 of 2: "0 1"
2001 XM. picl.0/1/1 writes message "checkpoint \x22A\x22 reached" (event -1)
22001 FN. picl.0/1/1 names file 1 "out.dat"
41001 XUd picl.0/1/1 writes user record 0 of event 0 with data "0.000124" (first field: 124000 x 1e-9)
42001 XUd picl.1/2/2 writes user record 3 of event 0 with data "7 -8" (first field: 7000000000 x 1e-9)
43001 XUt picl.1/2/2 writes user record 4 of event 0 with data "phase two"
50001 XM. picl.0/1/1 writes message "all processors: done" (event -1)
50001 XM. picl.1/2/2 writes message "all processors: done" (event -1)'
expect "kept query" "$("$WEFT" query "$fx/kept.trf" 'u: when value = 124000 do current(rtype, data)' \
	'm: when text contains "done" do count' 'f: when name = "out.dat" do current(file)' \
	'e: when mcv = XBe and members contains "-52" do current(id)' 2>&1)" \
"e: id=-2001
e: id=-2001
f: file=1
u: rtype=0 data=0.000124
m: count 2"
if emu kept; then
	# the blocks of the kept types and the file names, as written
	expect "kept pcf" "$(awk '/^0 (105[2-7]|1072) / { on = 1 } on && /^$/ { on = 0 } on' "$tmp/kept/thread.pcf")" \
'0 1072 File I/O: file id
VALUES
1 out.dat
0 1052 PICL user record value (first data field, 10^-9 units)
0 1053 PICL message
VALUES
1 checkpoint "A" reached
2 all processors: done
0 1054 PICL user record data
VALUES
1 phase two
0 1055 PICL processor subset defined (-id)
VALUES
3001 subset -3001: 0 1
0 1057 PICL event type subset defined (-id)
VALUES
2001 subset -2001: -21 -52'
	expect "kept prv" "$(grep -oE '(105[2-7]|1072):-?[0-9]+' "$tmp/kept/thread.prv" | tr '\n' ' ')" \
		"1057:2001 1055:3001 1057:2001 1055:3001 1053:1 1072:1 1072:1 1052:124000 1052:7000000000 1054:1 1053:2 1053:2 "
fi
expect "kept stats" "$("$WEFT" stats -q "$fx/kept.trf" | awk '$2 == "msg" && $3 == "op" && $4 == "-" && !/tracing|user event/ {
	$1 = $1; print }')" \
"picl.0/1/1 msg op - message [-7] 0.000000000 2 -
picl.0/1/1 msg op - processor subset defined [-201] 0.000000000 1 -
picl.0/1/1 msg op - event type subset defined [-203] 0.000000000 1 -
picl.0/1/1 msg op - user record 0 [-100000] 0.000000000 1 -
picl.1/2/2 msg op - message [-7] 0.000000000 1 -
picl.1/2/2 msg op - processor subset defined [-201] 0.000000000 1 -
picl.1/2/2 msg op - event type subset defined [-203] 0.000000000 1 -
picl.1/2/2 msg op - user record 3 [-100003] 0.000000000 1 -
picl.1/2/2 msg op - user record 4 [-100004] 0.000000000 1 -"
# a file opened without a name beside one with a name: every file id gets a
# label (weft check wants one for each value of a type with VALUES)
printf -- '-3 -901 0.0 0 0 0\n-3 -201 0.1 0 0 1 1 "a.dat"\n-4 -201 0.2 0 0 1 2 5\n-3 -201 0.3 0 0 0
-4 -201 0.4 0 0 1 2 6\n-3 -221 0.5 0 0 2 2 10 6\n-4 -221 0.6 0 0 0\n-4 -901 0.7 0 0 0\n' >"$tmp/noname.trf"
rm -rf "$tmp/noname"
if "$WEFT" emu -q -o "$tmp/noname" "$tmp/noname.trf" 2>"$tmp/err" && "$WEFT" check -q "$tmp/noname/thread.prv" >"$tmp/chk" 2>&1
then
	expect "file without a name labelled" "$(sed -n '/^0 1072 /,/^$/p' "$tmp/noname/thread.pcf" | tr '\n' '|')" \
		"0 1072 File I/O: file id|VALUES|1 a.dat|-1 no name||"
else
	fail "file without a name" "$(head -3 "$tmp/err" "$tmp/chk")"
fi
# the same records read unsorted (grouped by processor: read again, held
# whole) give the same streams
sort -s -n -k4,4 "$fx/kept.trf" >"$tmp/kept-byproc.trf"
rm -rf "$tmp/kept-imp" "$tmp/kept-byproc"
"$WEFT" import picl "$fx/kept.trf" -o "$tmp/kept-imp" >/dev/null 2>&1
"$WEFT" import picl "$tmp/kept-byproc.trf" -o "$tmp/kept-byproc" >/dev/null 2>&1
expect "kept unsorted, same streams" "$(diff -r "$tmp/kept-imp" "$tmp/kept-byproc" >/dev/null 2>&1 && echo same)" same

# scoped -6 aliases: code 9 for event -21 everywhere (one field of 3
# integers), code 8 two integers per field on the processors of subset -7
# (1 and 2) but one on processor 0
if emu alias; then
	expect "alias comms" "$(comms alias | tr '\n' ' ')" \
		"3:1:1:1:1:1000:2000:3:1:2:1:1000:5000:16:4 3:3:1:2:1:7000:8000:1:1:1:1:6000:9000:8:3 "
fi

# weft synth --format picl: same options, same bytes; valid; causal in true
# time; clock offsets and drift give receives before sends
synth() { "$WEFT" synth --format picl "$@" >"$tmp/synth.out" 2>&1; }
if synth -o "$tmp/s1.trf" --procs 6 -n 20000 --traffic random --seed 3 --offset 30us --drift 40 \
	--truth "$tmp/s1.json" && synth -o "$tmp/s2.trf" --procs 6 -n 20000 --traffic random --seed 3 \
	--offset 30us --drift 40; then
	expect "synth deterministic" "$(cmp "$tmp/s1.trf" "$tmp/s2.trf" && echo same)" same
	synth -o "$tmp/s3.trf" --procs 6 -n 20000 --traffic random --seed 4 --offset 30us --drift 40
	expect "synth seed matters" "$(cmp -s "$tmp/s1.trf" "$tmp/s3.trf" || echo differ)" differ
	expect "synth no temporary left" "$(ls "$tmp" | grep -c 'tmp-')" 0
	expect "synth truth processors" "$(grep -c '"offset_ns"' "$tmp/s1.json")" 6
	expect "synth truth reference" "$(grep -c '{"id": 0, "offset_ns": 0, "drift_ppm": 0.000}' "$tmp/s1.json")" 1
	n=$(wc -l <"$tmp/s1.trf")
	[ "$n" -ge 19000 ] && [ "$n" -le 20100 ] && pass "synth about -n records ($n)" || fail "synth records" "$n for 20000"
	sends=$(grep -c '^-3 -21 ' "$tmp/s1.trf")
	rm -rf "$tmp/s1"
	if "$WEFT" emu -o "$tmp/s1" "$tmp/s1.trf" >/dev/null 2>"$tmp/err" && "$WEFT" check -q "$tmp/s1/thread.prv" >/dev/null; then
		pass "synth emu+check"
		expect "synth every send one comm" "$(awk -F: '$1 == 3' "$tmp/s1/thread.prv" | wc -l | tr -d ' ')" "$sends"
		expect "synth skew seen" "$(grep -c 'are received before they are sent' "$tmp/err")" 1
		expect "synth sorted by local time" "$(awk '$1 > -100 {print $3}' "$tmp/s1.trf" | sort -c -g 2>&1 | wc -l | tr -d ' ')" 0
	else
		fail "synth emu+check" "$(head -3 "$tmp/err")"
	fi
	# true clocks, nanosecond timestamps: every message arrives after its
	# send plus the smallest latency, none before it was sent
	synth -o "$tmp/s4.trf" --procs 5 -n 10000 --traffic all --digits 9 --latency 3us-7us
	rm -rf "$tmp/s4"
	"$WEFT" emu -o "$tmp/s4" "$tmp/s4.trf" >/dev/null 2>"$tmp/err"
	expect "synth causal in true time" "$(grep -c 'received before' "$tmp/err")" 0
	expect "synth latency" "$(awk -F: '$1 == 3 && $13 - $6 < 3000' "$tmp/s4/thread.prv" | wc -l | tr -d ' ')" 0
	expect "synth ns digits" "$(head -1 "$tmp/s4.trf" | awk '{print length($3)}')" 11
	synth -o "$tmp/s5.trf" --procs 3 --duration 2ms --offset 0,1500,-2us --drift 0,2.5,-1 --no-stats \
		--truth "$tmp/s5.json"
	expect "synth explicit clocks" "$(grep -o '"offset_ns": [-0-9]*, "drift_ppm": [-.0-9]*' "$tmp/s5.json" | tr '\n' ' ')" \
		'"offset_ns": 0, "drift_ppm": 0.000 "offset_ns": 1500, "drift_ppm": 2.500 "offset_ns": -2000, "drift_ppm": -1.000 '
	expect "synth no stats" "$(grep -c '^-10[123] ' "$tmp/s5.trf")" 0
	# a sorted log is written as it is read; the same log with its lines
	# grouped by processor (unsorted, found so after some were written: read
	# again, holding everything) gives the same streams, and the warnings of
	# the first reading are shown once
	synth -o "$tmp/s6.trf" --procs 4 -n 20000 --traffic random --seed 5 --offset 20us
	sort -s -n -k4,4 "$tmp/s6.trf" >"$tmp/s6-byproc.trf"
	{ printf -- '-9 -1 0.0 1 0 0\n-9 -1 0.0 1 0 0\n'; cat "$tmp/s6-byproc.trf"; } >"$tmp/s6-warn.trf"
	rm -rf "$tmp/s6" "$tmp/s6-byproc" "$tmp/s6-warn"
	if "$WEFT" import picl "$tmp/s6.trf" -o "$tmp/s6" 2>"$tmp/err" &&
		"$WEFT" import picl "$tmp/s6-byproc.trf" -o "$tmp/s6-byproc" 2>>"$tmp/err" &&
		"$WEFT" import picl "$tmp/s6-warn.trf" -o "$tmp/s6-warn" 2>"$tmp/err6"; then
		expect "sorted and unsorted logs, same streams" "$(diff -r "$tmp/s6" "$tmp/s6-byproc" >/dev/null && echo same)" same
		expect "unsorted log read twice, warnings once" "$(grep -c 'unknown system record type' "$tmp/err6")" 2
		expect "unsorted log read twice, same streams" "$(diff -r "$tmp/s6" "$tmp/s6-warn" >/dev/null && echo same)" same
	else
		fail "sorted and unsorted logs" "$(head -3 "$tmp/err" "$tmp/err6")"
	fi
else
	fail "synth runs" "$(cat "$tmp/synth.out")"
fi
synth_bad() { # name expected-error args...
	_n=$1 _w=$2
	shift 2
	"$WEFT" synth --format picl -o "$tmp/bad.trf" "$@" >/dev/null 2>"$tmp/err"
	_rc=$?
	expect "synth usage $_n" "$_rc $(head -1 "$tmp/err")" "2 $_w"
}
synth_bad drift "weft synth: --drift: expected 0 to 1000 ppm or a comma list, found '2000'" --drift 2000
synth_bad latency "weft synth: --latency: expected MIN-MAX (e.g. 2us-10us), found '10-2'" --latency 10-2
synth_bad offsets "weft synth: --offset: more values than processors at '3' (item 3 of 2 processors)" --procs 2 --offset 1,2,3
synth_bad procs "weft synth: --procs: expected 2 to 32767, found '1'" --procs 1
synth_bad traffic "weft synth: --traffic: expected ring, all or random, found 'star'" --traffic star

# malformed logs: exact errors
bad() { # name text expected-error
	printf '%s\n' "$2" >"$tmp/$1.trf"
	rm -rf "$tmp/$1.out"
	if "$WEFT" emu -q -o "$tmp/$1.out" "$tmp/$1.trf" 2>"$tmp/err"; then
		fail "malformed $1" "accepted"
		return
	fi
	expect "malformed $1" "$(sed 's|^weft: error: ||; s|^.*/||' "$tmp/err" | head -1)" "$1.trf:$3"
}
bad time '-3 -901 0.0 0 0 0
-3 -21 0.0x1 0 0 3 2 8 1 7' '2: field 3 (timestamp): expected decimal seconds, found '\''0.0x1'\'''
bad count '-3 -901 0.0 0 0 0
-3 -21 0.1 0 0 3 2 8 1' '2: data: expected 3 tokens (3 fields of 1), found 2'
bad quote '-3 -901 0.0 0 0 0
-3 -21 0.1 0 0 3 "%d 8 1 7' '2: a quoted string is not closed: expected '\''"'\'''
bad proc '-3 -901 0.0 0 0 0
-3 -21 0.1 40000 0 3 2 8 1 7' '2: field 4 (processor id): expected 0..32766 or the host 32767 (-1 and below are global), found '\''40000'\'''
bad short '-3 -901 0.0 0 0 0
-3 -21 0.1 0' '2: record of 4 fields: expected at least 6 (record type, event type, timestamp, processor, process, number of data fields)'
bad oldkey '1 0 0 0 0 0 0
4 0 x 0 1 2 3' '2: field 3 (microseconds): expected an integer, found '\''x'\'''
bad oldfields '1 0 0 0 0 0 0
4 0 10 0 1 2' '2: send record: expected 3 fields after the node, found 2'

bad subset '-201 -1 0.0 -1 -1 2 2 3 1
-3 -901 0.0 0 0 0' '1: field 8 (subset id): expected an integer below -1, found '\''3'\'''
bad msgproc '-3 -901 0.0 0 0 0
-7 -1 0.1 40000 0 1 0 hello' '2: field 4 (processor id): expected 0..32766 or the host 32767 (-1 and below are global), found '\''40000'\'''
bad statpairs '-3 -901 0.0 0 0 0
-101 -1 0.1 0 0 1 "%d%lf" -21' '2: data: expected 2 tokens (1 fields of 2), found 1'
bad contend '-3 -901 0.0 0 0 0
-3 -21 0.1 0 0 3 2 8 1 \' "2: record continued with '\\': expected a continuation line, found the end of the file"
bad aliasscope '-6 -1 0.0 0 -1 1 "%d%s" 8 "%d"
-3 -901 0.0 0 0 0
-3 -52 0.000006 0 0 1 8 3 4' '3: data: expected 1 tokens (1 fields of 1), found 2'

# a model error names the log and the line of the record behind the event:
# line 1 opens -901, lines 2..256 open 255 user events (256 calls open, the
# model's most), line 257 opens one more
{
	echo '-3 -901 0.0 0 0 0'
	awk 'BEGIN { for (i = 1; i <= 260; i++) printf "-3 5 0.%04d 0 0 0\n", i }'
	echo '-4 -901 0.9 0 0 0'
} >"$tmp/deep.trf"
"$WEFT" emu -q -o "$tmp/deep" "$tmp/deep.trf" 2>"$tmp/err"
expect "model error names the line" "$(sed "s|^weft: error: $tmp/||; s/ (time [^)]*)//" "$tmp/err")" \
	"deep.trf:257: event XE[: PICL calls nested 256 deep: expected exits"

# plain lines read in chunks on two threads (picl_par.c) give the outputs
# and messages of one thread (WEFT_PICL_THREADS=1), also with tiny chunks
# (every boundary case: aliases, code 2 redefined midway as character data,
# continued records, unsorted logs, warnings of the writing)
"$WEFT" synth --format picl -o "$tmp/par.trf" --procs 5 -n 3000 --seed 4 >/dev/null 2>&1
"$WEFT" synth --format picl -o "$tmp/par-digits.trf" --procs 3 -n 2000 --digits 9 --no-stats >/dev/null 2>&1
awk 'NR % 50 == 7 { print; getline; t = $0; next } { print } END { if (t) print t }' "$tmp/par.trf" \
	>"$tmp/par-unsorted.trf"
awk 'NR == 1500 { print "-6 -1 0.0 -1 -1 1 \"%d%s\" 2 \"%s\"" } { print }' "$tmp/par.trf" >"$tmp/par-alias.trf"
awk '$1 == -3 && $2 == -21 && ++n % 37 == 0 { next } $1 == -3 && $2 == 1 && ++u % 23 == 0 { next } { print }' \
	"$tmp/par.trf" >"$tmp/par-warn.trf" # exits and block ends with no entry on every processor
for f in "$fx"/*.trf "$tmp"/par*.trf; do
	n=$(basename "$f" .trf)
	same=same
	for c in 1 32768 9 61; do
		rm -rf "$tmp/par-$c"
		threads=2
		[ "$c" = 1 ] && threads=1
		WEFT_PICL_THREADS=$threads WEFT_PICL_CHUNK=$c "$WEFT" emu -k -o "$tmp/par-$c" "$f" 2>&1 |
			sed "s|$tmp/par-$c||g; /events in/d" >"$tmp/par-$c.err"
		for x in thread.prv cpu.prv; do
			[ -f "$tmp/par-$c/$x" ] && sed 1d "$tmp/par-$c/$x" >"$tmp/par-$c/$x.body"
		done
	done
	for c in 32768 9 61; do
		diff -r -x thread.prv -x cpu.prv "$tmp/par-1" "$tmp/par-$c" >/dev/null 2>&1 || same="outputs differ (chunks of $c)"
		cmp -s "$tmp/par-1.err" "$tmp/par-$c.err" || same="messages differ (chunks of $c)"
	done
	expect "two-thread reading $n" "$same" same
done

finish
