#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The lines of C a change touches follow .clang-format, which matches the
# code as it stands (about 95% of its lines; the rest, wrapped by hand, is
# left until a change touches it). "A change": the commits since
# FORMAT_BASE (default: the commit before HEAD) and what is not committed.
# A self-test formats a badly laid out line in a scratch repository and
# expects the check to catch it. Skipped when clang-format (Debian's
# clang-format, which `make deps` installs) or the git history is missing.
#
#   sh test/tools/format.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

if ! command -v git-clang-format >/dev/null 2>&1; then
	skip "format" "no git-clang-format (make deps installs clang-format)"
	finish
fi

# unformatted BASE: the formatting diff of the C lines changed since BASE
unformatted() {
	git clang-format --diff --extensions c,h "$1" -- 2>&1 | grep -A12 '^diff --git' | head -40
}

# self-test: a scratch repository with this .clang-format
s=$tmp/scratch
mkdir -p "$s"
(
	cd "$s" && git init -q && cp "$top/.clang-format" . &&
		printf 'int f(void)\n{\n\treturn 1;\n}\n' >a.c && git add . &&
		git -c user.email=t@t -c user.name=t commit -qm one &&
		printf 'int f(void)\n{\n\treturn 1;\n}\nint g(void){return  2;}\n' >a.c
) || fail "self-test: scratch repository" "git failed"
result "self-test: a badly laid out new line is caught" "$(cd "$s" && [ -n "$(unformatted HEAD)" ] || echo "not caught")"

base=${FORMAT_BASE:-HEAD~1}
if [ ! -d .git ] && ! git rev-parse --git-dir >/dev/null 2>&1; then
	skip "changed C lines are clang-formatted" "not a git checkout"
elif ! git rev-parse -q --verify "$base^{commit}" >/dev/null; then
	skip "changed C lines are clang-formatted" "no $base"
else
	d=$(unformatted "$base")
	result "changed C lines since $base are clang-formatted" "${d:+
$d}"
fi

finish
