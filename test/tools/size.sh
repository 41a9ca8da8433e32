#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The sizes of issue 15 ("the house"), checked on src/ and models/:
#   - no source file over 700 lines without a sentence in its leading
#     comment saying why (the sentence names "700 lines");
#   - no function over 120 lines. A function is a line "{" at column 0
#     after its signature, to the next "}" at column 0 (kernel style, as
#     weft writes them, which is checked too); tables ("= {" ... "};")
#     are not functions.
# The functions that stand over the limit today are listed, with why, in
# test/tools/size.allow (FILE FUNCTION: reason); anything else fails, and
# a listed one that is no longer over fails too (the list stays true). A
# self-test adds a long function and a long file to a copy and expects
# both to be caught.
#
#   sh test/tools/size.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

FILE_MAX=700
FUNC_MAX=120

# long_functions ROOT: "FILE FUNCTION" for each function over FUNC_MAX lines.
long_functions() {
	(cd "$1" && find src models -name '*.[ch]' | sort | xargs awk -v max=$FUNC_MAX '
		FNR == 1 { sig = ""; start = 0 }
		/^[A-Za-z_].*\(/ { sig = $0 }
		/^\{$/ { if (sig != "") start = FNR }
		/^\}$/ {
			if (start && FNR - start + 1 > max) {
				name = sig
				sub(/\(.*/, "", name)
				sub(/.*[ *]/, "", name)
				print FILENAME " " name
			}
			start = 0
			sig = ""
		}')
}

# long_files ROOT: each file over FILE_MAX lines whose leading comment does
# not say why (no "700 lines" in it); a first line holding only the SPDX
# comment is not the leading comment.
long_files() {
	(cd "$1" && find src models -name '*.[ch]' | sort | while read -r f; do
		[ "$(wc -l <"$f")" -gt $FILE_MAX ] || continue
		awk 'NR == 1 && /SPDX-License-Identifier/ { spdx = 1; next }
			NR == 1 + spdx && !/^\/\*/ { exit 1 } { print } /\*\// { exit }' "$f" | tr '\n' ' ' |
			grep -q "$FILE_MAX lines" || echo "$f"
	done)
}

long_functions "$top" >"$tmp/now"
sed -n 's/^\([^# ][^ ]* [A-Za-z0-9_]*\):.*/\1/p' test/tools/size.allow | sort -u >"$tmp/allowed"
new=$(comm -23 "$tmp/now" "$tmp/allowed" | tr '\n' ';')
gone=$(comm -13 "$tmp/now" "$tmp/allowed" | tr '\n' ';')
result "no function over $FUNC_MAX lines but those listed in size.allow" "$new"
result "every function listed in size.allow is still over $FUNC_MAX lines" "$gone"
result "no file over $FILE_MAX lines without a sentence in its header saying why" \
	"$(long_files "$top" | tr '\n' ' ')"
# the count needs each function's "{" on a line of its own
result "every function body opens with '{' on a line of its own" \
	"$(find src models -name '*.[ch]' | sort | xargs grep -nE '^[A-Za-z_][^=]*\)[[:space:]]*\{[[:space:]]*$' | head -n 3 | tr '\n' ' ')"

# the checks can fail: a copy with a long function in a long file
mkdir -p "$tmp/copy"
cp -R src models "$tmp/copy/"
f=$(ls "$tmp/copy/src/util/"*.c | head -n 1)
{
	printf 'int size_selftest(void);\nint size_selftest(void)\n{\n'
	i=0
	while [ $i -lt $FILE_MAX ]; do
		printf '\t;\n'
		i=$((i + 1))
	done
	printf '\treturn 0;\n}\n'
} >>"$f"
if long_functions "$tmp/copy" | grep -q "^src/util/.* size_selftest$"; then
	pass "self-test: a long function is caught"
else
	fail "self-test" "a function of $FILE_MAX lines in src/util was not reported"
fi
if long_files "$tmp/copy" | grep -q "^src/util/"; then
	pass "self-test: a long file without a reason is caught"
else
	fail "self-test" "a file of over $FILE_MAX lines in src/util was not reported"
fi

finish
