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
# and defines
#   need VAR...        exit 2 (cannot run) unless each named variable holds an
#                      executable file; a relative path is made absolute
#   pass NAME          print "ok NAME", count a pass
#   fail NAME WHY      print "FAIL NAME: WHY", count a failure; when the file
#                      named by $fail_show is not empty (say fail_show=$tmp/err)
#                      its first 5 lines follow, as "    stderr: ..."
#   result NAME WHY    pass when WHY is empty, else fail
#   expect NAME GOT WANT  pass when GOT = WANT, else fail "got [GOT], expected [WANT]"
#   skip NAME WHY      print "skip NAME: WHY" (counted neither way)
#   same_tree NAME DIR1 DIR2  pass when DIR2 has DIR1's files, the same
#                      bytes, and no hidden leftover of a run
#   finish             print "N passed, M failed" and exit 1 if M > 0, else 0
# The counters are npass and nfail. Nothing else is changed in the caller.

here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
corpus=$top/test/corpus

SOURCE_DATE_EPOCH=1234567890
export SOURCE_DATE_EPOCH

npass=0
nfail=0
fail_show=

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

pass() {
	echo "ok $1"
	npass=$((npass + 1))
}

fail() {
	echo "FAIL $1: $2"
	nfail=$((nfail + 1))
	if [ -n "$fail_show" ] && [ -s "$fail_show" ]; then
		sed -n '1,5s/^/    stderr: /p' "$fail_show"
	fi
}

result() {
	if [ -z "$2" ]; then pass "$1"; else fail "$1" "$2"; fi
}

expect() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got [$2], expected [$3]"; fi
}

skip() {
	echo "skip $1: $2"
}

# same_tree NAME DIR1 DIR2: pass when DIR2 holds exactly DIR1's files
# (views included) with the same bytes, DIR1 has a thread.prv or
# thread.prv.gz, and DIR2 has no leftover (hidden folders of a run, such as
# .weft-ranks-*); else fail, naming what differs
same_tree() {
	_why=
	_a=$(cd "$2" && find . -type f | sort | tr '\n' ' ')
	_b=$(cd "$3" && find . -type f | sort | tr '\n' ' ')
	[ "$_a" = "$_b" ] || _why="files differ: [$_a] vs [$_b]"
	case $(cd "$3" && find . -name '.weft-*') in ?*) _why="$_why a run's leftover is there" ;; esac
	case $_a in *thread.prv*) ;; *) _why="$_why no thread.prv in $2" ;; esac
	for _f in $_a; do
		[ -f "$3/$_f" ] && ! cmp -s "$2/$_f" "$3/$_f" && _why="$_why $_f differs"
	done
	result "$1" "$_why"
}

finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ] && exit 0
	exit 1
}
