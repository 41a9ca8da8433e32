#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The model pages stay true to the models weft ships: every model written
# as a model file (`weft models` shows its file) has a page
# doc/models/NAME.md whose event table lists exactly the events `weft
# models NAME` lists (no event left out, none that the model lacks), and
# views in cfg/thread/NAME/ (ovni's layout). A page is written by hand; this catches the table
# drifting when a model file gains, loses or renames an event.
#
#   WEFT=/abs/weft sh test/e2e/docs.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
need WEFT

# the model files' models: "CHAR NAME" lines
"$WEFT" models | awk '/ built in \(model file\)$/ { print $1, $2 }' >"$tmp/models"
expect "the model files' models" "$(cut -d' ' -f2 "$tmp/models" | sort | tr '\n' ' ')" \
	"kernel mpi nanos6 nodes nosv openmp tampi "
while read -r c name; do
	page=$top/doc/models/$name.md
	if [ ! -f "$page" ]; then
		fail "$name: page" "doc/models/$name.md is missing"
		continue
	fi
	# the events: MCV without the jumbo mark, sorted
	"$WEFT" models "$name" | awk 'NR > 1 { sub(/\+$/, "", $1); print $1 }' | sort >"$tmp/have"
	# the page's event rows: "| `MCV` |" with the model's character first
	grep -o '^| `[^`]*` |' "$page" | sed 's/^| `//; s/` |$//' | grep "^$c..\$" | sort >"$tmp/doc"
	expect "$name: the page's event table lists the model's events" \
		"$(diff "$tmp/have" "$tmp/doc" | grep '^[<>]' | tr '\n' ' ')" ""
	n=$(ls "$top/cfg/thread/$name" 2>/dev/null | grep -c '\.cfg$')
	expect "$name: views in cfg/thread/$name/" "$([ "$n" -gt 0 ] && echo yes)" yes
done <"$tmp/models"

finish
