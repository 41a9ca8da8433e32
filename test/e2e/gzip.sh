#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# weft emu -z (issue 26): the .prv files compressed in parallel, one gzip
# member per 4 MiB (util/gzpar.h):
#   - -z, -z6, --gzip=6 and -z9 gunzip to exactly the bytes of the run
#     without -z, on a trace whose .prv are several chunks long;
#   - a large .prv.gz is several members, each but the last 4 MiB of text;
#     the bytes do not depend on the number of threads (-j 1, -j 2);
#   - weft's readers (zlib's gzread, which reads the concatenated members
#     as one stream, as Paraver's gzopen/gzgetc do) read them: weft check,
#     weft diff;
#   - a level out of 1..9, or not attached to -z, is a usage error.
#
#   WEFT=/abs/weft sh test/e2e/gzip.sh [--run=N] [-v]
# Prints "ok N NAME" / "FAIL N NAME", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"
need WEFT

test_setup '
	"$WEFT" synth -o "$tmp/big" --events 1M >/dev/null &&
	"$WEFT" synth -o "$tmp/small" --events 2000 >/dev/null &&
	"$WEFT" emu -q -o "$tmp/plain" "$tmp/big" &&
	"$WEFT" emu -q -o "$tmp/plain-small" "$tmp/small" &&
	"$WEFT" emu -q -z -o "$tmp/z" "$tmp/big"
'

# same_bytes GZ PLAIN: GZ decompresses (gzip -dc) to exactly PLAIN
same_bytes() {
	gzip -dc "$1" >"$tmp/unz" && cmp "$tmp/unz" "$2"
}

test_expect_success 'the .prv are larger than a chunk (4 MiB): several members to cut' '
	test "$(wc -c <"$tmp/plain/thread.prv")" -gt 8388608 &&
	test "$(wc -c <"$tmp/plain/cpu.prv")" -gt 8388608
'
test_expect_success '-z: thread.prv.gz and cpu.prv.gz gunzip to the plain run'"'"'s bytes' '
	test_no_file "$tmp/z/thread.prv" && test_no_file "$tmp/z/cpu.prv" &&
	same_bytes "$tmp/z/thread.prv.gz" "$tmp/plain/thread.prv" &&
	same_bytes "$tmp/z/cpu.prv.gz" "$tmp/plain/cpu.prv"
'
test_expect_success '-z6 and --gzip=6: the same bytes, the plain run'"'"'s once gunzipped' '
	"$WEFT" emu -q -z6 -o "$tmp/z6" "$tmp/big" &&
	"$WEFT" emu -q --gzip=6 -o "$tmp/g6" "$tmp/big" &&
	cmp "$tmp/z6/thread.prv.gz" "$tmp/g6/thread.prv.gz" &&
	same_bytes "$tmp/z6/thread.prv.gz" "$tmp/plain/thread.prv" &&
	same_bytes "$tmp/z6/cpu.prv.gz" "$tmp/plain/cpu.prv" &&
	test "$(wc -c <"$tmp/z6/thread.prv.gz")" -lt "$(wc -c <"$tmp/z/thread.prv.gz")"
'
test_expect_success '-z9 and -z1 on a small trace: the plain bytes' '
	"$WEFT" emu -q -z9 -o "$tmp/z9" "$tmp/small" &&
	"$WEFT" emu -q -z1 -o "$tmp/z1" "$tmp/small" &&
	same_bytes "$tmp/z9/thread.prv.gz" "$tmp/plain-small/thread.prv" &&
	same_bytes "$tmp/z1/cpu.prv.gz" "$tmp/plain-small/cpu.prv"
'
test_expect_success '-j 1 and -j 2 (the compressing threads): the same .prv.gz bytes' '
	"$WEFT" emu -q -z -j 1 -o "$tmp/j1" "$tmp/big" &&
	"$WEFT" emu -q -z -j 2 -o "$tmp/j2" "$tmp/big" &&
	cmp "$tmp/j1/thread.prv.gz" "$tmp/z/thread.prv.gz" &&
	cmp "$tmp/j2/thread.prv.gz" "$tmp/z/thread.prv.gz" &&
	cmp "$tmp/j2/cpu.prv.gz" "$tmp/z/cpu.prv.gz"
'
if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=$(command -v python3)
fi
# members GZ: the decompressed size of each gzip member, one a line
members() {
	"$PY" -c '
import sys, zlib
data = open(sys.argv[1], "rb").read()
while data:
    d = zlib.decompressobj(31)
    print(len(d.decompress(data)))
    if not d.eof:
        sys.exit("a member is cut")
    data = d.unused_data
' "$1"
}
if [ -n "$PY" ]; then
	test_expect_success 'a large .prv.gz: members of 4 MiB of text, the last one shorter' '
		members "$tmp/z/thread.prv.gz" >"$tmp/m" &&
		size=$(wc -c <"$tmp/plain/thread.prv") &&
		test "$(wc -l <"$tmp/m")" -eq $(((size + 4194303) / 4194304)) &&
		test "$(sed "\$d" "$tmp/m" | sort -u)" = 4194304 &&
		test "$(tail -n 1 "$tmp/m")" -eq $((size % 4194304))
	'
else
	skip 'a large .prv.gz: members of 4 MiB of text' 'no python3 to count them'
fi
test_expect_success 'weft check and weft diff read the members as one trace' '
	"$WEFT" check -q "$tmp/z/thread.prv.gz" "$tmp/z/cpu.prv.gz" &&
	"$WEFT" check -q "$tmp/z" &&
	"$WEFT" diff "$tmp/plain/thread.prv" "$tmp/z/thread.prv.gz" >"$tmp/out" &&
	test_grep "^0 differences" "$tmp/out" &&
	"$WEFT" diff "$tmp/z6/cpu.prv.gz" "$tmp/z/cpu.prv.gz" >"$tmp/out" &&
	test_grep "^0 differences" "$tmp/out"
'
test_expect_success 'a level out of 1..9 or not attached: a usage error, nothing written' '
	for z in -z0 -z10 -zq --gzip=0 --gzip=; do
		test_status 2 "$WEFT" emu -q "$z" -o "$tmp/bad" "$tmp/small" 2>"$tmp/err" &&
		test_grep "expected a level from 1 \\(the fastest\\) to 9 \\(the smallest\\)" "$tmp/err" || return 1
	done &&
	test_no_file "$tmp/bad"
'
test_expect_success '-z before another option: the default level, not a level' '
	"$WEFT" emu -z -q -o "$tmp/zq" "$tmp/small" &&
	same_bytes "$tmp/zq/thread.prv.gz" "$tmp/plain-small/thread.prv"
'

finish
