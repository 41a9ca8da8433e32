#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft query` and `weft dump --filter` on the corpus.
#
#   WEFT=/abs/path/to/weft sh test/e2e/query.sh
#
# For every ovni trace of test/corpus: counts of several MCVs and of
# every event, asked in one run, equal weft top's (and for legacy logs,
# imported on the fly); hand counts on o-small
# (dump piped through awk) for fields, threads, sums, model states and time
# thresholds; the
# actions first/last/stop; -f files; --json lines checked by a small JSON
# parser in awk; the interactive toplevel driven from stdin; dump --filter
# equal to dump piped through awk; error messages and exit codes.
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT
fail_show=$tmp/err
LC_ALL=C
export LC_ALL
: > "$tmp/err"

# The count a `LABEL: count N` line reports (empty if none).
count_of() { # FILE LABEL
	awk -v l="$2:" '$1 == l && $2 == "count" { print $3 }' "$1"
}

# ---- every corpus trace: counts equal weft top's -----------------------------

# and a 1 M-event weft synth trace of 4 looms in place of the corpus's
# o-medium (too big to keep in the repository)
mkdir "$tmp/synth-medium"
"$WEFT" synth -o "$tmp/synth-medium/trace" --looms 4 --procs 2 --threads 2 --cpus 4 \
	-n 1M --seed 1 > /dev/null 2> "$tmp/err" || fail "synth-medium" "weft synth failed"
for t in "$corpus"/ovni/*/trace "$corpus"/ovni/ok-small/trace-unsorted "$tmp/synth-medium/trace"; do
	[ -d "$t" ] || continue
	name=$(basename "$(dirname "$t")")/$(basename "$t")
	if ! "$WEFT" top "$t" > "$tmp/top" 2> "$tmp/err"; then
		fail "$name top" "weft top failed"
		continue
	fi
	total=$(awk '/^events/ { print $2 }' "$tmp/top")
	# OHx, OHe and the three most frequent MCVs (quotes and backslashes aside)
	mcvs=$( (echo OHx; echo OHe; awk 'NF == 2 && $1 !~ /["\\]/ { print $1 }' "$tmp/top" | head -n 3) |
		awk '!seen[$0]++')
	set -- "all: when true do count"
	k=0
	for m in $mcvs; do
		k=$((k + 1))
		set -- "$@" "m$k: when mcv = \"$m\" do count"
	done
	if ! "$WEFT" query "$t" "$@" > "$tmp/q" 2> "$tmp/err"; then
		fail "$name query" "weft query exited with status $?"
		continue
	fi
	got=$(count_of "$tmp/q" all)
	if [ "$got" = "$total" ]; then
		pass "$name: 'when true do count' = $total events (weft top)"
	else
		fail "$name total" "query counts '$got', top counts $total"
	fi
	k=0
	bad=""
	for m in $mcvs; do
		k=$((k + 1))
		want=$(awk -v m="$m" '$1 == m && NF == 2 { print $2 }' "$tmp/top")
		[ -n "$want" ] || want=0
		got=$(count_of "$tmp/q" "m$k")
		[ "$got" = "$want" ] || bad="$bad $m:query=$got,top=$want"
	done
	if [ -z "$bad" ]; then
		pass "$name: mcv counts equal weft top ($(echo $mcvs | tr ' ' ','))"
	else
		fail "$name mcv counts" "$bad"
	fi
done

# ---- legacy logs (imported on the fly) count like weft top ---------------------

for f in "$here"/picl/fft.trf "$here"/visandor/seed-andorra.vao; do
	[ -f "$f" ] || continue
	name=$(basename "$(dirname "$f")")/$(basename "$f")
	total=$("$WEFT" top "$f" 2> "$tmp/err" | awk '/^events/ { print $2 }')
	got=$("$WEFT" query "$f" 'all: when true do count' 2>> "$tmp/err" | awk '{ print $3 }')
	[ -n "$total" ] && [ "$got" = "$total" ] && pass "$name: 'when true do count' = $total events (weft top)" ||
		fail "$name" "query counts '$got', top counts '$total'"
done

# ---- patterns are independent: one run with four = four runs ---------------

t=$corpus/ovni/om-small/trace
p1='a: when model_name = mpi and val = "[" do count'
p2='b: when mcv in ["OM[", "OM]"] and tid > 100000 do count'
p3='c: when not model = "O" or cat = "H" do count'
p4='d: when loom = node01 and (cat = "s" or cat = "r") do count'
"$WEFT" query "$t" "$p1" "$p2" "$p3" "$p4" > "$tmp/four" 2> "$tmp/err"
: > "$tmp/one"
for p in "$p1" "$p2" "$p3" "$p4"; do
	"$WEFT" query "$t" "$p" >> "$tmp/one" 2>> "$tmp/err"
done
if [ -s "$tmp/four" ] && cmp -s "$tmp/four" "$tmp/one"; then
	pass "four patterns in one pass count as four separate runs"
else
	fail "independence" "$(diff "$tmp/four" "$tmp/one" | head -5)"
fi

# ---- hand counts on o-small ------------------------------------------------------

t=$corpus/ovni/o-small/trace
"$WEFT" dump "$t" > "$tmp/dump" 2> "$tmp/err"
want=$(awk '$2 ~ /^OM/ && $3 == "node00/100000/100000"' "$tmp/dump" | wc -l | tr -d ' ')
got=$("$WEFT" query "$t" 'marks: when model = "O" and cat = "M" and loom = node00 and tid = 100000 do count' |
	awk '{ print $3 }')
[ "$got" = "$want" ] && [ "$want" -gt 0 ] && pass "marks of thread 100000: $got (dump | awk)" ||
	fail "marks of one thread" "query $got, dump $want"

awk '$2 == "OHp" { split($3, a, "/"); n[a[3]]++ } END { for (t in n) print "p: count(tid)", t, n[t] }' \
	"$tmp/dump" | sort > "$tmp/want"
"$WEFT" query "$t" 'p: when mcv = "OHp" do count(tid)' | sort > "$tmp/got"
if [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
	pass "count(tid) of OHp equals dump | awk per thread"
else
	fail "count(tid)" "$(diff "$tmp/want" "$tmp/got" | head -5)"
fi

want=$(awk '$2 == "OM=" && $3 ~ /^node01\// { s += $NF } END { print s + 0 }' "$tmp/dump")
got=$("$WEFT" query "$t" 's: when mcv = "OM=" and loom = node01 do sum(value)' | awk '{ print $3 }')
[ "$got" = "$want" ] && pass "sum(value) of OM= on node01: $got (dump | awk)" ||
	fail "sum(value)" "query $got, dump $want"

want=$(awk '$2 == "OM[" && $6 >= 2 && $6 <= 3 && $NF == 2' "$tmp/dump" | wc -l | tr -d ' ')
got=$("$WEFT" query "$t" 'v: when mcv = "OM[" and value in 2..3 and type = 2 do count' | awk '{ print $3 }')
[ "$got" = "$want" ] && [ "$want" -gt 0 ] && pass "payload fields: OM[ value in 2..3, type 2: $got (dump | awk)" ||
	fail "payload fields" "query $got, dump $want"

want=$(awk '$2 == "OAr" && $NF == 2 && $6 != 100001' "$tmp/dump" | wc -l | tr -d ' ')
got=$("$WEFT" query "$t" 'r: when mcv = "OAr" and field.cpu = 2 and field.tid != 100001 do count' |
	awk '{ print $3 }')
[ "$got" = "$want" ] && [ "$want" -gt 0 ] && pass "field.cpu (the payload field, not the built-in cpu): $got (dump | awk)" ||
	fail "field.cpu" "query $got, dump $want"

# model states before the event: a pause leaves Running or Cooling, a resume
# leaves Paused or Warming, a thread starts from Unknown
"$WEFT" query "$t" 'p: when mcv = "OHp" and state.ovni in [Running, Cooling] do count' \
	'r: when mcv = "OHr" and state.ovni in [Paused, Warming] do count' \
	'x: when mcv = "OHx" and state.ovni = Unknown do count' \
	'e: when mcv = "OHe" and has(cpu) and cpu >= 0 do count' > "$tmp/q" 2> "$tmp/err"
if [ "$(count_of "$tmp/q" p)" = 125 ] && [ "$(count_of "$tmp/q" r)" = 125 ] &&
	[ "$(count_of "$tmp/q" x)" = 8 ] && [ "$(count_of "$tmp/q" e)" = 8 ]; then
	pass "state.ovni is the state before the event; cpu is the thread's cpu"
else
	fail "state.ovni" "$(tr '\n' ' ' < "$tmp/q")"
fi

# time units (the trace spans 0.72 ms): 200us = 200000ns = 0.2ms
a=$("$WEFT" query "$t" 'a: when time < 200us do count' | awk '{ print $3 }')
b=$("$WEFT" query "$t" 'a: when time < 200000ns do count' | awk '{ print $3 }')
c=$("$WEFT" query "$t" 'a: when time < 200000 do count' | awk '{ print $3 }')
d=$("$WEFT" query "$t" 'a: when time in 0..199999 do count' | awk '{ print $3 }')
e=$("$WEFT" query "$t" 'a: when time >= 1ms do count' | awk '{ print $3 }')
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" = "$c" ] && [ "$a" = "$d" ] && [ "$a" -gt 0 ] && [ "$a" -lt 4858 ] &&
	[ "$e" = 0 ] && pass "time units: 200us = 200000ns = 200000 = in 0..199999 ($a events), none after 1ms" ||
	fail "time units" "$a $b $c $d"

# time thresholds that fall on events (the batch path folds them into the
# prefilter as time passes) and per-stream counts and sums (kept per slot),
# against every event printed with its attributes
"$WEFT" query "$t" 'e: when true do current(time, clock, chrono, tid, loom, mcv)' > "$tmp/ev" 2> "$tmp/err"
x=$(awk -F'[ =]' 'NR == 1000 { print $3 }' "$tmp/ev")
y=$(awk -F'[ =]' 'NR == 3000 { print $3 }' "$tmp/ev")
"$WEFT" query "$t" "gt: when time > $x and mcv = \"OHp\" do count(tid), count(loom), sum(time), sum(clock), sum(chrono)" \
	"ge: when time >= $x and time < $y do count, sum(tid)" "eq: when time = $x or time = $y do count" \
	'p: when mcv = "OHp" and loom = node01 do current(chrono)' 2> "$tmp/err" | sort > "$tmp/got"
awk -F'[ =]' -v x="$x" -v y="$y" '
	$3 >= x && $3 < y { ge++; tid += $9 }
	$3 == x || $3 == y { eq++ }
	END { printf "ge: count %d\nge: sum(tid) %d\neq: count %d\n", ge, tid, eq }' "$tmp/ev" > "$tmp/want"
awk -F'[ =]' -v x="$x" -v y="$y" '
	$13 != "OHp" { next }
	$11 == "node01" {
		# the line names every pattern the event matched
		printf "%s%s%sp: chrono=%d\n", ($3 > x ? "gt," : ""), ($3 >= x && $3 < y ? "ge," : ""),
			($3 == x || $3 == y ? "eq," : ""), $7
	}
	$3 > x { n[$9]++; l[$11]++; st += $3; sc += $5; sch += $7 }
	END {
		for (k in n) printf "gt: count(tid) %d %d\n", k, n[k]
		for (k in l) printf "gt: count(loom) %s %d\n", k, l[k]
		printf "gt: sum(time) %.0f\ngt: sum(clock) %.0f\ngt: sum(chrono) %.0f\n", st, sc, sch
	}' "$tmp/ev" >> "$tmp/want"
sort -o "$tmp/want" "$tmp/want"
if [ -n "$x" ] && [ "$x" -gt 0 ] && grep -q '^gt: count(tid)' "$tmp/want" && cmp -s "$tmp/got" "$tmp/want"; then
	pass "time >, >=, = at the times of events 1000 and 3000; count(tid), sums (events printed | awk)"
else
	fail "time thresholds and per-stream counts" "$(diff "$tmp/want" "$tmp/got" | head -5)"
fi

# ---- actions: first, last, stop --------------------------------------------------

"$WEFT" query "$t" 'f: when mcv = "OHe" do first, current(chrono, tid)' \
	'l: when mcv = "OHe" do last, current(chrono, tid)' 'n: when mcv = "OHe" do count' > "$tmp/q"
nf=$(grep -c '^f' "$tmp/q")
nl=$(grep -c '^l:' "$tmp/q")
fc=$(awk '$1 ~ /^f/ { sub("chrono=", "", $2); print $2 }' "$tmp/q")
lc=$(awk '$1 == "l:" { sub("chrono=", "", $2); print $2 }' "$tmp/q")
if [ "$nf" = 1 ] && [ "$nl" = 1 ] && [ "$(count_of "$tmp/q" n)" = 8 ] && [ "$fc" -lt "$lc" ]; then
	pass "first prints one match, last one at the end (chrono $fc < $lc), count sees all 8"
else
	fail "first/last" "$(tr '\n' '|' < "$tmp/q")"
fi

"$WEFT" query "$t" 's: when mcv = "OHe" do stop, current(chrono)' 'n: when true do count' > "$tmp/q"
sc=$(awk '$1 ~ /^s/ { sub("chrono=", "", $2); print $2 }' "$tmp/q")
n=$(count_of "$tmp/q" n)
[ -n "$sc" ] && [ "$n" = $((sc + 1)) ] && [ "$n" -lt 4858 ] &&
	pass "stop ends the run after the match (chrono $sc, $n events seen)" ||
	fail "stop" "$(tr '\n' '|' < "$tmp/q")"

# labels of every pattern an event matched lead its line
"$WEFT" query "$t" 'a: when mcv = "OHx" do current(tid)' 'b: when mcv = "OHx" and loom = node01 do count' \
	'c: when loom = node01 and mcv = "OHx" do current(pid)' > "$tmp/q"
n1=$(grep -c '^a: tid=[0-9]*$' "$tmp/q")
n2=$(grep -c '^a,b,c: tid=[0-9]* pid=[0-9]*$' "$tmp/q")
[ "$n1" = 4 ] && [ "$n2" = 4 ] && pass "lines are led by the labels of all matched patterns (a / a,b,c)" ||
	fail "labels" "$(head -3 "$tmp/q" | tr '\n' '|')"

# ---- -f FILE -------------------------------------------------------------------

cat > "$tmp/pats" <<'EOF'
# marks and pauses on o-small

m: when model = "O" and cat = "M" do count   # every mark
p: when mcv = "OHp" do count
EOF
"$WEFT" query -f "$tmp/pats" "$t" > "$tmp/q1" 2> "$tmp/err"
"$WEFT" query "$t" 'm: when model = "O" and cat = "M" do count' 'p: when mcv = "OHp" do count' > "$tmp/q2"
[ -s "$tmp/q1" ] && cmp -s "$tmp/q1" "$tmp/q2" && pass "-f FILE (comments, blank lines) = the same patterns as arguments" ||
	fail "-f FILE" "$(diff "$tmp/q1" "$tmp/q2" | head -4)"

printf 'ok: when true do count\n\nbad: when tid foo 1 do count\n' > "$tmp/bad"
"$WEFT" query -f "$tmp/bad" "$t" > /dev/null 2> "$tmp/msg"
rc=$?
want="weft: error: pattern 2 ($tmp/bad line 3), column 15: expected an operator (=, \\=, !=, <, >, =<, <=, >=, in, notin, contains, notcontains), found \"foo\""
[ $rc = 2 ] && [ "$(cat "$tmp/msg")" = "$want" ] && pass "a bad pattern in a file names its line and column (exit 2)" ||
	fail "-f error" "exit $rc: $(cat "$tmp/msg")"

# ---- errors -------------------------------------------------------------------

"$WEFT" query "$t" 'x: when mcv foo "OHx" do count' > /dev/null 2> "$tmp/msg"
rc=$?
want='weft: error: pattern 1, column 13: expected an operator (=, \=, !=, <, >, =<, <=, >=, in, notin, contains, notcontains), found "foo"'
[ $rc = 2 ] && [ "$(cat "$tmp/msg")" = "$want" ] && pass "parse error: column and what was expected (exit 2)" ||
	fail "parse error" "exit $rc: $(cat "$tmp/msg")"
"$WEFT" query "$t" 'ok: when true do count' 'x: when sizes > 1 do count' > /dev/null 2> "$tmp/msg"
rc=$?
case $(cat "$tmp/msg") in
"weft: error: pattern 2, column 9: unknown attribute \"sizes\""*) ok=1 ;;
*) ok=0 ;;
esac
[ $rc = 2 ] && [ $ok = 1 ] && pass "unknown attribute named with its pattern number" ||
	fail "unknown attribute" "exit $rc: $(cat "$tmp/msg")"
"$WEFT" query "$t" > /dev/null 2> "$tmp/msg"
[ $? = 2 ] && grep -q "expected at least one PATTERN" "$tmp/msg" && pass "no pattern: usage error (exit 2)" ||
	fail "no pattern" "$(cat "$tmp/msg")"
"$WEFT" query "$tmp/nonexistent" 'x: when true do count' > /dev/null 2> "$tmp/msg"
[ $? = 1 ] && pass "a missing trace is an input error (exit 1)" || fail "missing trace" "$(cat "$tmp/msg")"

# ---- --json ----------------------------------------------------------------------

# A JSON parser for one value per line: prints the numbers of bad lines.
cat > "$tmp/json.awk" <<'EOF'
function ws() { while (i <= n && (substr(s, i, 1) == " " || substr(s, i, 1) == "\t")) i++ }
function jstr(   c) {
	i++
	while (i <= n) {
		c = substr(s, i, 1)
		if (c == "\"") { i++; return 1 }
		if (c == "\\") {
			c = substr(s, i + 1, 1)
			if (index("\"\\/bfnrt", c)) { i += 2; continue }
			if (c == "u" && substr(s, i + 2, 4) ~ /^[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]$/) { i += 6; continue }
			return 0
		}
		if (c < " ") return 0
		i++
	}
	return 0
}
function jval(   c, r) {
	ws()
	c = substr(s, i, 1)
	if (c == "{") return jobj()
	if (c == "[") return jarr()
	if (c == "\"") return jstr()
	if (substr(s, i, 4) == "null" || substr(s, i, 4) == "true") { i += 4; return 1 }
	if (substr(s, i, 5) == "false") { i += 5; return 1 }
	r = substr(s, i)
	if (match(r, /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) { i += RLENGTH; return 1 }
	return 0
}
function jobj(   c) {
	i++; ws()
	if (substr(s, i, 1) == "}") { i++; return 1 }
	for (;;) {
		ws()
		if (substr(s, i, 1) != "\"" || !jstr()) return 0
		ws()
		if (substr(s, i, 1) != ":") return 0
		i++
		if (!jval()) return 0
		ws(); c = substr(s, i, 1); i++
		if (c == "}") return 1
		if (c != ",") return 0
	}
}
function jarr(   c) {
	i++; ws()
	if (substr(s, i, 1) == "]") { i++; return 1 }
	for (;;) {
		if (!jval()) return 0
		ws(); c = substr(s, i, 1); i++
		if (c == "]") return 1
		if (c != ",") return 0
	}
}
{
	s = $0; n = length(s); i = 1
	if (substr(s, 1, 1) != "{" || !jval()) { print NR; next }
	ws()
	if (i != n + 1) print NR
}
EOF
"$WEFT" query --json "$t" 'a: when mcv = "OHx" or mcv = "OM=" do current(time, tid, mcv, desc, rank, loom, stream)' \
	'b: when model = "O" do count(mcv), count(state.ovni), sum(tid)' \
	'c: when mcv = "OHe" do last, current(chrono, cpu, state.ovni)' > "$tmp/j" 2> "$tmp/err"
lines=$(wc -l < "$tmp/j" | tr -d ' ')
badl=$(awk -f "$tmp/json.awk" "$tmp/j" | head -n 3 | tr '\n' ' ')
nl=$(grep -c '^{"labels":\["a"' "$tmp/j")
if [ "$lines" -gt 2 ] && [ -z "$badl" ] && [ "$nl" = 90 ] &&
	tail -n 1 "$tmp/j" | grep -q '^{"summary":{"events":4858,"patterns":\[{"label":"a","matches":90}' &&
	tail -n 2 "$tmp/j" | head -n 1 | grep -q '^{"labels":\["c"\],"chrono":[0-9]*,"cpu":[0-9]*,"state.ovni":"Running"}$'; then
	pass "--json: $lines lines, each one valid JSON (awk parser), summary last"
else
	fail "--json" "bad lines: $badl; $nl a-lines; last: $(tail -n 1 "$tmp/j" | cut -c1-120)"
fi
printf '{"a":[1,2,{"b":null}],"c":"x\\"y"}\n{"a":1,}\n{"a":"\\q"}\n{"a":1} x\n' > "$tmp/jt"
[ "$(awk -f "$tmp/json.awk" "$tmp/jt" | tr '\n' ' ')" = "2 3 4 " ] && pass "the awk JSON checker rejects bad JSON" ||
	fail "json checker" "$(awk -f "$tmp/json.awk" "$tmp/jt" | tr '\n' ' ')"

# ---- interactive -------------------------------------------------------------------

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
go
go
reset
list
rewind
step
add s: when mcv = "OHe" and tid = 200001 do_synchro current(tid), call(ended)
go
go
quit
EOF
"$WEFT" query -i "$t" < "$tmp/cmds" > "$tmp/session" 2> "$tmp/err"
rc=$?
cat > "$tmp/want" <<'EOF'
error: no current event (at the start of the trace: step or go first)
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
error: remove: no pattern is labelled "d"
error: unknown command "bogus" (help lists the commands)
error: pattern, column 9: unknown attribute "foo" (expected mcv, model, cat, val, model_name, time, clock, chrono, loom, pid, tid, rank, app, cpu, stream, desc, state.<model> or a payload field of an event table: see weft models)
end of trace after 4858 events
c: count 60
end of trace (rewind goes back to the start)
reset: removed 1 pattern
no patterns
step: chrono=0 time=0 mcv=OHx loom=node00 pid=100000 tid=100000 desc="starts running on cpu 0 (created by thread -1, tag 0)"
added s
s: calls=ended tid=200001
stop: chrono=4774 time=683116 mcv=OHe loom=node01 pid=200000 tid=200001 desc=ends
end of trace after 4858 events
EOF
if [ $rc = 0 ] && cmp -s "$tmp/want" "$tmp/session"; then
	pass "interactive: add, list, step, current, go to a stop, remove, end of trace, reset, rewind, do_synchro, quit"
else
	fail "interactive" "exit $rc: $(diff "$tmp/want" "$tmp/session" | head -6 | tr '\n' '|')"
fi
want=$(awk '$2 == "OHp" && $3 ~ /^node00\//' "$tmp/dump" | wc -l | tr -d ' ')
got=$(awk '$1 == "c:" && $2 == "count" { print $3 }' "$tmp/session")
[ "$want" = "$got" ] && pass "interactive count of node00 pauses = dump | awk ($want)" ||
	fail "interactive count" "dump | awk counts $want, the session $got"
printf 'go\ngo\nsummary\nquit\n' | "$WEFT" query -i "$t" 'x: when mcv = "OHe" do count, stop' > "$tmp/session" 2> "$tmp/err"
[ "$(grep -c '^stop: chrono=' "$tmp/session")" = 2 ] && grep -q '^x: count 2$' "$tmp/session" &&
	pass "interactive: patterns from the command line are there from the start" ||
	fail "interactive patterns" "$(tr '\n' '|' < "$tmp/session")"
printf 'step\n' | "$WEFT" query -i "$t" > "$tmp/session" 2> "$tmp/err"
[ $? = 0 ] && [ "$(wc -l < "$tmp/session" | tr -d ' ')" = 1 ] && pass "interactive: end of input quits (exit 0), no prompt off a terminal" ||
	fail "interactive eof" "$(cat "$tmp/session")"

# ---- dump --filter --------------------------------------------------------------------

for t in "$corpus"/ovni/o-small/trace "$corpus"/ovni/ok-small/trace "$corpus"/ovni/om-small/trace; do
	name=$(basename "$(dirname "$t")")
	"$WEFT" dump "$t" > "$tmp/dump" 2> "$tmp/err"
	ok=1
	why=""
	tab=$(printf '\t')
	while IFS=$tab read -r filter prog; do
		"$WEFT" dump --filter "$filter" "$t" > "$tmp/f" 2> "$tmp/err" || { ok=0; why="$filter: exit $?"; }
		awk "$prog" "$tmp/dump" > "$tmp/g"
		if [ ! -s "$tmp/g" ] || ! cmp -s "$tmp/f" "$tmp/g"; then
			ok=0
			why="$why [$filter: $(wc -l < "$tmp/f") vs $(wc -l < "$tmp/g") lines]"
		fi
	done <<'EOF'
mcv="OHp"	$2 == "OHp"
loom=node01 and cat="M"	$3 ~ /^node01\// && $2 ~ /^.M/
tid=100000 or not model="O"	$3 ~ /\/100000$/ || $2 !~ /^O/
EOF
	[ $ok = 1 ] && pass "$name: dump --filter EXPR = dump | awk for three filters" || fail "$name dump --filter" "$why"
done
"$WEFT" dump --filter 'state.ovni = Running' "$corpus/ovni/o-small/trace" > /dev/null 2> "$tmp/msg"
[ $? = 2 ] && grep -q 'need the models to run: use weft query' "$tmp/msg" &&
	pass "dump --filter refuses state.<model> (exit 2)" || fail "dump --filter state" "$(cat "$tmp/msg")"
"$WEFT" dump --filter 'tid >' "$corpus/ovni/o-small/trace" > /dev/null 2> "$tmp/msg"
[ $? = 2 ] && [ "$(cat "$tmp/msg")" = 'weft: error: --filter, column 6: expected a value (an integer, a "string", a word, a [list] or a range a..b), found the end of the expression' ] &&
	pass "dump --filter parse error names the column" || fail "dump --filter error" "$(cat "$tmp/msg")"

# ---- state.<model> of an imported model (msg, from the PICL Table 20 example;
# its 32 statistics values are events after the -901 exit, in state 0, and
# its two user events are msg entries and exits too)
t20="$here/picl/table20.trf"
"$WEFT" query "$t20" 's: when true do count(state.msg)' > "$tmp/out" 2> "$tmp/msg"
want='s: count(state.msg) 0 35
s: count(state.msg) 30 20
s: count(state.msg) 31 1
s: count(state.msg) 32 2
s: count(state.msg) 36 1
s: count(state.msg) 38 1
s: count(state.msg) 39 2'
[ "$(cat "$tmp/out")" = "$want" ] && pass "count(state.msg) groups the events by the msg state before them" ||
	fail "count(state.msg)" "$(cat "$tmp/out" "$tmp/msg" | tr '\n' '|')"
n=$("$WEFT" query "$t20" 's: when state.msg = "Receiving (blocked)" do count' 2> "$tmp/msg" | awk '{print $NF}')
[ "$n" = 2 ] && pass "state.msg compares by state label" || fail "state.msg label" "got '$n' $(cat "$tmp/msg")"
"$WEFT" query "$t20" 's: when state.msg = "Bogus" do count' > /dev/null 2> "$tmp/msg"
[ $? = 2 ] && grep -qF 'unknown msg state "Bogus"' "$tmp/msg" && pass "an unknown state label is a parse error" ||
	fail "state.msg bogus" "$(cat "$tmp/msg")"

# ---- depth: deep nesting is a usage error, never a crash ----------------------------
small=$corpus/ovni/o-small/trace
# repeat N TEXT: TEXT N times
repeat() { awk -v n="$1" -v s="$2" 'BEGIN { while (n-- > 0) printf "%s", s }'; }
# deep NAME WANT ARGS...: `weft ARGS` exits 2 with exactly the line WANT
deep() {
	_name=$1 _want=$2
	shift 2
	"$WEFT" "$@" > /dev/null 2> "$tmp/msg"
	_rc=$?
	if [ $_rc -eq 2 ] && [ "$(cat "$tmp/msg")" = "$_want" ]; then
		pass "$_name"
	else
		fail "$_name" "exit $_rc: $(head -c 300 "$tmp/msg")"
	fi
}
{ printf 'p: when '; repeat 50000 '('; printf 'true'; repeat 50000 ')'; printf ' do count\n'; } > "$tmp/parens.q"
deep "50,000 nested parentheses (query -f)" \
	"weft: error: pattern 1 ($tmp/parens.q line 1), column 1009: more than 1000 nested levels of parentheses and not" \
	query -f "$tmp/parens.q" "$small"
{ printf 'p: when '; repeat 1000000 'not '; printf 'true do count\n'; } > "$tmp/nots.q"
deep "1,000,000 not (query -f)" \
	"weft: error: pattern 1 ($tmp/nots.q line 1), column 4009: more than 1000 nested levels of parentheses and not" \
	query -f "$tmp/nots.q" "$small"
deep "50,000 nested parentheses (dump --filter)" \
	"weft: error: --filter, column 1001: more than 1000 nested levels of parentheses and not" \
	dump --filter "$(repeat 50000 '(')true$(repeat 50000 ')')" "$small"
{ printf 'p: when true'; repeat 20000 ' or true'; printf ' do count\n'; } > "$tmp/chain.q"
deep "20,000 alternatives in a row (query -f)" \
	"weft: error: pattern 1 ($tmp/chain.q line 1), column 80006: the expression is more than 10000 levels deep (and, or, not); for many alternatives use 'attr in [v1, v2, ...]'" \
	query -f "$tmp/chain.q" "$small"
{ printf 'p: when '; repeat 1000 '('; printf 'tid = 100000'; repeat 1000 ')'; repeat 9000 ' and true'; printf ' do count\n'; } > "$tmp/edge.q"
n=$("$WEFT" query -f "$tmp/edge.q" "$small" 2> "$tmp/msg" | awk '{print $NF}')
want=$("$WEFT" query "$small" 'p: when tid = 100000 do count' 2>> "$tmp/msg" | awk '{print $NF}')
[ -n "$n" ] && [ "$n" = "$want" ] && pass "1000 parentheses and 9000 and in a row still run ($n events)" ||
	fail "the deepest allowed pattern" "got '$n', expected '$want': $(head -c 300 "$tmp/msg")"


# ---- names the trace lacks: a warning, the answer unchanged --------------------------
test_expect_success 'mcv "OHX" (no such event), loom "node9", nOS-V in an ovni trace: warnings' '
	"$WEFT" query "$small" "a: when mcv = \"OHX\" do count" "b: when loom = \"node9\" do count" \
		"c: when mcv in [\"VTc\", \"OHx\"] do count" >"$tmp/out" 2>"$tmp/err" &&
	test_grep "^weft: warning: pattern a: mcv \"OHX\" is no event of model ovni" "$tmp/err" &&
	test_grep "^weft: warning: pattern b: loom \"node9\" is nowhere in the trace \(its looms: " "$tmp/err" &&
	test_grep "^weft: warning: pattern c: mcv \"VTc\" is nowhere in the trace: no stream uses model V \(nosv\)$" "$tmp/err" &&
	test "$(wc -l <"$tmp/err")" -eq 3 && test_grep "^a: count 0$" "$tmp/out"
'
test_expect_success 'names the trace has: no warning' '
	"$WEFT" query "$small" "d: when mcv = \"OHx\" and loom in [$(sed -n "s/^ *\"loom\": \(\"[^\"]*\"\).*/\1/p" "$small"/loom.*/*/*/stream.json | sort -u | tr "\n" "," | sed "s/,$//")] do count" >/dev/null 2>"$tmp/err" &&
	test_cmp /dev/null "$tmp/err"
'

finish
