#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Issue 24's acceptance, re-tried on fresh inputs: for each class of the
# issue's reproducers, inputs made here from new seeds (weft synth, random
# cuts, bytes, delays, limits, which call fails), never the fixtures the
# other suites use. Every run must end as weft(1) documents: the expected
# exit status (0, or 1 with a "weft: error:" line), no death by a signal,
# no hang (each run has $RETRY_TIMEOUT s of CPU, 10 times that of wall
# clock: no machine is that loaded, a blocked read is caught), nothing left behind (no output
# folder from a failed run, no run's leftover in an output folder, nothing
# in weft's private TMPDIR folder), and every output it wrote passes weft
# check (and xmllint, for plot's SVG). The classes:
#   shrink   a stream.obs or a PICL log cut while weft maps or reads it
#   kill     weft emu killed (SIGKILL) at a random instant over the output
#            of another trace: the folder shows one whole output, the next
#            run shows its own
#   race     a symbolic link swapped with a folder in TMPDIR while weft
#            sweeps there: nothing outside is removed
#   text     random control bytes, bytes that are not UTF-8, quotes and
#            markup in a loom name, a mark title and a mark label
#   hang     a maze of links of random depth, a mark type of 60 k to 150 k
#            labels declared across the streams, /dev/zero and a FIFO as model, pattern and
#            clock files
#   json     a stream.json made lenient at a random place: trailing
#            content, a leading zero, a raw newline, a key twice
#   limits   ulimit -v and -n of random sizes; ENOSPC, EROFS and EMFILE
#            injected (strace) at a random call
#
#   WEFT=/abs/path/to/weft sh test/malformed/retry.sh
#   RETRY_SEED=S RETRY_ROUNDS=N ... : other inputs, more of them (make
#   check runs one round of seed 24; the numbers of a campaign are in the
#   summary lines "retry CLASS: N runs, M bad")
#
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why", then
# "N passed, M failed" (test/lib.sh).

set -u
. "$(dirname "$0")/../lib.sh"
need WEFT
SEED=${RETRY_SEED:-24}
ROUNDS=${RETRY_ROUNDS:-1}
TO=${RETRY_TIMEOUT:-60}
cd "$tmp" || exit 2
fail_show=$tmp/err
T=$tmp/tmpd
mkdir -m 700 "$T" || exit 2
TMPDIR=$T
export TMPDIR
u=weft-$(id -u)

# rnd LO HI: a number from LO to HI, the next of the seed's sequence (its
# place kept in a file: rnd runs in $(...), a subshell)
echo 0 >"$tmp/rnd.n"
rnd() {
	_n=$(($(cat "$tmp/rnd.n") + 1))
	echo "$_n" >"$tmp/rnd.n"
	awk -v s="$SEED" -v k="$_n" -v lo="$1" -v hi="$2" \
		'BEGIN { srand(s * 7919 + k); for (i = 0; i < k % 7; i++) rand(); printf "%d\n", lo + int(rand() * (hi - lo + 1)) }'
}
# pick WORD...: one of the words, at random
pick() {
	_i=$(rnd 1 $#)
	eval "printf '%s\\n' \"\${$_i}\""
}

# per class: runs and bad runs
for c in shrink kill race text hang json limits; do eval "runs_$c=0 bad_$c=0"; done
# tally CLASS NAME WHY: one run of CLASS, bad when WHY is not empty
tally() {
	eval "runs_$1=\$((runs_$1 + 1))"
	[ -n "$3" ] && eval "bad_$1=\$((bad_$1 + 1))"
	result "$1: $2" "$3"
}

# go RC_OK ARGS...: run weft ARGS (env in $ENVV) with the time limit; sets
# RC and WHY: a signal, a hang, or a status not in RC_OK (a list: "0 1"),
# a failure without its "weft: error:" line, something in TMPDIR
go() {
	_ok=$1
	shift
	# a hang that computes: over $TO s of CPU (SIGXCPU), whatever the load;
	# one that waits (a FIFO): over 10 x $TO s of wall clock (SIGKILL)
	# shellcheck disable=SC2086
	env ${ENVV:-} timeout -s KILL $((10 * TO)) sh -c 'ulimit -t "$0" && exec "$@"' "$TO" "$WEFT" "$@" \
		>out.txt 2>err </dev/null
	RC=$?
	WHY=
	case " $_ok " in *" $RC "*) ;; *)
		if [ $RC -eq 137 ]; then WHY="killed: a hang (over $((10 * TO)) s) or SIGKILL; "
		elif [ $RC -eq 152 ]; then WHY="a hang: over $TO s of CPU; "
		elif [ $RC -gt 128 ]; then WHY="died by signal $((RC - 128)); "
		else WHY="exit $RC, expected one of $_ok; "; fi ;;
	esac
	[ $RC -ne 0 ] && [ $RC -le 128 ] && ! grep -q '^weft: error: ' err && WHY="${WHY}exit $RC without an error line; "
	[ -z "$(ls -A "$T/$u" 2>/dev/null)" ] || WHY="${WHY}left in TMPDIR: $(ls -A "$T/$u" | head -n 3 | tr '\n' ' '); "
	rm -rf "${T:?}/$u"/* 2>/dev/null
	return 0
}

# valid DIR: every trace weft emu wrote in DIR passes weft check (views too)
valid() {
	[ -d "$1" ] || { echo "no $1; "; return; }
	for _f in thread cpu; do
		[ -e "$1/$_f.prv" ] || { echo "no $_f.prv; "; continue; }
		"$WEFT" check -q "$1/$_f.prv" >/dev/null 2>check.err || echo "check $_f.prv: $(head -c 200 check.err); "
	done
	"$WEFT" check -q --views "$1" >/dev/null 2>check.err || echo "check --views: $(head -c 200 check.err); "
	[ -z "$(leftovers "$1")" ] || echo "leftover in $1: $(leftovers "$1"); "
}

# limited [SAID]: sets WHY for a run under a limit (ulimit, an injected
# failure) that exited $RC into out: 0 and out passes valid, or 1 with its
# "weft: error:" line and no out left; any other status is a signal or a
# hang (SAID: what the run printed, to show). Weft's TMPDIR folder must be
# empty; it is emptied for the next run.
limited() {
	WHY=
	case $RC in
	0) WHY=$(valid out) ;;
	1)
		grep -q '^weft: error: ' err || WHY="exit 1 without an error line; "
		[ -e out ] && WHY="${WHY}out was left; "
		;;
	*) WHY="exit $RC (a signal or a hang)${1:+: $1}; " ;;
	esac
	[ -z "$(ls -A "$T/$u" 2>/dev/null)" ] || WHY="${WHY}left in TMPDIR; "
	rm -rf "${T:?}/$u"/* 2>/dev/null
	return 0
}

# opens DIR: the names of DIR that open (a link of a killed run's may name
# nothing yet: doc/dev/outputs.md), sorted
opens() {
	(cd "$1" && find . -path ./.weft -prune -o ! -type d -print | LC_ALL=C sort | while read -r _f; do
		[ -e "$_f" ] && echo "$_f"
	done)
}
# same DIR REF: what DIR shows is REF's files, the same bytes
same() {
	[ "$(opens "$1" | tr '\n' ' ')" = "$(opens "$2" | tr '\n' ' ')" ] || return 1
	for _f in $(opens "$2"); do cmp -s "$1/$_f" "$2/$_f" || return 1; done
}

# fresh NAME EVENTS [SYNTH OPTION...]: a new ovni trace from the next seed
fresh() {
	_n=$1 _e=$2
	shift 2
	rm -rf "$_n"
	"$WEFT" synth -o "$_n" --looms "$(rnd 1 3)" --procs "$(rnd 1 2)" --threads "$(rnd 1 3)" --cpus "$(rnd 1 4)" \
		--events "$_e" --seed "$(rnd 1 1000000000)" "$@" >/dev/null 2>&1 || { echo "retry.sh: synth failed" >&2; exit 2; }
}
# a random stream.obs of trace DIR
a_stream() {
	# shellcheck disable=SC2046
	pick $(find "$1" -name stream.obs | LC_ALL=C sort)
}

cc=${CC:-cc}
have_shrink=0
$cc -shared -fPIC -O1 -o shrink.so "$here/shrink.c" -ldl 2>/dev/null && have_shrink=1
have_racer=0
$cc -std=c11 -O1 -o racer "$here/racer.c" 2>/dev/null && have_racer=1
have_strace=0
command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null && have_strace=1
have_ulimit_v=0
sh -c 'ulimit -v 400000 && exec "$0" --version' "$WEFT" >/dev/null 2>&1 && have_ulimit_v=1
have_xmllint=0
command -v xmllint >/dev/null 2>&1 && have_xmllint=1

round=1
while [ "$round" -le "$ROUNDS" ]; do
	R="round $round"

	# ---- shrink ------------------------------------------------------------
	if [ $have_shrink = 1 ]; then
		fresh big 300000
		for at in 0 1; do
			rm -rf t out && cp -R big t
			f=$(a_stream t)
			n=$(wc -c <"$f")
			to=$(rnd 8 $((n - 1)))
			j=$(rnd 1 2)
			ENVV="SHRINK_FILE=$f SHRINK_TO=$to SHRINK_AT=$at LD_PRELOAD=$tmp/shrink.so ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0"
			go 1 emu -q -j "$j" -o out t
			ENVV=
			grep -q "changed while being read (now $to bytes)" err || WHY="${WHY}no 'changed while being read (now $to bytes)': $(head -c 200 err); "
			[ -e out ] && WHY="${WHY}out was left; "
			tally shrink "$R: $f cut to $to of $n bytes at $at, emu -j $j" "$WHY"
		done
		rm -f log.trf
		"$WEFT" synth --format picl -o log.trf -n "$(rnd 150000 300000)" --seed "$(rnd 1 1000000000)" >/dev/null 2>&1
		n=$(wc -c <log.trf)
		to=$(rnd 1 $((n - 1)))
		ENVV="SHRINK_FILE=log.trf SHRINK_TO=$to SHRINK_AT=$(rnd 0 1) LD_PRELOAD=$tmp/shrink.so ASAN_OPTIONS=${ASAN_OPTIONS:-}:verify_asan_link_order=0"
		go 1 emu -q -o out log.trf
		ENVV=
		grep -q "changed while being read" err || WHY="${WHY}no 'changed while being read': $(head -c 200 err); "
		[ -e out ] && WHY="${WHY}out was left; "
		tally shrink "$R: a PICL log cut to $to of $n bytes" "$WHY"
		rm -rf t out big log.trf
	else
		skip "shrink: $R" "cannot compile shrink.c"
	fi

	# ---- kill at a random instant -------------------------------------------
	fresh A 20000
	fresh B 400000 --models "$(pick mpi kernel nosv nodes tampi)"
	rm -rf refA refB
	"$WEFT" emu -q -o refA A >/dev/null 2>&1 && "$WEFT" emu -q -o refB B >/dev/null 2>&1 ||
		{ echo "retry.sh: emu of fresh traces failed" >&2; exit 2; }
	t0=$(date +%s%N)
	"$WEFT" emu -q -o refB2 B >/dev/null 2>&1
	dur=$((($(date +%s%N) - t0) / 1000000))
	rm -rf refB2
	k=1
	while [ $k -le 3 ]; do
		rm -rf D && "$WEFT" emu -q -o D A >/dev/null 2>&1
		ms=$(rnd 0 "$((dur + dur / 4))")
		"$WEFT" emu -q -j "$(rnd 1 2)" -o D B >/dev/null 2>&1 &
		pid=$!
		sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		ks=
		if same D refA; then shown=A; elif same D refB; then shown=B; else shown=neither; ks="D shows neither whole output; "; fi
		go 0 emu -q -o D B
		WHY="$ks$WHY"
		same D refB || WHY="${WHY}the next run does not show its own output; "
		[ -z "$(leftovers D)" ] || WHY="${WHY}the next run left: $(leftovers D); "
		tally kill "$R: killed after $ms of $dur ms (showed $shown)" "$WHY"
		k=$((k + 1))
	done
	rm -rf A B D refA refB

	# ---- the symbolic link race in TMPDIR --------------------------------------
	if [ $have_racer = 1 ]; then
		rm -rf outside && mkdir outside && i=0
		while [ $i -lt 100 ]; do : >outside/f$i && i=$((i + 1)); done
		dead=$(sh -c 'echo $$')
		mkdir -m 700 -p "$T/$u"
		d=$T/$u/weft-import-$dead-r$(rnd 1 99999)
		mkdir -p "$d/sub" && (cd "$d/sub" && i=0 && while [ $i -lt 100 ]; do : >f$i && i=$((i + 1)); done)
		ln -s "$tmp/outside" "$d/sub.lnk"
		rm -f stop
		./racer "$d" sub stop &
		if [ "$(rnd 0 1)" = 0 ]; then
			"$WEFT" synth --format picl -o log.x -n "$(rnd 50 5000)" --seed "$(rnd 1 1000000000)" >/dev/null 2>&1
		else
			"$WEFT" synth --format charisma -o log.x --size "$(rnd 2000 60000)" --apps "$(rnd 1 4)" --clients "$(rnd 4 8)" >/dev/null 2>&1
		fi
		go 0 emu -q -o out log.x
		: >stop
		wait
		n=$(ls outside | wc -l)
		[ "$n" -eq 100 ] || WHY="${WHY}$((100 - n)) files outside removed; "
		[ -e "$d" ] && WHY="${WHY}the dead run's folder stayed; "
		WHY="$WHY$(valid out)"
		tally race "$R: a swap in a dead run's folder while emu sweeps" "$WHY"
		rm -rf outside out log.x "${T:?}/$u"
	else
		skip "race: $R" "cannot compile racer.c"
	fi

	# ---- text from the trace --------------------------------------------------------
	# tokens a sed replacement writes into a JSON string: escapes of control
	# characters (a newline always followed by ZZ9, which must then never
	# start a line), quotes, markup, bytes that are not UTF-8
	toks='\\u000aZZ9 \\u000dZZ9 \\u0001 \\u001b \\u007f \\t \\" \\\\ < > \& '"'"' EVENT_TYPE 0 VALUES'
	bad="$(printf '\377') $(printf '\300\200') $(printf '\355\240\200') $(printf '\303') $(printf '\342\202') $(printf '\303\251')"
	inj() {
		_s= _k=$(rnd 1 8)
		while [ "$_k" -gt 0 ]; do
			# shellcheck disable=SC2086
			_s="$_s$(pick $toks $bad)"
			_k=$((_k - 1))
		done
		printf '%s' "$_s"
	}
	fresh tx 3000
	i1=$(inj) i2=$(inj) i3=$(inj)
	for j in $(find tx -name stream.json); do
		LC_ALL=C sed "s/\"loom\": \"\\([^\"]*\\)\"/\"loom\": \"\\1$i1\"/
			s/\"title\": \"Synth phase\"/\"title\": \"S$i2\"/
			s/\"2\": \"compute\"/\"2\": \"c$i3\"/" "$j" >"$j.new" && mv "$j.new" "$j"
	done
	rm -rf txo
	go 0 emu -q -o txo tx
	[ $RC -eq 0 ] && WHY="$WHY$(valid txo)"
	for f in $(find txo -path txo/.weft -prune -o \( -name '*.pcf' -o -name '*.row' -o -name '*.cfg' \) -print); do
		grep -q '^ZZ9' "$f" && WHY="${WHY}$f: a newline from the trace starts a line; "
		if command -v iconv >/dev/null 2>&1; then
			iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || WHY="${WHY}$f is not UTF-8; "
		fi
	done
	tw=$WHY
	if [ $have_xmllint = 1 ] && [ -z "$tw" ]; then
		go 0 plot -q -o tx.svg txo/thread.prv
		xmllint --noout tx.svg 2>xml.err || WHY="${WHY}xmllint: $(head -c 200 xml.err); "
		tw=$tw$WHY
	fi
	WHY=$tw
	tally text "$R: loom +[$i1] title [S$i2] label [c$i3]" "$WHY"
	rm -rf tx txo tx.svg

	# ---- inputs that would hang weft ------------------------------------------------
	fresh h 2000 --looms 1
	loom=$(ls h)
	"$WEFT" top h >want.txt 2>&1
	levels=$(rnd 30 60)
	m=h/$loom/m
	mkdir -p "$m/d0"
	i=1
	while [ "$i" -le "$levels" ]; do
		mkdir "$m/d$i" && ln -s "../d$i" "$m/d$((i - 1))/a" && ln -s "../d$i" "$m/d$((i - 1))/b"
		i=$((i + 1))
	done
	go 0 top h
	cmp -s out.txt want.txt || WHY="${WHY}top differs from the trace without the maze; "
	tally hang "$R: a maze of $levels levels of links" "$WHY"
	rm -rf h
	fresh lab 2000
	nl=$(rnd 60000 150000)
	step=$(rnd 1 999)
	# nl labels in all: each stream declares its share
	ns=$(find lab -name stream.json | wc -l)
	for j in $(find lab -name stream.json); do
		awk -v n="$((nl / ns))" -v s="$step" '/"mark": \{/ {
			printf "%s\"7\": {\"title\": \"many\", \"chan_type\": \"single\", \"labels\": {", $0;
			for (i = 1; i <= n; i++) printf "%s\"%d\": \"l%d\"", (i > 1 ? ", " : ""), i * s, i;
			print "}},"; next } { print }' "$j" >"$j.new" && mv "$j.new" "$j"
	done
	rm -rf labo
	go 0 emu -q -o labo lab
	WHY="$WHY$(valid labo)"
	tally hang "$R: $nl mark labels" "$WHY"
	rm -rf lab labo
	fresh s 2000
	rm -f fifo && mkfifo fifo
	for f in /dev/zero fifo; do
		go "1 2" query -f "$f" s
		tally hang "$R: query -f $f" "$WHY"
		go 1 emu -q --model "$f" -o out s
		[ -e out ] && WHY="${WHY}out was left; "
		tally hang "$R: emu --model $f" "$WHY"
		go 1 emu -q -c "$f" -o out s
		[ -e out ] && WHY="${WHY}out was left; "
		tally hang "$R: emu -c $f" "$WHY"
	done
	rm -f fifo

	# ---- lenient JSON ---------------------------------------------------------------------
	k=1
	while [ $k -le 4 ]; do
		rm -rf js && cp -R s js
		# shellcheck disable=SC2046
		J=$(pick $(cd js && find . -name stream.json | LC_ALL=C sort))
		case $(pick trail zero newline twice) in
		trail) how="content after the object"; sed "\$s/\$/ $(pick '{}' 1 x '[]' '"a"' null)/" "s/$J" >"js/$J" ;;
		zero) key=$(pick tid pid app_id rank nranks index phyid version)
			how="a leading zero in $key"; sed "0,/\"$key\": \\([0-9]\\)/s//\"$key\": 0\\1/" "s/$J" >"js/$J" ;;
		newline) key=$(pick loom title part)
			how="a raw newline in $key"; sed "0,/\"$key\": \"\\([^\"]*\\)\"/s//\"$key\": \"\\1\\
\"/" "s/$J" >"js/$J" ;;
		twice) key=$(pick tid pid loom app_id rank)
			how="$key twice"; sed "0,/\"$key\": /s//\"$key\": 5, \"$key\": /" "s/$J" >"js/$J" ;;
		esac
		if cmp -s "s/$J" "js/$J"; then
			skip "json: $R: $how" "the key is not in $J"
		else
			go 1 emu -q -o out js
			grep -q "$J: byte offset [0-9]*: " err || WHY="${WHY}no byte offset: $(head -c 200 err); "
			[ -e out ] && WHY="${WHY}out was left; "
			tally json "$R: $how ($J)" "$WHY"
		fi
		k=$((k + 1))
	done
	rm -rf js

	# ---- limits of the system -------------------------------------------------------------
	"$WEFT" synth --format picl -o four.trf --procs "$(rnd 2 6)" -n "$(rnd 5000 40000)" --seed "$(rnd 1 1000000000)" >/dev/null 2>&1
	if [ $have_ulimit_v = 1 ]; then
		k=1
		while [ $k -le 3 ]; do
			v=$(rnd 30000 200000)
			j=$(rnd 1 2)
			rm -rf out
			# under a limit: a sh in between sets it
			sh -c 'ulimit -v "$1" && ulimit -t "$2" && exec timeout -s KILL "$((10 * $2))" "$3" emu -q -j "$4" -o out four.trf' sh "$v" "$TO" "$WEFT" "$j" \
				>out.txt 2>err </dev/null
			RC=$?
			limited
			tally limits "$R: ulimit -v $v, emu -j $j (exit $RC)" "$WHY"
			k=$((k + 1))
		done
	else
		skip "limits: $R: ulimit -v" "weft does not start under ulimit -v (a sanitizer build)"
	fi
	nf=$(rnd 4 14)
	rm -rf out
	sh -c 'ulimit -n "$1" && ulimit -t "$2" && exec timeout -s KILL "$((10 * $2))" "$3" emu -q -o out "$4"' sh "$nf" "$TO" "$WEFT" s >out.txt 2>err </dev/null
	RC=$?
	limited
	tally limits "$R: ulimit -n $nf (exit $RC)" "$WHY"
	# (a sanitizer's runtime makes those calls too, and dies of them)
	if [ $have_strace = 1 ] && [ $have_ulimit_v = 1 ]; then
		for inj in write:error=ENOSPC openat:error=EROFS openat:error=EMFILE mkdir:error=EROFS rename:error=ENOSPC; do
			n=$(rnd 1 40)
			rm -rf out
			in=$(pick s four.trf)
			timeout -s KILL $((10 * TO)) strace -o /dev/null -f -e "inject=$inj:when=$n" "$WEFT" emu -q -o out "$in" \
				>out.txt 2>err </dev/null
			RC=$?
			limited "$(grep -v '^strace' err | head -c 200)"
			tally limits "$R: $inj at call $n, emu of $in (exit $RC)" "$WHY"
		done
	else
		skip "limits: $R: injected failures" "no strace that can trace here, or a sanitizer build"
	fi
	rm -rf s out four.trf
	round=$((round + 1))
done

for c in shrink kill race text hang json limits; do
	eval "echo \"retry $c: \$runs_$c runs, \$bad_$c bad (seed $SEED, $ROUNDS round(s))\""
done
finish
