# test/obsbytes.sh: building blocks for writing ovni stream.obs files byte by
# byte in tests (sourced after test/lib.sh by scripts that make malformed or
# tiny traces: test/malformed/emu.sh, test/e2e/modelfile.sh).
#
#   bytes N...          each decimal argument (0..255) as one byte
#   i32le N, i64le N    little-endian integers (negative: two's complement)
#   hdr                 the stream.obs file header (format 1, little-endian)
#   ev FLAGS MCV CLOCK  a 12-byte event header; the payload follows

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
