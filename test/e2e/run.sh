#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# End-to-end tests of weft over the reference corpus.
#
#   WEFT=/abs/path/to/weft sh test/e2e/run.sh
#
# The corpus is test/corpus (this file's directory/../corpus). For every
# ovni/*/trace in it:
#   top       the first lines of `weft top` equal ovnitop.txt exactly
#   dump      `weft dump` exits 0, its clocks (first field) never decrease
#             and its events per MCV (second field) equal ovnitop.txt
#   dump -x   exits 0 and is the plain dump plus the payload in hex
#   --stream  `weft dump --stream loom.X/proc.P/thread.T` prints exactly the
#             lines of that stream in the full dump
# and the same dump checks on a 1 M-event `weft synth` trace of 4 looms (in
# place of the corpus's o-medium, too big to keep), its counts from weft top;
# plus: ok-small's trace-unsorted dumps exactly like its (ovnisorted) trace;
# a big-endian copy of o-small (made by bswap_obs.c) dumps and counts like
# the original; and no file of the corpus is changed, added or removed.
# Prints "ok NAME" / "FAIL NAME: why" per check, then "N passed, M failed";
# exits 1 if anything failed, 2 if it cannot run at all.

. "$(dirname "$0")/../lib.sh"
need WEFT
fail_show=$tmp/err # a failure shows what weft said, if anything

# Everything in the corpus, with checksums, before any test runs.
snapshot() {
	(cd "$corpus" && find . -print | LC_ALL=C sort | while IFS= read -r f; do
		if [ -f "$f" ]; then
			echo "$(cksum < "$f") $f"
		else
			echo "- $f"
		fi
	done)
}
snapshot > "$tmp/corpus.before"
: > "$tmp/stamp"
# a clock tick so that anything touched afterwards is -newer than the stamp
sleep 1

# Clocks are compared as decimal strings (exact beyond 2^53): shorter is
# smaller, equal lengths compare character by character.
check_order() { # FILE -> prints the first offending line number, if any
	awk '{
		c = $1 ""
		if (NR > 1 && (length(c) < length(p) || (length(c) == length(p) && c < p))) {
			print NR; exit
		}
		p = c
	}' "$1"
}

# "MCV COUNT" lines, sorted, from a dump (2nd field) and from ovnitop.txt.
dump_counts() {
	awk '{ n[$2]++ } END { for (k in n) print k, n[k] }' "$1" | LC_ALL=C sort
}
top_counts() {
	awk 'NF == 2 { print $1, $2 }' "$1" | LC_ALL=C sort
}

# Strip what -x adds: "  payload (N bytes): .." / "  jumbo payload .." /
# "  (no payload)" at the end of a line that has a sentence.
strip_hex() {
	awk '{
		i = index($0, "  payload (")
		if (!i)
			i = index($0, "  jumbo payload (")
		if (!i && substr($0, length($0) - 13) == "  (no payload)")
			i = length($0) - 13
		print (i ? substr($0, 1, i - 1) : $0)
	}' "$1"
}

# The "loom/pid/tid" label of a stream directory, from its stream.json.
stream_label() {
	j=$1/stream.json
	loom=$(sed -n 's/^[[:space:]]*"loom"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p' "$j" | head -n 1)
	pid=$(sed -n 's/^[[:space:]]*"pid"[[:space:]]*:[[:space:]]*\(-\{0,1\}[0-9]*\).*/\1/p' "$j" | head -n 1)
	tid=$(sed -n 's/^[[:space:]]*"tid"[[:space:]]*:[[:space:]]*\(-\{0,1\}[0-9]*\).*/\1/p' "$j" | head -n 1)
	[ -n "$loom" ] && [ -n "$pid" ] && [ -n "$tid" ] && echo "$loom/$pid/$tid"
}

# A large trace as o-medium was (4 looms x 2 x 2, 1 M events), made here.
mkdir "$tmp/synth-medium"
if ! "$WEFT" synth -o "$tmp/synth-medium/trace" --looms 4 --procs 2 --threads 2 --cpus 4 \
	-n 1M --seed 1 > /dev/null 2> "$tmp/err"; then
	fail "synth-medium" "weft synth failed"
fi

ntraces=0
for trace in "$corpus"/ovni/*/trace "$tmp/synth-medium/trace"; do
	[ -d "$trace" ] || continue
	ntraces=$((ntraces + 1))
	case_dir=$(dirname "$trace")
	name=$(basename "$case_dir")
	ref=$case_dir/ovnitop.txt
	if [ "$name" = synth-medium ]; then
		ref=
	elif [ ! -f "$ref" ]; then
		: > "$tmp/err"
		fail "$name ovnitop.txt" "missing $ref"
		continue
	fi

	# top: the first lines, byte for byte (a synthetic trace has no
	# ovnitop.txt: its counts come from weft top itself)
	"$WEFT" top "$trace" > "$tmp/top" 2> "$tmp/err"
	rc=$?
	if [ -z "$ref" ]; then
		ref=$tmp/top.ref
		sed '/^$/q' "$tmp/top" > "$ref"
	fi
	nref=$(wc -l < "$ref")
	if [ $rc -ne 0 ]; then
		fail "$name top" "exit status $rc"
	elif [ "$ref" = "$tmp/top.ref" ]; then
		pass "$name top"
	elif head -n "$nref" "$tmp/top" | cmp -s - "$ref"; then
		pass "$name top"
	else
		fail "$name top" "first $nref lines differ from ovnitop.txt"
		head -n "$nref" "$tmp/top" | diff "$ref" - | sed -n '1,8s/^/    /p'
	fi

	# dump: exit status, clock order, counts per MCV
	"$WEFT" dump "$trace" > "$tmp/dump" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name dump" "exit status $rc"
		continue
	fi
	pass "$name dump"
	bad=$(check_order "$tmp/dump")
	if [ -z "$bad" ]; then
		pass "$name dump clock order"
	else
		fail "$name dump clock order" "clock decreases at line $bad"
		sed -n "$((bad - 1)),${bad}s/^/    /p" "$tmp/dump"
	fi
	dump_counts "$tmp/dump" > "$tmp/counts.dump"
	top_counts "$ref" > "$tmp/counts.ref"
	if cmp -s "$tmp/counts.dump" "$tmp/counts.ref"; then
		pass "$name dump counts per MCV"
	else
		: > "$tmp/err"
		fail "$name dump counts per MCV" "differ from ovnitop.txt (< ovnitop, > dump)"
		diff "$tmp/counts.ref" "$tmp/counts.dump" | sed -n '1,8s/^/    /p'
	fi

	# dump -x: the same lines with the payload appended
	"$WEFT" dump -x "$trace" > "$tmp/dumpx" 2> "$tmp/err"
	rc=$?
	if [ $rc -ne 0 ]; then
		fail "$name dump -x" "exit status $rc"
	elif strip_hex "$tmp/dumpx" | cmp -s - "$tmp/dump"; then
		pass "$name dump -x"
	else
		: > "$tmp/err"
		fail "$name dump -x" "without the hex payload it differs from the plain dump"
	fi
	rm -f "$tmp/dumpx"

	# --stream: exactly one stream's lines of the full dump
	first=$(cd "$trace" && find . -name stream.json | LC_ALL=C sort | head -n 1)
	rel=$(dirname "$first")
	rel=${rel#./}
	label=$(stream_label "$trace/$rel")
	if [ -z "$label" ]; then
		: > "$tmp/err"
		fail "$name dump --stream" "cannot read loom/pid/tid from $trace/$rel/stream.json"
	else
		"$WEFT" dump --stream "$rel" "$trace" > "$tmp/one" 2> "$tmp/err"
		rc=$?
		awk -v l="$label" '$3 == l' "$tmp/dump" > "$tmp/one.ref"
		if [ $rc -ne 0 ]; then
			fail "$name dump --stream $rel" "exit status $rc"
		elif [ ! -s "$tmp/one.ref" ]; then
			fail "$name dump --stream $rel" "no line of the full dump is labelled $label"
		elif cmp -s "$tmp/one" "$tmp/one.ref"; then
			pass "$name dump --stream $rel ($(wc -l < "$tmp/one" | tr -d ' ') events)"
		else
			: > "$tmp/err"
			fail "$name dump --stream $rel" "differs from the $label lines of the full dump"
		fi
	fi

	# the unsorted form of the same trace (ok-small) sorts to the same dump
	if [ -d "$case_dir/trace-unsorted" ]; then
		"$WEFT" dump "$case_dir/trace-unsorted" > "$tmp/unsorted" 2> "$tmp/err"
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$name dump trace-unsorted" "exit status $rc"
		elif cmp -s "$tmp/unsorted" "$tmp/dump"; then
			pass "$name dump trace-unsorted = dump trace"
		else
			: > "$tmp/err"
			fail "$name dump trace-unsorted" "differs from the dump of trace/"
			diff "$tmp/dump" "$tmp/unsorted" | sed -n '1,8s/^/    /p'
		fi
	fi
done
if [ $ntraces -eq 0 ]; then
	: > "$tmp/err"
	fail "corpus" "no trace in $corpus/ovni/*/trace"
fi

# ---- big-endian copy of o-small ------------------------------------------------
small=$corpus/ovni/o-small/trace
cc=${CC:-cc}
: > "$tmp/err"
if [ ! -d "$small" ]; then
	fail "o-small big-endian" "missing $small"
elif ! $cc -std=c11 -O1 -o "$tmp/bswap_obs" "$here/bswap_obs.c" 2> "$tmp/err"; then
	fail "o-small big-endian" "cannot compile $here/bswap_obs.c with $cc"
else
	be=$tmp/o-small-be
	mkdir "$be" && cp -R "$small"/loom.* "$be"/ && chmod -R u+w "$be"
	ok=1
	n=0
	for obs in $(cd "$be" && find . -name stream.obs | LC_ALL=C sort); do
		if ! "$tmp/bswap_obs" "$be/$obs" "$be/$obs.be" 2>> "$tmp/err" ||
			! mv -f "$be/$obs.be" "$be/$obs"; then
			ok=0
			break
		fi
		# the version word must now read 00 00 00 01
		if [ "$(od -An -tx1 -j4 -N4 "$be/$obs" | tr -d ' \n')" != 00000001 ]; then
			echo "$obs: version word is not big-endian after conversion" >> "$tmp/err"
			ok=0
			break
		fi
		n=$((n + 1))
	done
	if [ $ok -eq 0 ] || [ $n -eq 0 ]; then
		fail "o-small big-endian" "conversion failed"
	else
		"$WEFT" dump "$small" > "$tmp/le" 2> "$tmp/err" &&
			"$WEFT" dump "$be" > "$tmp/be" 2> "$tmp/err"
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "o-small big-endian dump" "exit status $rc"
		elif cmp -s "$tmp/le" "$tmp/be"; then
			pass "o-small big-endian dump ($n streams) = little-endian dump"
		else
			: > "$tmp/err"
			fail "o-small big-endian dump" "differs from the little-endian dump"
			diff "$tmp/le" "$tmp/be" | sed -n '1,8s/^/    /p'
		fi
		"$WEFT" top "$small" > "$tmp/le" 2> "$tmp/err" &&
			"$WEFT" top "$be" > "$tmp/be" 2> "$tmp/err"
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "o-small big-endian top" "exit status $rc"
		elif cmp -s "$tmp/le" "$tmp/be"; then
			pass "o-small big-endian top = little-endian top"
		else
			: > "$tmp/err"
			fail "o-small big-endian top" "differs from the little-endian top"
		fi
	fi
fi

# ---- the corpus is untouched -------------------------------------------------
: > "$tmp/err"
snapshot > "$tmp/corpus.after"
if cmp -s "$tmp/corpus.before" "$tmp/corpus.after"; then
	pass "corpus unchanged ($(grep -vc '^-' "$tmp/corpus.after") files, checksums equal)"
else
	fail "corpus unchanged" "files changed, added or removed (< before, > after)"
	diff "$tmp/corpus.before" "$tmp/corpus.after" | sed -n '1,10s/^/    /p'
fi
touched=$(find "$corpus" -newer "$tmp/stamp" -print | head -n 5)
if [ -z "$touched" ]; then
	pass "corpus not written (no file or directory modified during the run)"
else
	fail "corpus not written" "modified during the run: $(echo "$touched" | tr '\n' ' ')"
fi

finish
