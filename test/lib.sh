# SPDX-License-Identifier: GPL-3.0-or-later
# test/lib.sh: what every end-to-end test script shares. Source it first,
# from a script one folder below test/ (test/e2e, test/malformed, ...):
#
#   . "$(dirname "$0")/../lib.sh"
#
# It sets
#   here    the sourcing script's folder (absolute)
#   top     the repository root (absolute)
#   corpus  the reference traces, $top/test/corpus ($corpus/ovni/NAME/trace)
#   tmp     a new temporary directory, removed (even if made read-only) when
#           the script exits; an interrupt exits 2
#   SOURCE_DATE_EPOCH  exported, fixed (13/02/2009 at 23:31 UTC): the date
#           weft writes in .prv headers where the input has none, and the
#           latest it writes at all, so no output depends on the wall clock
#           or on when the fixtures were checked out
#   WEFT_PROGRESS  exported, off: no heartbeat lines in stderr, however
#           slow the machine (a test that wants them sets it)
# and defines
#   need VAR...        exit 2 (cannot run) unless each named variable holds an
#                      executable file; a relative path is made absolute
#   pass NAME          print "ok NAME", count a pass
#   fail NAME WHY      print "FAIL NAME: WHY", count a failure; when the file
#                      named by $fail_show is not empty (say fail_show=$tmp/err)
#                      its first 5 lines follow, as "    stderr: ..."
#   result NAME WHY    pass when WHY is empty, else fail
#   expect NAME GOT WANT  pass when GOT = WANT, else fail "got [GOT], expected [WANT]"
#   skip NAME WHY      print "skip NAME: WHY" (counted as skipped)
#   same_tree NAME DIR1 DIR2  pass when DIR2 has DIR1's files, the same
#                      bytes, and no hidden leftover of a run
#   shown_files DIR    the outputs DIR shows, sorted, one "./NAME" a line:
#                      its files and links (weft emu's outputs are links into
#                      DIR/.weft, doc/dev/outputs.md), that folder left out
#   leftovers DIR      what runs left in DIR beside what it shows (their
#                      temporaries, a generation not shown, a part folder),
#                      one line; empty when nothing
#   finish             print "N passed, M failed, K skipped" and exit 1 if
#                      M > 0, else 0
# Every check above prints its number too ("ok 7 NAME"), in the order the
# checks run.
#
# Units, after git's test_expect_success: a check with a description and
# the commands it runs, which a failure prints.
#   test_expect_success DESC 'COMMANDS'
#                      run COMMANDS (a shell text, joined by && so that the
#                      first failing one fails the unit) in this shell,
#                      their output kept aside; pass when they exit 0. A
#                      failure prints "FAIL N DESC", the commands and the
#                      last lines of their output. Variables they set stay
#                      set for the units after.
#   test_setup 'COMMANDS'  the same for what later units need: always run
#                      (also under --run), not counted; a failure ends the
#                      script (exit 1) after printing them
# and, for use inside COMMANDS (each says what went wrong on stderr, which
# a failing unit shows):
#   test_status N CMD...   run CMD (its output as the unit's), succeed when
#                      it exits with status N
#   test_cmp WANT GOT  the files are equal, else their diff
#   test_grep PATTERN FILE  an extended regular expression matches a line
#                      of FILE, else its first lines
#   test_no_file PATH  nothing is at PATH
# A script's options (`sh test/e2e/plot.sh --run=3 -v`):
#   --run=LIST         run only these units (LIST: 3, 1-4,7, 9-); every other
#                      check is still made but neither printed nor counted
#   -v, --verbose      show each unit's commands and output as it runs
#   -i, --immediate    stop at the first failing check
# The counters are npass, nfail and nskip. Nothing else is changed in the
# caller; the library's own names start with test_ or _lib_.
#
# A new suite is a script in test/e2e, test/malformed or test/tools that
# sources this file and ends with finish: the Makefile finds it (no list to
# edit); `make check-run SUITES=test/e2e/NAME.sh` runs it alone.

here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
corpus=$top/test/corpus

SOURCE_DATE_EPOCH=1234567890
export SOURCE_DATE_EPOCH
WEFT_PROGRESS=off
export WEFT_PROGRESS

npass=0
nfail=0
nskip=0
fail_show=

# the script's options
_lib_run=
_lib_verbose=
_lib_immediate=
for _lib_a in "$@"; do
	case $_lib_a in
	--run=*) _lib_run=${_lib_a#--run=} ;;
	-v | --verbose) _lib_verbose=1 ;;
	-i | --immediate) _lib_immediate=1 ;;
	-h | --help)
		echo "usage: sh $0 [--run=LIST] [-v] [-i]  (test/lib.sh describes them)"
		exit 0
		;;
	*)
		echo "$(basename "$0"): unknown option '$_lib_a' (try --help)" >&2
		exit 2
		;;
	esac
done
case $_lib_run in
*[!0-9,-]*)
	echo "$(basename "$0"): --run: expected numbers and ranges such as 1-4,7, found '$_lib_run'" >&2
	exit 2
	;;
esac
_lib_n=0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/weft-$(basename "$here")-$(basename "$0" .sh).XXXXXX") || exit 2
lib_cleanup() {
	chmod -R u+rwx "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap lib_cleanup EXIT
trap 'exit 2' HUP INT TERM

need() {
	for _v in "$@"; do
		eval "_p=\${$_v:-}"
		if [ -z "$_p" ]; then
			echo "$(basename "$0"): set $_v to an executable, e.g. $_v=\$PWD/build/$(echo "$_v" | tr 'A-Z' 'a-z') sh $0" >&2
			exit 2
		fi
		case $_p in
		/*) ;;
		*) _p=$(pwd)/$_p ;;
		esac
		if [ ! -f "$_p" ] || [ ! -x "$_p" ]; then
			echo "$(basename "$0"): $_v=$_p is not an executable file" >&2
			exit 2
		fi
		eval "$_v=\$_p"
	done
}

# _lib_selected N: N is in --run's list (or there is none)
_lib_selected() {
	[ -z "$_lib_run" ] && return 0
	_lib_l=$_lib_run,
	while [ -n "$_lib_l" ]; do
		_lib_r=${_lib_l%%,*}
		_lib_l=${_lib_l#*,}
		case $_lib_r in
		'') ;;
		*-*)
			_lib_lo=${_lib_r%-*} _lib_hi=${_lib_r#*-}
			[ "$1" -ge "${_lib_lo:-1}" ] && { [ -z "$_lib_hi" ] || [ "$1" -le "$_lib_hi" ]; } && return 0
			;;
		*) [ "$1" -eq "$_lib_r" ] && return 0 ;;
		esac
	done
	return 1
}

pass() {
	_lib_n=$((_lib_n + 1))
	_lib_selected $_lib_n || return 0
	echo "ok $_lib_n $1"
	npass=$((npass + 1))
}

fail() {
	_lib_n=$((_lib_n + 1))
	_lib_selected $_lib_n || return 0
	echo "FAIL $_lib_n $1: $2"
	nfail=$((nfail + 1))
	if [ -n "$fail_show" ] && [ -s "$fail_show" ]; then
		sed -n '1,5s/^/    stderr: /p' "$fail_show"
	fi
	[ -z "$_lib_immediate" ] || finish
}

result() {
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi
}

expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got [$2], expected [$3]"; fi
}

skip() {
	_lib_n=$((_lib_n + 1))
	_lib_selected $_lib_n || return 0
	echo "skip $_lib_n $1: $2"
	nskip=$((nskip + 1))
}

# _lib_show FILE: the last 20 lines of a unit's output, indented
_lib_show() {
	if [ -s "$1" ]; then
		echo "    output (last lines):"
		tail -n 20 "$1" | sed 's/^/    | /'
	else
		echo "    (no output)"
	fi
}

# _lib_body TEXT: the commands, indented, without leading or trailing blank lines
_lib_body() {
	printf '%s\n' "$1" | awk 'NF { for (; nb > 0; nb--) print ""; on = 1; print; next } on { nb++ }' |
		sed 's/^\t*/    > /'
}

test_expect_success() {
	if [ $# -ne 2 ]; then
		echo "$(basename "$0"): test_expect_success: expected DESC and COMMANDS, found $# arguments" >&2
		exit 2
	fi
	_lib_n=$((_lib_n + 1))
	_lib_selected $_lib_n || return 0
	if [ -n "$_lib_verbose" ]; then
		echo "--- $_lib_n $1"
		_lib_body "$2"
		{ eval "$2"; } </dev/null
		_lib_rc=$?
		: >"$tmp/.unit.out"
	else
		{ eval "$2"; } </dev/null >"$tmp/.unit.out" 2>&1
		_lib_rc=$?
	fi
	if [ $_lib_rc -eq 0 ]; then
		echo "ok $_lib_n $1"
		npass=$((npass + 1))
		return 0
	fi
	echo "FAIL $_lib_n $1 (exit $_lib_rc)"
	_lib_body "$2"
	_lib_show "$tmp/.unit.out"
	nfail=$((nfail + 1))
	[ -z "$_lib_immediate" ] || finish
	return 0
}

test_setup() {
	if [ -n "$_lib_verbose" ]; then
		echo "--- setup"
		_lib_body "$1"
		{ eval "$1"; } </dev/null
		_lib_rc=$?
		: >"$tmp/.unit.out"
	else
		{ eval "$1"; } </dev/null >"$tmp/.unit.out" 2>&1
		_lib_rc=$?
	fi
	[ $_lib_rc -eq 0 ] && return 0
	echo "FAIL setup (exit $_lib_rc): the checks after it cannot run"
	_lib_body "$1"
	_lib_show "$tmp/.unit.out"
	nfail=$((nfail + 1))
	finish
}

test_status() {
	_lib_want=$1
	shift
	"$@"
	_lib_got=$?
	[ "$_lib_got" -eq "$_lib_want" ] && return 0
	echo "test_status: '$*' exited with status $_lib_got, expected $_lib_want" >&2
	return 1
}

test_cmp() {
	diff -u "$1" "$2" >&2 && return 0
	echo "test_cmp: $2 differs from $1 (the diff is above)" >&2
	return 1
}

test_grep() {
	grep -E -q -e "$1" "$2" && return 0
	echo "test_grep: no line of $2 matches '$1'; its first lines:" >&2
	head -n 10 "$2" | sed 's/^/  /' >&2
	return 1
}

test_no_file() {
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 0
	echo "test_no_file: $1 exists" >&2
	return 1
}

shown_files() {
	(cd "$1" && find . -path ./.weft -prune -o ! -type d -print | LC_ALL=C sort)
}

leftovers() {
	{
		(cd "$1" && find . -path ./.weft -prune -o -name '*weft-tmp*' -print -o -name '*weft-old*' -print \
			-o -name '.weft-ranks-*' -print)
		# in DIR/.weft: the lock, `current` and the generation it names
		if [ -d "$1/.weft" ]; then
			_cur=$(readlink "$1/.weft/current" 2>/dev/null)
			for _e in $(ls -A "$1/.weft"); do
				case $_e in lock | current | "$_cur") ;; *) echo ".weft/$_e" ;; esac
			done
		fi
	} | tr '\n' ' '
}

# same_tree NAME DIR1 DIR2: pass when DIR2 shows exactly DIR1's files
# (views included) with the same bytes, DIR1 has a thread.prv or
# thread.prv.gz, and DIR2 has no leftover (leftovers); else fail, naming
# what differs
same_tree() {
	_why=
	_a=$(shown_files "$2" | tr '\n' ' ')
	_b=$(shown_files "$3" | tr '\n' ' ')
	[ "$_a" = "$_b" ] || _why="files differ: [$_a] vs [$_b]"
	[ -z "$(leftovers "$3")" ] || _why="$_why a run's leftover is there: $(leftovers "$3")"
	case $_a in *thread.prv*) ;; *) _why="$_why no thread.prv in $2" ;; esac
	for _f in $_a; do
		[ -f "$3/$_f" ] && ! cmp -s "$2/$_f" "$3/$_f" && _why="$_why $_f differs"
	done
	result "$1" "$_why"
}

finish() {
	echo "$npass passed, $nfail failed, $nskip skipped"
	[ "$nfail" -eq 0 ] && exit 0
	exit 1
}
