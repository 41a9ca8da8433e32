#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers of doc/design.md, checked on the includes: a file may include
# headers of its own layer and of the layers below it, never above,
#   util < trace, import (sources), prv (the Paraver format: writer,
#   reader), check (its validators) < clock < emu (merge, engine, emu's Paraver sink) <
#   models < query, stats < plot, synth, driver, otf2 (the OTF2 sink) < cli
# (synth writes traces and logs: it may use the sources' writers; driver
# is weft serve's, a sink over query; cli is the commands). A header's layer is the folder it lives in (src/X or
# models/...), which its include names (-Isrc -Imodels: "emu/emu.h").
# The include edges that break the order today are listed,
# with why, in test/tools/layers.allow (FILE -> LAYER: reason); anything
# else fails, so no new one comes in unnoticed, and a listed edge that no
# longer exists fails too (the list stays true). A self-test adds an
# include of cli.h to a copy of a synth file and expects the check to fail.
#
#   sh test/tools/layers.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

rank() { # LAYER -> its rank
	case $1 in
	util) echo 0 ;;
	trace | import | prv | check) echo 1 ;;
	clock) echo 2 ;;
	emu) echo 3 ;;
	models) echo 4 ;;
	query | stats) echo 5 ;;
	plot | synth | diff | driver | otf2) echo 6 ;;
	cli) echo 9 ;;
	*) echo 99 ;;
	esac
}

layer_of() { # PATH -> layer
	case $1 in
	src/*/*) echo "$1" | cut -d/ -f2 ;;
	models/*) echo models ;;
	*) echo top ;;
	esac
}

# violations ROOT: "FILE -> LAYER" for each include of a higher layer.
# Includes name their layer (-Isrc -Imodels): "emu/emu.h" is src/emu's,
# "model.h" or "ovni/ovni.h" the models'.
violations() {
	(cd "$1" && find src models -name '*.[ch]' | sort) | while read -r f; do
		fl=$(layer_of "$f")
		fr=$(rank "$fl")
		sed -n 's/^#include "\([A-Za-z0-9_/]*\.h\)".*/\1/p' "$1/$f" | sort -u | while read -r h; do
			if [ -f "$1/src/$h" ]; then
				hl=${h%%/*}
			elif [ -f "$1/models/$h" ]; then
				hl=models
			else
				continue
			fi
			[ "$hl" = "$fl" ] && continue
			[ "$(rank "$hl")" -gt "$fr" ] && echo "$f -> $hl"
		done
	done | sort -u
}

violations "$top" >"$tmp/now"
sed -n 's/^\([^#][^:]*\):.*/\1/p' test/tools/layers.allow | sort -u >"$tmp/allowed"
new=$(comm -23 "$tmp/now" "$tmp/allowed" | tr '\n' ';')
gone=$(comm -13 "$tmp/now" "$tmp/allowed" | tr '\n' ';')
result "no include of a higher layer but those listed in layers.allow" "$new"
result "every edge listed in layers.allow still exists" "$gone"

# the check can fail: a synth file that includes cli.h
mkdir -p "$tmp/copy"
cp -R src models "$tmp/copy/"
f=$(ls "$tmp/copy/src/synth/"*.c | head -n 1)
printf '#include "cli/cli.h"\n' >>"$f"
violations "$tmp/copy" >"$tmp/copied"
if comm -23 "$tmp/copied" "$tmp/allowed" | grep -q "^src/synth/.* -> cli$"; then
	pass "self-test: src/synth including cli.h is caught"
else
	fail "self-test" "an include of cli.h in src/synth was not reported"
fi

finish
