#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate the hand-made seeds of test/fuzz/corpus/ (the files named
# seed-*). Inputs saved from fuzzing runs (regress-*) are kept as they are.
# Needs a C compiler (for test/e2e/bswap_obs.c); reads the reference traces
# of test/corpus. Run from anywhere:
#   sh test/fuzz/make-seeds.sh
set -e

here=$(cd "$(dirname "$0")" && pwd)
ref=$(cd "$here/../corpus/ovni" && pwd)
obs=$here/corpus/fuzz_obs
meta=$here/corpus/fuzz_meta
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$obs" "$meta"
rm -f "$obs"/seed-* "$meta"/seed-*

${CC:-cc} -std=c11 -O1 -o "$tmp/bswap_obs" "$here/../e2e/bswap_obs.c"

# ---- binary writers (POSIX printf with octal escapes) -----------------------

byte() { printf "\\$(printf '%03o' $(($1 & 255)))"; }
le() { # le NBYTES VALUE
	_n=$1 _v=$2
	while [ "$_n" -gt 0 ]; do byte $((_v & 255)); _v=$((_v >> 8)); _n=$((_n - 1)); done
}
be() { # be NBYTES VALUE
	_n=$1
	while [ "$_n" -gt 0 ]; do _n=$((_n - 1)); byte $(($2 >> (8 * _n))); done
}
hdr_le() { printf 'ovni'; le 4 1; }
hdr_be() { printf 'ovni'; be 4 1; }
ev() { # ev FLAGS MCV CLOCK (little-endian clock)
	byte "$1"; printf '%s' "$2"; le 8 "$3"
}
ev_be() { byte "$1"; printf '%s' "$2"; be 8 "$3"; }

# ---- fuzz_obs ----------------------------------------------------------------

# The 95-byte worked example of doc/formats/ovni.md §2.6.
{
	hdr_le
	ev 15 OHx 1000000; le 4 2; le 4 -1; le 8 0
	ev 11 OM= 1000250; le 8 5; le 4 1
	ev 19 VYc 1000400; le 4 7; le 4 7; printf 'io\000'
	ev 0 OHe 1002000
} > "$obs/seed-worked-example.obs"

# The example cut short: inside the jumbo data, inside its length word, in the
# 12-byte header of the last event, and in the file header.
head -c 94 "$obs/seed-worked-example.obs" > "$obs/seed-trunc-last-event.obs"
head -c 82 "$obs/seed-worked-example.obs" > "$obs/seed-trunc-jumbo-data.obs"
head -c 74 "$obs/seed-worked-example.obs" > "$obs/seed-trunc-jumbo-len.obs"
head -c 66 "$obs/seed-worked-example.obs" > "$obs/seed-trunc-jumbo-header.obs"
head -c 5 "$obs/seed-worked-example.obs" > "$obs/seed-trunc-file-header.obs"
: > "$obs/seed-empty.obs"
hdr_le > "$obs/seed-header-only.obs"

# Every ovni event with a payload, a flush pair and an unordered region whose
# events go back in time (ovnisort would move them), little-endian.
{
	hdr_le
	ev 15 OHx 100; le 4 0; le 4 -1; le 8 0
	ev 11 OHC 110; le 4 1; le 8 7
	ev 3 OAs 120; le 4 1
	ev 7 OAr 130; le 4 2; le 4 4242
	ev 3 OCn 135; le 4 4
	ev 11 'OM[' 140; le 8 3; le 4 2
	ev 11 'OM=' 150; le 8 -9; le 4 1
	ev 11 'OM]' 160; le 8 3; le 4 2
	ev 0 OB. 170
	ev 0 OHp 180
	ev 0 'OU[' 190
	ev 0 KCO 185
	ev 0 KCI 175
	ev 0 'OU]' 200
	ev 0 OHr 210
	ev 0 'OF[' 220
	ev 0 'OF]' 230
	ev 0 OHe 240
} > "$obs/seed-ovni-le.obs"
"$tmp/bswap_obs" "$obs/seed-ovni-le.obs" "$obs/seed-ovni-be.obs"

# Jumbo events: empty, with data, with size code 0 and reserved flag bits
# (the reader takes the length word), then a normal event.
{
	hdr_le
	ev 19 VYc 10; le 4 0
	ev 19 VYc 20; le 4 9; le 4 3; printf 'task\000'
	ev 16 Xj1 30; le 4 2; printf 'ab'
	ev $((0xe0 | 0x13)) Xj2 40; le 4 1; printf 'z'
	ev $((0xe0 | 0x01)) Xn1 50; printf 'hi'
	ev 0 OHe 60
} > "$obs/seed-jumbo-le.obs"
{
	hdr_be
	ev_be 19 VYc 10; be 4 0
	ev_be 19 VYc 20; be 4 9; be 4 3; printf 'task\000'
	ev_be 16 Xj1 30; be 4 2; printf 'ab'
	ev_be 0 OHe 60
} > "$obs/seed-jumbo-be.obs"
# A jumbo event claiming 4 GiB - 1 bytes.
{ hdr_le; ev 19 VYc 10; le 4 $((0xffffffff)); printf 'short'; } > "$obs/seed-jumbo-huge.obs"

# Malformed: magic, version, MCV byte, clock order, region nesting.
{ printf 'ovnj'; le 4 1; ev 0 OHe 1; } > "$obs/seed-bad-magic.obs"
{ printf 'ovni'; le 4 2; ev 0 OHe 1; } > "$obs/seed-bad-version.obs"
{ hdr_le; ev 0 OHx 1; printf '\000O\037e'; le 8 2; } > "$obs/seed-bad-mcv.obs"
{ hdr_le; ev 0 OB. 20; ev 0 OB. 10; } > "$obs/seed-clock-backwards.obs"
{ hdr_le; ev 0 'OU[' 10; ev 0 'OU[' 11; ev 0 'OU]' 12; ev 0 'OU]' 13; } > "$obs/seed-region-nested.obs"
{ hdr_le; ev 0 OB. 10; ev 0 'OU]' 11; } > "$obs/seed-region-unopened.obs"
{ hdr_le; ev 0 OB. 10; ev 0 'OU[' 11; ev 0 KCO 5; } > "$obs/seed-region-open.obs"
# A region reaching back over many earlier events (longer than a tiny window).
{
	hdr_le
	i=1
	while [ $i -le 12 ]; do ev 0 OB. $((i * 10)); i=$((i + 1)); done
	ev 0 'OU[' 130; ev 0 KCO 15; ev 0 KCI 131; ev 0 'OU]' 132
	ev 0 OB. 140
} > "$obs/seed-region-far.obs"

# A later region goes back before an earlier region and the events before
# it: ordered reading must wait for every queued region, not just the next.
{
	hdr_le
	ev 0 OB. 10
	ev 0 'OU[' 20; ev 0 KCO 21; ev 0 'OU]' 22
	ev 0 OB. 30
	ev 0 'OU[' 40; ev 0 KCI 5; ev 0 'OU]' 41
	ev 0 OB. 50
} > "$obs/seed-region-over-region.obs"

# Real streams written by libovni, cut at an event boundary: o-small (every
# ovni payload event) in both byte orders, and ok-small as written, before
# ovnisort (unordered regions out of order), cut just after an OU].
head -c 2988 "$ref/o-small/trace/loom.node00/proc.100000/thread.100000/stream.obs" \
	> "$obs/seed-o-small-le.obs"
"$tmp/bswap_obs" "$obs/seed-o-small-le.obs" "$obs/seed-o-small-be.obs"
head -c 4048 "$ref/ok-small/trace-unsorted/loom.node00/proc.100000/thread.100000/stream.obs" \
	> "$obs/seed-ok-small-unsorted.obs"

# ---- fuzz_meta ---------------------------------------------------------------

cp "$ref/o-small/trace/loom.node00/proc.100000/thread.100000/stream.json" \
	"$meta/seed-o-small.json"
cp "$ref/on-small/trace/loom.node00/proc.100000/thread.100001/stream.json" \
	"$meta/seed-on-small.json"

# The example of doc/formats/ovni.md §3.1.
cat > "$meta/seed-format-example.json" <<'EOF'
{
  "version": 3,
  "ovni": {
    "lib": { "version": "1.14.0", "commit": "cf025e2" },
    "part": "thread",
    "tid": 101000,
    "pid": 101000,
    "loom": "node00",
    "app_id": 1,
    "rank": 1,
    "nranks": 4,
    "require": { "ovni": "1.1.0", "nosv": "2.7.0" },
    "mark": {
      "1": { "title": "Gen phase", "chan_type": "single",
             "labels": { "1": "init", "2": "compute" } },
      "2": { "title": "Gen region", "chan_type": "stack" }
    },
    "loom_cpus": [
      { "index": 0, "phyid": 0 }, { "index": 1, "phyid": 1 },
      { "index": 2, "phyid": 2 }, { "index": 3, "phyid": 3 }
    ],
    "finished": 1
  },
  "nosv": { "can_breakdown": true }
}
EOF

# Comments are tolerated like ovni's parser does.
cat > "$meta/seed-comments.json" <<'EOF'
// written by hand
{
  "version": 3, /* metadata v3 */
  "ovni": {
    "lib": { "version": "1.14.0", "commit": "cf025e2" }, // lib
    "part": "thread", "tid": 7, "pid": 7, "loom": "host.a",
    "app_id": 2,
    "require": { "ovni": "1.1.0-rc1" },
    "loom_cpus": [ { "index": 1, "phyid": 10 }, { "index": 0, "phyid": 20 } ],
    "finished": 1
  }
}
EOF

# A thread with no CPUs and no app_id: parses, but a lone stream is refused
# when the system is finished.
printf '%s' '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread","tid":-5,"pid":3,"loom":"n","require":{}, "finished":1}}' \
	> "$meta/seed-no-cpus.json"

# Each of these breaks one rule (parse or system merge).
base='"lib":{"version":"1.14.0","commit":"c"},"part":"thread","loom":"n","require":{"ovni":"1.1.0"}'
cpus='"loom_cpus":[{"index":0,"phyid":0},{"index":1,"phyid":1}]'
bad() { # bad NAME OVNI-MEMBERS [VERSION]
	printf '{"version":%s,"ovni":{%s}}\n' "${3:-3}" "$2" > "$meta/seed-bad-$1.json"
}
bad version2 "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1" 2
bad unfinished "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus"
bad finished0 "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"finished\":0"
bad tid0 "$base,\"tid\":0,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
bad tid-2p63 "$base,\"tid\":9223372036854775808,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
bad tid-fraction "$base,\"tid\":1.5,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
bad appid0 "$base,\"tid\":1,\"pid\":1,\"app_id\":0,$cpus,\"finished\":1"
bad rank-no-nranks "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"rank\":0,$cpus,\"finished\":1"
bad rank-too-big "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"rank\":4,\"nranks\":4,$cpus,\"finished\":1"
bad cpus-empty "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"loom_cpus\":[],\"finished\":1"
bad cpu-index-range "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"loom_cpus\":[{\"index\":2,\"phyid\":0}],\"finished\":1"
bad cpu-index-twice "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"loom_cpus\":[{\"index\":0,\"phyid\":0},{\"index\":0,\"phyid\":1}],\"finished\":1"
bad cpu-phyid-conflict "$base,\"tid\":1,\"pid\":1,\"app_id\":1,\"loom_cpus\":[{\"index\":0,\"phyid\":0},{\"index\":1,\"phyid\":0}],\"finished\":1"
bad mark-type "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"mark\":{\"100\":{\"title\":\"t\",\"chan_type\":\"single\"}},\"finished\":1"
bad mark-chan "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"queue\"}},\"finished\":1"
bad mark-label "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"stack\",\"labels\":{\"x\":\"y\"}}},\"finished\":1"
bad mark-twice "$base,\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"mark\":{\"1\":{\"title\":\"t\",\"chan_type\":\"stack\"},\"1\":{\"title\":\"u\",\"chan_type\":\"stack\"}},\"finished\":1"
bad require-version "\"lib\":{\"version\":\"1\",\"commit\":\"c\"},\"part\":\"thread\",\"loom\":\"n\",\"require\":{\"ovni\":\"1.x\"},\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
bad loom-slash "\"lib\":{\"version\":\"1\",\"commit\":\"c\"},\"part\":\"thread\",\"loom\":\"a/b\",\"require\":{},\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
bad part "\"lib\":{\"version\":\"1\",\"commit\":\"c\"},\"part\":\"process\",\"loom\":\"n\",\"require\":{},\"tid\":1,\"pid\":1,\"app_id\":1,$cpus,\"finished\":1"
printf '[1, 2, 3]' > "$meta/seed-bad-array.json"
printf '{"version": 3, "ovni": {"lib": {"vers' > "$meta/seed-bad-truncated.json"
printf '{"version": 3, /* unterminated comment' > "$meta/seed-bad-comment.json"
: > "$meta/seed-bad-empty.json"

echo "seeds: $(ls "$obs" | wc -l) in $obs, $(ls "$meta" | wc -l) in $meta"
