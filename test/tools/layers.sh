#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The layers of doc/design.md, checked on the includes: a file may include
# headers of its own layer and of the layers below it, never above,
#   util < cmap (src/clock/clock.[ch]: the clock map, offset and drift,
#   which the stream reader applies as it decodes; it includes nothing)
#   < trace, import (sources), prv (the Paraver format: writer,
#   reader), check (its validators) < clock < mdef (the models' interface:
#   models/model.h's definition and hooks, models/evtable.[ch]'s event
#   tables, models/require.[ch]'s ovni.require against a registry handed
#   in, models/mfform.[ch]: the compiled form of a model file; the
#   emulator dispatches through them, so they sit below it and may use
#   nothing above trace) < emu (merge, dispatch, tasks, the stream and the Paraver
#   sink) < models < par (the parallel runs: -j,
#   --mpi), query, stats < plot, synth, driver, otf2 (the OTF2 sink) < cli
# (synth writes traces and logs: it may use the sources' writers; driver
# is weft serve's, a sink over query; cli is the commands). A header's layer is the folder it lives in (src/X or
# models/...), which its include names (-Isrc -Imodels: "emu/emu.h").
# The include edges that break the order today are listed,
# with why, in test/tools/layers.allow (FILE -> LAYER: reason); anything
# else fails, so no new one comes in unnoticed, and a listed edge that no
# longer exists fails too (the list stays true). The calls are checked the
# same way on the build's objects (nm), against test/tools/calls.allow. A self-test adds an
# include of cli.h to a copy of a synth file and expects the check to fail.
#
#   sh test/tools/layers.sh
# Prints "ok NAME" / "FAIL NAME: why", then "N passed, M failed".

. "$(dirname "$0")/../lib.sh"
cd "$top" || exit 2

rank() { # LAYER -> its rank
	case $1 in
	util) echo 0 ;;
	cmap) echo 1 ;;
	trace | import | prv | check) echo 2 ;;
	clock) echo 3 ;;
	mdef) echo 4 ;;
	emu) echo 5 ;;
	models) echo 6 ;;
	par | query | stats) echo 7 ;;
	plot | synth | diff | driver | otf2) echo 8 ;;
	cli) echo 9 ;;
	*) echo 99 ;;
	esac
}

layer_of() { # PATH -> layer
	case $1 in
	src/clock/clock.[ch]) echo cmap ;;
	src/*/*) echo "$1" | cut -d/ -f2 ;;
	models/model.h | models/evtable.[ch] | models/require.[ch] | models/mfform.[ch]) echo mdef ;;
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
				hl=$(layer_of "src/$h")
			elif [ -f "$1/models/$h" ]; then
				hl=$(layer_of "models/$h")
			else
				continue
			fi
			[ "$hl" = "$fl" ] && continue
			[ "$(rank "$hl")" -gt "$fr" ] && echo "$f -> $hl"
		done
	done | sort -u
}

# against_allow FOUND ALLOW WHAT: the edges found are those ALLOW lists,
# no more (a new one) and no fewer (a listed one gone)
against_allow() {
	sed -n 's/^\([^#][^:]*\):.*/\1/p' "$2" | sort -u >"$tmp/allowed"
	result "no $3 of a higher layer but those listed in $(basename "$2")" \
		"$(comm -23 "$1" "$tmp/allowed" | tr '\n' ';')"
	result "every $3 listed in $(basename "$2") still exists" "$(comm -13 "$1" "$tmp/allowed" | tr '\n' ';')"
}

violations "$top" >"$tmp/now"
against_allow "$tmp/now" test/tools/layers.allow include

# The same order on the calls: an undefined symbol of a layer's object
# (nm -u) that an object of a higher layer defines is a call upward,
# whatever the includes say. The build's objects ($BUILD/obj, the flavour
# make check runs); the edges that stand are in test/tools/calls.allow
# (FILE -> LAYER (SYMBOL): why), kept true both ways like layers.allow.
calls() { # OBJDIR [SRCROOT] -> "FILE.c -> LAYER (SYMBOL)" for each call upward
	ranks=$(for l in util cmap trace import prv check clock mdef emu models par query stats plot synth diff driver otf2 cli; do
		printf '%s=%s ' "$l" "$(rank "$l")"
	done)
	# with SRCROOT, objects whose source is gone from it (a file moved to
	# another folder) are left out: a build folder keeps them until make
	# clean
	(cd "$1" && find src models gen -name '*.o' 2>/dev/null | sort) |
		while read -r o; do
			case ${2:-}:$o in :* | *:gen/*) echo "$o" ;; *) [ ! -f "$2/${o%.o}.c" ] || echo "$o" ;; esac
		done >"$tmp/objs"
	[ -s "$tmp/objs" ] || return 0
	# two nm runs over every object (-A: "OBJECT: ..." a line), one awk
	(cd "$1" && xargs nm -A --defined-only -g <"$tmp/objs") >"$tmp/defs"
	(cd "$1" && xargs nm -A -u <"$tmp/objs") >"$tmp/undefs"
	awk -v ranks="$ranks" '
	function layer(o, p) {
		if (o == "gen/model_files.o") return "models"
		if (o == "gen/cfg_files.o") return "emu"
		if (o == "src/clock/clock.o") return "cmap"
		if (o ~ /^models\/(evtable|require|mfform)\.o$/) return "mdef"
		if (o ~ /^models\//) return "models"
		split(o, p, "/")
		return p[2]
	}
	BEGIN { n = split(ranks, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], q, "="); r[q[1]] = q[2] } }
	FNR == NR { if (NF == 3 && $2 ~ /^[TDBRCG]$/) { o = $1; sub(/:.*$/, "", o); def[$3] = def[$3] " " layer(o) } next }
	{
		o = $1; sub(/:$/, "", o); l = layer(o); sym = $NF
		if (!(sym in def) || !(l in r)) next
		m = split(def[sym], ls, " ")
		for (i = 1; i <= m; i++)
			if (ls[i] != l && (ls[i] in r) && r[ls[i]] + 0 > r[l] + 0) {
				f = o; sub(/\.o$/, ".c", f)
				print f " -> " ls[i] " (" sym ")"
			}
	}' "$tmp/defs" "$tmp/undefs" | sort -u
}

objdir=$top/${BUILD:-build/release}/obj
if [ -d "$objdir/src/util" ]; then
	calls "$objdir" "$top" >"$tmp/calls"
	against_allow "$tmp/calls" test/tools/calls.allow call
	# the check can fail: a util object that needs a command's function
	mkdir -p "$tmp/objcopy/src/util" "$tmp/objcopy/src/cli"
	printf 'void cli_only(void);\nvoid util_calls(void) { cli_only(); }\n' >"$tmp/u.c"
	printf 'void cli_only(void) {}\n' >"$tmp/c.c"
	${CC:-cc} -c "$tmp/u.c" -o "$tmp/objcopy/src/util/u.o" && ${CC:-cc} -c "$tmp/c.c" -o "$tmp/objcopy/src/cli/c.o"
	if calls "$tmp/objcopy" | grep -q '^src/util/u.c -> cli (cli_only)$'; then
		pass "self-test: a util object calling into src/cli is caught"
	else
		fail "self-test" "a call from src/util into src/cli was not reported"
	fi
else
	skip "calls" "no objects in $objdir (build first)"
fi

# the check can fail: a synth file that includes cli.h
mkdir -p "$tmp/copy"
cp -R src models "$tmp/copy/"
f=$(ls "$tmp/copy/src/synth/"*.c | head -n 1)
printf '#include "cli/cli.h"\n' >>"$f"
violations "$tmp/copy" >"$tmp/copied"
sed -n 's/^\([^#][^:]*\):.*/\1/p' test/tools/layers.allow | sort -u >"$tmp/allowed"
if comm -23 "$tmp/copied" "$tmp/allowed" | grep -q "^src/synth/.* -> cli$"; then
	pass "self-test: src/synth including cli.h is caught"
else
	fail "self-test" "an include of cli.h in src/synth was not reported"
fi
# and the models' interface may not include the emulator it sits below,
# nor the clock map the trace
printf '#include "emu/emu.h"\n' >>"$tmp/copy/models/evtable.h"
printf '#include "trace/event.h"\n' >>"$tmp/copy/src/clock/clock.h"
violations "$tmp/copy" >"$tmp/copied"
expect "self-test: evtable.h including emu.h, clock.h including trace/event.h are caught" \
	"$(grep -c '^models/evtable.h -> emu$\|^src/clock/clock.h -> trace$' "$tmp/copied")" 2

finish
