#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of `weft emu` over the reference corpus.
#
#   WEFT=/abs/weft PRVDIFF=/abs/prvdiff sh test/e2e/emu.sh
#
# The corpus is test/corpus (this file's directory/../corpus); nothing is
# written into it (every run uses -o into a temporary directory). Checks:
#   - for each ovni/{o-small,o-ties,o-skew,om-small,ok-small,on-small,small,
#     small-split}/trace: `weft emu -q` exits 0; prvdiff finds no difference
#     with ovniemu's thread.prv and cpu.prv (every type, nOS-V's included;
#     rows matched the ovni way); `weft check` accepts both (when it is usable);
#     the six files and cfg/ exist and no temporary file is left;
#   - ok-small/trace-unsorted (with OU[..OU] regions, as libovni wrote it)
#     gives the bodies of ok-small/trace;
#   - -z writes thread.prv.gz and cpu.prv.gz holding the plain bodies;
#   - two runs give byte-identical .prv, .pcf and .row files;
#   - clock offsets: a copy of o-small whose node01 clocks are 2 h late
#     (shift_obs.c) plus an ovnisync table gives o-small's bodies; without the
#     table it is refused; the table also works with -c; -c of a missing
#     file fails;
#   - on-small's nOS-V types (10-16) equal ovniemu's, and --strict accepts it;
#   - a `weft synth` trace emulates cleanly with -l;
#   - the header date: SOURCE_DATE_EPOCH (or 1970 without it) for PICL and
#     VisAndOr logs, the oldest stream.obs time for an ovni trace, clamped to
#     SOURCE_DATE_EPOCH; malformed values refused (exit 1).
# Prints "ok NAME" / "FAIL NAME: why" per check, then "N passed, M failed";
# exits 1 if anything failed, 2 if it cannot run at all.

. "$(dirname "$0")/../lib.sh"
need WEFT PRVDIFF
fail_show=$tmp/err

# `weft check` is being written alongside this suite: use it once it works.
if "$WEFT" check --help >/dev/null 2>&1; then
	have_check=1
else
	have_check=0
	echo "note: '$WEFT check' is not usable; the Paraver validity checks are skipped"
fi

# Checksums of the corpus traces used here, before anything runs.
snapshot() {
	(cd "$corpus/ovni" && find o-small o-ties o-skew om-small ok-small on-small small small-split \
		-print 2>/dev/null | LC_ALL=C sort | while IFS= read -r f; do
		if [ -f "$f" ]; then
			echo "$(cksum <"$f") $f"
		else
			echo "- $f"
		fi
	done)
}
snapshot >"$tmp/corpus.before"

# body FILE: everything after the header line.
body() { tail -n +2 "$1"; }

# same_bodies NAME DIR_A DIR_B: thread.prv and cpu.prv of A and B have equal
# bodies.
same_bodies() {
	_why=
	for _f in thread cpu; do
		if [ ! -f "$2/$_f.prv" ] || [ ! -f "$3/$_f.prv" ]; then
			_why="$_why$_f.prv missing; "
		elif ! body "$2/$_f.prv" >"$tmp/a" || ! body "$3/$_f.prv" >"$tmp/b" ||
			! cmp -s "$tmp/a" "$tmp/b"; then
			_why="$_why$_f.prv bodies differ ($(diff "$tmp/a" "$tmp/b" | head -n 3 | tr '\n' '|')); "
		fi
	done
	: >"$tmp/err"
	if [ -z "$_why" ]; then pass "$1"; else fail "$1" "$_why"; fi
}

# check_prv NAME FILE...: `weft check` accepts the files (when usable).
check_prv() {
	_name=$1
	shift
	[ $have_check = 1 ] || return 0
	if "$WEFT" check -q "$@" >"$tmp/stdout" 2>"$tmp/err"; then
		pass "$_name"
	else
		fail "$_name" "weft check rejects the output"
	fi
}

# emu OUT ARGS...: runs weft emu -o OUT ARGS; status in $rc, stderr in $tmp/err.
emu() {
	_out=$1
	shift
	"$WEFT" emu -o "$_out" "$@" >"$tmp/stdout" 2>"$tmp/err" </dev/null
	rc=$?
}

# ---- each corpus trace against ovniemu's outputs ---------------------------------

traces="o-small o-ties o-skew om-small ok-small on-small small small-split"
for name in $traces; do
	trace=$corpus/ovni/$name/trace
	out=$tmp/out/$name
	if [ ! -d "$trace" ]; then
		: >"$tmp/err"
		fail "$name" "missing $trace"
		continue
	fi
	emu "$out" -q "$trace"
	if [ $rc -ne 0 ]; then
		fail "$name emu" "exit status $rc"
		continue
	fi
	pass "$name emu"

	missing=
	for f in thread.prv thread.pcf thread.row cpu.prv cpu.pcf cpu.row; do
		[ -f "$out/$f" ] || missing="$missing $f"
	done
	[ -d "$out/cfg" ] || missing="$missing cfg/"
	left=$(leftovers "$out")
	: >"$tmp/err"
	if [ -n "$missing" ]; then
		fail "$name outputs" "missing:$missing"
	elif [ -n "$left" ]; then
		fail "$name outputs" "temporary files left: $left"
	else
		pass "$name outputs (6 files and cfg/, no temporary file)"
	fi

	# every type: weft emulates every model these traces use (om-small: MPI,
	# type 25; ok-small: kernel, 45; on-small, small, small-split: nOS-V 10-16)
	types=""
	for f in thread cpu; do
		# shellcheck disable=SC2086
		"$PRVDIFF" $types --rows ovni "$trace/$f.prv" "$out/$f.prv" \
			>"$tmp/diff" 2>"$tmp/err"
		drc=$?
		if [ $drc -eq 0 ]; then
			pass "$name $f.prv = ovniemu ($(tail -n 1 "$tmp/diff"))"
		else
			fail "$name $f.prv = ovniemu" "prvdiff exit status $drc"
			sed -n '1,6s/^/    /p' "$tmp/diff"
		fi
	done
	check_prv "$name weft check" "$out/thread.prv" "$out/cpu.prv"
done

# ---- ok-small as libovni wrote it (unordered regions) -------------------------------

unsorted=$corpus/ovni/ok-small/trace-unsorted
if [ -d "$unsorted" ]; then
	emu "$tmp/unsorted" -q "$unsorted"
	if [ $rc -ne 0 ]; then
		fail "ok-small trace-unsorted emu" "exit status $rc"
	else
		same_bodies "ok-small trace-unsorted = trace (bodies)" "$tmp/unsorted" "$tmp/out/ok-small"
	fi
else
	: >"$tmp/err"
	fail "ok-small trace-unsorted" "missing $unsorted"
fi

small=$corpus/ovni/o-small/trace

# ---- -z ----------------------------------------------------------------------------

if command -v gzip >/dev/null 2>&1; then
	gunzip_cmd="gzip -dc"
elif command -v zcat >/dev/null 2>&1; then
	gunzip_cmd="zcat"
else
	gunzip_cmd=
fi
emu "$tmp/z" -q -z "$small"
if [ $rc -ne 0 ]; then
	fail "o-small -z emu" "exit status $rc"
elif [ -e "$tmp/z/thread.prv" ] || [ -e "$tmp/z/cpu.prv" ]; then
	fail "o-small -z" "a plain .prv was written too"
elif [ ! -f "$tmp/z/thread.prv.gz" ] || [ ! -f "$tmp/z/cpu.prv.gz" ]; then
	fail "o-small -z" "no thread.prv.gz or cpu.prv.gz"
elif [ -z "$gunzip_cmd" ]; then
	echo "skip o-small -z contents: neither gzip nor zcat is installed"
else
	why=
	for f in thread cpu; do
		# shellcheck disable=SC2086
		if ! $gunzip_cmd "$tmp/z/$f.prv.gz" >"$tmp/z/$f.plain" 2>"$tmp/err"; then
			why="$why$f.prv.gz does not decompress; "
			continue
		fi
		body "$tmp/z/$f.plain" >"$tmp/a"
		body "$tmp/out/o-small/$f.prv" >"$tmp/b"
		cmp -s "$tmp/a" "$tmp/b" || why="$why$f.prv.gz body differs from the plain $f.prv; "
	done
	: >"$tmp/err"
	if [ -z "$why" ]; then
		pass "o-small -z: .prv.gz bodies = plain bodies ($gunzip_cmd)"
	else
		fail "o-small -z" "$why"
	fi
	check_prv "o-small -z weft check" "$tmp/z/thread.prv.gz" "$tmp/z/cpu.prv.gz"
fi

# ---- determinism ----------------------------------------------------------------------

for name in o-small ok-small; do
	emu "$tmp/again-$name" -q "$corpus/ovni/$name/trace"
	why=
	if [ $rc -ne 0 ]; then
		why="second run exited $rc"
	else
		for f in thread.prv thread.pcf thread.row cpu.prv cpu.pcf cpu.row; do
			cmp -s "$tmp/out/$name/$f" "$tmp/again-$name/$f" || why="$why $f"
		done
		[ -z "$why" ] || why="differ between two runs:$why"
	fi
	if [ -z "$why" ]; then
		pass "$name determinism (two runs byte-identical)"
	else
		fail "$name determinism" "$why"
	fi
done

# ---- clock offsets ------------------------------------------------------------------------

# o-small with every clock of loom.node01 two hours late.
skew_ns=7200000000000
offsets_line() { printf '%-10s %-20s %-20s %-20s %-20s\n' "$@"; }
offsets_table() {
	offsets_line rank hostname offset_median offset_mean offset_std
	offsets_line 0 node00 0 0.000000 0.000000
	offsets_line 2 node01 -$skew_ns -$skew_ns.000000 0.000000
}
cc=${CC:-cc}
: >"$tmp/err"
skew=$tmp/o-small-skew
if ! $cc -std=c11 -O1 -o "$tmp/shift_obs" "$here/shift_obs.c" 2>"$tmp/err"; then
	fail "clock offsets" "cannot compile $here/shift_obs.c with $cc"
else
	mkdir "$skew" && cp -R "$small"/loom.* "$skew"/ && chmod -R u+w "$skew"
	n=0
	ok=1
	for obs in $(cd "$skew" && find loom.node01 -name stream.obs | LC_ALL=C sort); do
		if ! "$tmp/shift_obs" "$skew/$obs" "$skew/$obs.shifted" $skew_ns 2>>"$tmp/err" ||
			! mv -f "$skew/$obs.shifted" "$skew/$obs"; then
			ok=0
			break
		fi
		n=$((n + 1))
	done
	if [ $ok = 0 ] || [ $n = 0 ]; then
		fail "clock offsets: skewed copy" "shifting loom.node01 failed ($n streams)"
	else
		pass "clock offsets: skewed copy of o-small ($n streams of loom.node01 +2 h)"

		# without a table: refused
		emu "$tmp/skew-none" "$skew"
		left=$(find "$tmp/skew-none" -name '*.prv*' 2>/dev/null | head -n 3 | tr '\n' ' ')
		if [ $rc -ne 1 ]; then
			fail "clock offsets: no table is refused" "exit status $rc, expected 1"
		elif ! grep -q 'hours apart' "$tmp/err" || ! grep -q 'ovnisync' "$tmp/err"; then
			fail "clock offsets: no table is refused" "stderr lacks 'hours apart' and 'ovnisync'"
		elif [ -n "$left" ]; then
			fail "clock offsets: no table is refused" "a failed run left $left"
		else
			pass "clock offsets: no table is refused ($(sed -n 's/.*are \([0-9.]* hours apart\).*/\1/p' "$tmp/err"))"
		fi

		# -c with the table outside the trace
		offsets_table >"$tmp/offsets.txt"
		emu "$tmp/skew-c" -q -c "$tmp/offsets.txt" "$skew"
		if [ $rc -ne 0 ]; then
			fail "clock offsets: -c FILE" "exit status $rc"
		else
			same_bodies "clock offsets: -c FILE gives o-small's bodies" "$tmp/skew-c" "$tmp/out/o-small"
		fi

		# the table in the trace, as ovnisync leaves it
		offsets_table >"$skew/clock-offsets.txt"
		emu "$tmp/skew-in" -q "$skew"
		if [ $rc -ne 0 ]; then
			fail "clock offsets: TRACE/clock-offsets.txt" "exit status $rc"
		else
			same_bodies "clock offsets: TRACE/clock-offsets.txt gives o-small's bodies" \
				"$tmp/skew-in" "$tmp/out/o-small"
			check_prv "clock offsets: weft check" "$tmp/skew-in/thread.prv" "$tmp/skew-in/cpu.prv"
		fi

		# -c of a file that does not exist, even with a good table in the trace
		emu "$tmp/skew-missing" -q -c "$tmp/no-such-offsets.txt" "$skew"
		if [ $rc -ne 1 ]; then
			fail "clock offsets: -c missing file" "exit status $rc, expected 1"
		elif ! grep -q "no-such-offsets.txt" "$tmp/err"; then
			fail "clock offsets: -c missing file" "stderr does not name the file"
		else
			pass "clock offsets: -c missing file fails"
		fi

		# weft's own clock file (JSON), as weft sync writes it
		printf '{"weft_clock": 1, "looms": [\n {"loom": "node00", "offset_ns": 0},\n' >"$tmp/clock.json"
		printf ' {"loom": "node01", "offset_ns": -%s, "drift_ppm": 0.000000, "ref_ns": 0}]}\n' \
			$skew_ns >>"$tmp/clock.json"
		# clock_case DIR NAME FILE: emu -c FILE of the skewed trace gives o-small's bodies
		clock_case() {
			emu "$tmp/skew-$1" -q -c "$3" "$skew"
			if [ $rc -ne 0 ]; then
				fail "clock offsets: $2" "exit status $rc: $(head -2 "$tmp/err")"
			else
				same_bodies "clock offsets: $2 gives o-small's bodies" "$tmp/skew-$1" "$tmp/out/o-small"
			fi
		}
		clock_case json "weft clock file" "$tmp/clock.json"

		# ovnisync's drift table (ovnisync -d: "%-20s" then " %-20s" per host;
		# rows "%-20f" then " %-20ld"): constant offsets fit a line of drift 0
		{
			printf '%-20s %-20s %-20s\n' wallclock node00 node01
			for k in 0 1 2; do
				printf '%-20s %-20s %-20s\n' "170000000$k.500000" 0 -$skew_ns
			done
		} >"$tmp/drift.txt"
		clock_case drift "ovnisync drift table" "$tmp/drift.txt"

		# weft sync on a trace without messages: nothing to estimate from;
		# it says so (ovnisync instead), writes nothing, exit 1
		"$WEFT" sync -o "$tmp/kept.json" "$skew" >"$tmp/sync.out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 1 ] && grep -q 'no message between two looms was matched' "$tmp/err" &&
			grep -q ovnisync "$tmp/err" && [ ! -e "$tmp/kept.json" ]; then
			pass "clock offsets: weft sync without messages explains, writes nothing, exit 1"
		else
			fail "clock offsets: weft sync without messages" "$(head -3 "$tmp/err" "$tmp/sync.out")"
		fi
	fi
fi

# ---- nOS-V (a model file with the task primitive) ------------------------------------------

# on-small's nOS-V tasks, types, subsystems and idle states (types 10-16) as
# ovniemu wrote them, on every row; --strict accepts it (nothing skipped)
on=$corpus/ovni/on-small/trace
for f in thread cpu; do
	"$PRVDIFF" --types 10-16 --rows ovni "$on/$f.prv" "$tmp/out/on-small/$f.prv" >"$tmp/diff" 2>"$tmp/err"
	drc=$?
	if [ $drc -ne 0 ]; then
		fail "on-small nosv $f.prv = ovniemu" "prvdiff exit status $drc"
		sed -n '1,6s/^/    /p' "$tmp/diff"
	elif ! grep -q '^0 differences in [1-9]' "$tmp/diff"; then
		fail "on-small nosv $f.prv = ovniemu" "$(tail -n 1 "$tmp/diff")"
	else
		pass "on-small nosv $f.prv = ovniemu ($(tail -n 1 "$tmp/diff"))"
	fi
done
emu "$tmp/on-strict" --strict "$on"
if [ $rc -ne 0 ]; then
	fail "on-small --strict" "exit status $rc, expected 0 (nosv is emulated)"
elif grep -q 'skipped' "$tmp/err"; then
	fail "on-small --strict" "a 'skipped' warning"
else
	pass "on-small --strict: nosv emulated, nothing skipped"
fi

# ---- a synthetic trace ----------------------------------------------------------------------

"$WEFT" synth -o "$tmp/synth" --looms 2 --procs 2 --threads 3 --cpus 2 --events 50000 \
	>"$tmp/stdout" 2>"$tmp/err"
rc=$?
if [ $rc -ne 0 ]; then
	fail "synth" "weft synth exited $rc"
else
	emu "$tmp/synth-out" -l "$tmp/synth"
	if [ $rc -ne 0 ]; then
		fail "synth emu -l" "exit status $rc"
	elif grep -q '^weft: warning' "$tmp/err"; then
		fail "synth emu -l" "warnings on stderr"
	else
		pass "synth emu -l"
		check_prv "synth weft check" "$tmp/synth-out/thread.prv" "$tmp/synth-out/cpu.prv"
	fi
fi

# ---- the header date: never the wall clock ----------------------------------------------------

# hdate FILE: the date of a .prv header
hdate() { sed -n '1s/^#Paraver (\([^)]*\)).*/\1/p' "$1"; }
# date_case NAME WANT [VAR=VALUE...] -- INPUT: weft emu INPUT under that
# environment (test/lib.sh exports SOURCE_DATE_EPOCH=1234567890) writes WANT
date_case() {
	_name=$1 _want=$2
	shift 2
	_env=
	while [ "$1" != -- ]; do _env="$_env $1"; shift; done
	rm -rf "$tmp/date"
	# shellcheck disable=SC2086
	env $_env "$WEFT" emu -q -o "$tmp/date" "$2" >"$tmp/stdout" 2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "header date: $_name" "exit status $rc"
	else
		: >"$tmp/err"
		expect "header date: $_name" "$(hdate "$tmp/date/thread.prv") $(hdate "$tmp/date/cpu.prv")" "$_want $_want"
	fi
}
sde="13/02/2009 at 23:31"
date_case "PICL log: SOURCE_DATE_EPOCH" "$sde" -- "$here/picl/fft.trf"
date_case "VisAndOr log: SOURCE_DATE_EPOCH" "$sde" -- "$here/visandor/seed-andorra.vao"
date_case "PICL log, no SOURCE_DATE_EPOCH: 1970" "01/01/1970 at 00:00" -u SOURCE_DATE_EPOCH -- "$here/picl/fft.trf"
date_case "VisAndOr log, empty SOURCE_DATE_EPOCH: 1970" "01/01/1970 at 00:00" SOURCE_DATE_EPOCH= -- \
	"$here/visandor/seed-andorra.vao"
"$WEFT" import picl "$here/picl/fft.trf" -o "$tmp/fft-imported" >/dev/null 2>"$tmp/err"
date_case "imported PICL directory: SOURCE_DATE_EPOCH" "$sde" -- "$tmp/fft-imported"
# an ovni trace dates from its oldest stream.obs; a later date is clamped
old=$tmp/o-small-2001
mkdir "$old" && cp -R "$small"/loom.* "$old"/ && chmod -R u+w "$old"
find "$old" -name stream.obs -exec touch -d '2001-09-09 01:46:40 UTC' {} + &&
	touch -d '2003-01-01 00:00:00 UTC' "$old/loom.node01/proc.201000/thread.201001/stream.obs"
date_case "ovni trace: its oldest stream.obs" "09/09/2001 at 01:46" -- "$old"
date_case "ovni trace, no SOURCE_DATE_EPOCH" "09/09/2001 at 01:46" -u SOURCE_DATE_EPOCH -- "$old"
date_case "ovni trace newer than SOURCE_DATE_EPOCH: clamped" "01/01/2000 at 00:00" \
	SOURCE_DATE_EPOCH=946684800 -- "$old"
for v in 12x -5 1e9 99999999999999999999; do
	SOURCE_DATE_EPOCH=$v "$WEFT" emu -q -o "$tmp/date-bad" "$here/picl/fft.trf" >/dev/null 2>"$tmp/err"
	rc=$?
	msg="weft: error: SOURCE_DATE_EPOCH: expected a decimal count of seconds since 1970-01-01 00:00 UTC (at most 253402300799), found '$v'"
	if [ $rc -ne 1 ]; then
		fail "SOURCE_DATE_EPOCH=$v refused" "exit status $rc, expected 1"
	elif [ "$(cat "$tmp/err")" != "$msg" ]; then
		fail "SOURCE_DATE_EPOCH=$v refused" "stderr differs"
	elif [ -e "$tmp/date-bad/thread.prv" ]; then
		fail "SOURCE_DATE_EPOCH=$v refused" "thread.prv written"
	else
		pass "SOURCE_DATE_EPOCH=$v refused"
	fi
done

# ---- the corpus is untouched ------------------------------------------------------------------

: >"$tmp/err"
snapshot >"$tmp/corpus.after"
if cmp -s "$tmp/corpus.before" "$tmp/corpus.after"; then
	pass "corpus unchanged"
else
	fail "corpus unchanged" "files changed, added or removed"
	diff "$tmp/corpus.before" "$tmp/corpus.after" | sed -n '1,10s/^/    /p'
fi

finish
