#!/bin/sh
# Every source file says its licence: a line holding
# "SPDX-License-Identifier: GPL-3.0-or-later" among its first 5 lines (after
# a #! line, in the file's own comment syntax). Source files: C (.c .h),
# shell (.sh, .ci/run), awk, Python, model files (.model), the build
# (Makefile, configure.ac, *.in). Data (traces, views, fixtures, fuzz
# corpora) and documents are not sources. The files are git's tracked ones
# in a checkout, else every file under the tree. A self-test runs the check
# on a scratch tree with one file lacking the line and one with another
# licence, and expects both to be named.
#
#   sh test/tools/spdx.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

SPDX="SPDX-License-Identifier: GPL-3.0-or-later"

# sources: the source files of the tree in the current directory, one a line
sources() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files
	else
		find . -type f ! -path './.git/*' | sed 's|^\./||'
	fi | grep -E '(\.(c|h|sh|awk|py|model|in)|(^|/)(Makefile|configure\.ac)|^\.ci/run)$' |
		grep -v -E '^(build|build-[a-z]*|demo|autom4te\.cache)/' | LC_ALL=C sort
}

# unlicensed: the sources of the current directory without the line
unlicensed() {
	sources | while IFS= read -r f; do
		head -n 5 "$f" | grep -q -F "$SPDX" || echo "$f"
	done
}

# ---- self-test ---------------------------------------------------------------
s=$tmp/scratch
mkdir -p "$s/src" "$s/.ci"
printf '/* SPDX-License-Identifier: GPL-3.0-or-later */\nint x;\n' >"$s/src/good.c"
printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-3.0-or-later\ntrue\n' >"$s/.ci/run"
printf 'int y;\n' >"$s/src/none.c"
printf '# SPDX-License-Identifier: MIT\nall:\n' >"$s/Makefile"
printf 'not a source\n' >"$s/src/data.prv"
expect "self-test: a file without the line and one of another licence are named" \
	"$(cd "$s" && unlicensed | tr '\n' ' ')" "Makefile src/none.c "

# ---- the tree ------------------------------------------------------------------
n=$(sources | wc -l | tr -d ' ')
missing=$(unlicensed)
result "every one of the $n source files has the $SPDX line" \
	"$([ -n "$missing" ] && echo "$(echo "$missing" | wc -l | tr -d ' ') without it: $(echo "$missing" | head -n 8 | tr '\n' ' ')")"

finish
