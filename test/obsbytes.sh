# SPDX-License-Identifier: GPL-3.0-or-later
# test/obsbytes.sh: building blocks for writing ovni stream.obs files byte by
# byte in tests (sourced after test/lib.sh by scripts that make malformed or
# tiny traces: test/malformed/emu.sh, test/e2e/modelfile.sh).
#
#   bytes N...          each decimal argument (0..255) as one byte
#   i32le N, i64le N    little-endian integers (negative: two's complement)
#   hdr                 the stream.obs file header (format 1, little-endian)
#   ev FLAGS MCV CLOCK  a 12-byte event header; the payload follows
#   thread_json DIR L   a one-thread stream.json in loom L
#   flush_trace DIR     a 4-loom trace (one thread each, ovni model) whose
#                       threads each flush for over 10 ms while running, at
#                       times out of loom order: four warnings, time order

bytes() {
	for b in "$@"; do
		# shellcheck disable=SC2059
		printf "\\$(printf '%03o' "$b")"
	done
}

i32le() { bytes $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }

i64le() {
	_v=$1
	_i=0
	while [ $_i -lt 8 ]; do
		bytes $((_v & 255))
		_v=$((_v >> 8))
		_i=$((_i + 1))
	done
}

hdr() {
	printf 'ovni'
	bytes 1 0 0 0
}

ev() {
	bytes "$1"
	printf '%s' "$2"
	i64le "$3"
}

# thread_json DIR LOOM: DIR made, with the stream.json of thread 1 of pid 1
# in LOOM (one CPU, the ovni model only)
thread_json() {
	mkdir -p "$1"
	printf '{"version":3,"ovni":{"lib":{"version":"1.14.0","commit":"x"},"part":"thread",' >"$1/stream.json"
	printf '"tid":1,"pid":1,"loom":"%s","app_id":1,"loom_cpus":[{"index":0,"phyid":0}],' "$2" \
		>>"$1/stream.json"
	printf '"finished":1,"require":{"ovni":"1.1.0"}}}\n' >>"$1/stream.json"
}

flush_trace() {
	for _l in a:1000:30000000 b:500:25000000 c:2000:40000000 d:300:12000000; do
		IFS=: read -r _n _from _to <<EOF2
$_l
EOF2
		_d=$1/loom.$_n/proc.1/thread.1
		thread_json "$_d" "$_n"
		{
			hdr
			ev 15 OHx 100
			i32le 0
			i32le -1
			i64le 0
			ev 0 'OF[' "$_from"
			ev 0 'OF]' "$_to"
			ev 0 OHe 50000000
		} >"$_d/stream.obs"
	done
}
