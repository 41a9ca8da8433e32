#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Checks of the source tree itself, not of weft:
#   - no test reads outside the repository (the suite runs from any clone:
#     no shared/ folder beside the clone; fixtures live in test/corpus);
#   - every end-to-end script sources test/lib.sh and defines none of its
#     helpers nor its own temporary directory;
#   - in a git checkout, no backup file (*~, as autoconf leaves configure~)
#     is tracked, and *~ is ignored.
#
#   sh test/tools/tree.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

scripts=$(ls test/e2e/*.sh test/malformed/*.sh test/tools/*.sh)

# ---- nothing outside the repository --------------------------------------------
out=$(grep -n -e '\.\./\.\./\.\.' -e 'shared/corpus' -e 'shared/docs' -e '/work/' \
	$scripts test/fuzz/*.sh test/bench/*.sh Makefile | grep -v '^test/tools/tree.sh:')
result "no test reads outside the repository" "$(printf '%s' "$out" | head -n 3 | tr '\n' ' ')"

# ---- one test library -------------------------------------------------------------
bad=
for f in $scripts; do
	[ "$f" = test/tools/tree.sh ] && continue
	grep -q '^\. "$(dirname "$0")/\.\./lib\.sh"$' "$f" || bad="$bad $f(no lib.sh)"
	grep -q -E '^(pass|fail|result|expect|skip|finish|test_[a-z_]*)\(\)' "$f" && bad="$bad $f(own helpers)"
	grep -q 'mktemp' "$f" && bad="$bad $f(own mktemp)"
	tail -n 1 "$f" | grep -q '^finish$' || bad="$bad $f(does not end with finish)"
done
result "every e2e script uses test/lib.sh" "$bad"

# ---- no backups tracked ---------------------------------------------------------------
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	out=$(git ls-files | grep '~$')
	result "no *~ file tracked" "$(printf '%s' "$out" | tr '\n' ' ')"
	if git check-ignore -q --no-index src/x.c~; then
		pass "*~ files are ignored"
	else
		fail "*~ files are ignored" "git check-ignore does not ignore configure~"
	fi
else
	skip "tracked files" "not a git checkout"
fi

finish
