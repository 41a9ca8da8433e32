#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# The test library and make check's runner, tested on a scratch suite:
#   - test/lib.sh's units: numbered in order with the older checks, a
#     failing one prints its commands and its output, test_setup runs
#     always, --run=LIST runs only those units (the setup still), -v shows
#     the commands and their output as they run, -i stops at the first
#     failure, an unknown option exits 2; test_status, test_cmp, test_grep,
#     test_no_file fail with what they found;
#   - test/runsuite.sh counts the checks, prints one line (or the failing
#     checks with their commands) and writes the .res line; test/summary.sh
#     prints "LABEL: N checks in M suites passed, K skipped" or the failures
#     and exits 1;
#   - the Makefile finds the suites: every script of test/e2e,
#     test/malformed and test/tools that sources test/lib.sh (SUITES_OFF
#     is empty), in a scratch tree.
#
#   sh test/tools/libtest.sh
# Prints "ok N NAME" / "FAIL N NAME: why", then "N passed, M failed, K skipped".

. "$(dirname "$0")/../lib.sh"

s=$tmp/s
mkdir -p "$s/test/e2e" "$s/test/malformed" "$s/test/tools"
cp "$top/test/lib.sh" "$s/test/lib.sh"
cat >"$s/test/e2e/demo.sh" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/../lib.sh"
test_setup 'echo setup-ran >"$tmp/s"'
test_expect_success 'one passes' 'true'
test_expect_success 'two fails' '
	echo some output &&
	test_status 0 false
'
expect "three, an older check" a a
test_expect_success 'four sees the setup' 'test_grep setup-ran "$tmp/s" && echo four-said-this'
test_expect_success 'five: the helpers say what they found' '
	echo a >"$tmp/a" && echo b >"$tmp/b" &&
	! test_cmp "$tmp/a" "$tmp/b" 2>"$tmp/cmp" && test_grep "^[-]a" "$tmp/cmp" &&
	! test_grep zzz "$tmp/a" 2>"$tmp/grep" && test_grep "no line of .* matches" "$tmp/grep" &&
	! test_no_file "$tmp/a" 2>"$tmp/nf" && test_grep "exists" "$tmp/nf" &&
	test_no_file "$tmp/none" && test_status 3 sh -c "exit 3"
'
finish
EOF
cat >"$s/test/e2e/good.sh" <<'EOF'
#!/bin/sh
. "$(dirname "$0")/../lib.sh"
test_expect_success 'passes' 'true'
skip "skipped" "on purpose"
finish
EOF
printf '#!/bin/sh\necho not a suite\n' >"$s/test/e2e/helper.sh"
cp "$s/test/e2e/good.sh" "$s/test/malformed/m.sh"
cp "$s/test/e2e/good.sh" "$s/test/tools/spdx.sh"
cp "$s/test/e2e/good.sh" "$s/test/tools/t.sh"

sh "$s/test/e2e/demo.sh" >"$tmp/out" 2>&1
rc=$?
expect "a failing unit fails the script" "$rc" 1
expect "units and older checks numbered in order" \
	"$(grep -E '^(ok|FAIL) ' "$tmp/out" | cut -d' ' -f1,2 | tr '\n' ' ')" "ok 1 FAIL 2 ok 3 ok 4 ok 5 "
expect "the failing unit prints its commands" \
	"$(sed -n '/^FAIL 2 two fails (exit 1)$/,/^ok 3/p' "$tmp/out" | grep -c -e '^    > echo some output &&$' -e '^    > test_status 0 false$')" 2
expect "... and its output" \
	"$(sed -n '/^FAIL 2/,/^ok 3/p' "$tmp/out" | grep -c -e '^    | some output$' -e "^    | test_status: 'false' exited with status 1, expected 0$")" 2
expect "a passing unit's output is kept aside" "$(grep -c four-said-this "$tmp/out")" 0
expect "the totals" "$(tail -n 1 "$tmp/out")" "4 passed, 1 failed, 0 skipped"

sh "$s/test/e2e/demo.sh" --run=4 >"$tmp/out" 2>&1
expect "--run=4: that unit alone, after the setup" "$?:$(tr '\n' ';' <"$tmp/out")" \
	"0:ok 4 four sees the setup;1 passed, 0 failed, 0 skipped;"
sh "$s/test/e2e/demo.sh" --run=1,3-4 >"$tmp/out" 2>&1
expect "--run=1,3-4" "$?:$(grep '^ok' "$tmp/out" | cut -d' ' -f2 | tr '\n' ' ')" "0:1 3 4 "
sh "$s/test/e2e/demo.sh" --run=4 -v >"$tmp/out" 2>&1
expect "-v: the commands and their output as they run" \
	"$(grep -c -e '^--- 4 four sees the setup$' -e '^four-said-this$' -e '^--- setup$' "$tmp/out")" 3
sh "$s/test/e2e/demo.sh" -i >"$tmp/out" 2>&1
expect "-i: stops at the first failure" "$?:$(grep -c '^ok 3' "$tmp/out"):$(tail -n 1 "$tmp/out")" \
	"1:0:1 passed, 1 failed, 0 skipped"
sh "$s/test/e2e/demo.sh" --bogus >"$tmp/out" 2>&1
expect "an unknown option: exit 2, named" "$?:$(grep -c "unknown option '--bogus'" "$tmp/out")" "2:1"
sh "$s/test/e2e/demo.sh" --run=x >"$tmp/out" 2>&1
expect "--run=x: exit 2" "$?" 2

# ---- runsuite.sh and summary.sh -------------------------------------------------
r=$tmp/res
sh "$top/test/runsuite.sh" e2e/demo.sh "$r" sh "$s/test/e2e/demo.sh" >"$tmp/line"
expect "runsuite: a failing suite's line" "$(head -n 1 "$tmp/line")" "  FAIL  e2e/demo.sh: 1 of 5 checks failed"
expect "runsuite: with the failing unit's commands" "$(grep -c '^        > test_status 0 false$' "$tmp/line")" 1
expect "runsuite: the .res line" "$(cut -d' ' -f1-5 "$r/e2e-demo.sh.res")" "e2e/demo.sh 1 4 1 0"
sh "$top/test/summary.sh" LABEL "$r" >"$tmp/sum"
expect "summary: the failure" "$?:$(cat "$tmp/sum")" "1:LABEL: 1 of 5 checks failed, in 1 of 1 suites: e2e/demo.sh"
r2=$tmp/res2
sh "$top/test/runsuite.sh" e2e/good.sh "$r2" sh "$s/test/e2e/good.sh" >"$tmp/line"
expect "runsuite: a passing suite's line" "$(sed 's/  */ /g; s/ [0-9]* s/ S s/' "$tmp/line")" " ok e2e/good.sh 1 checks S s, 1 skipped"
sh "$top/test/runsuite.sh" exit2 "$r2" sh -c 'echo "ok 1 x"; exit 2' >/dev/null
sh "$top/test/summary.sh" "make check" "$r2" >"$tmp/sum"
expect "summary: a suite that exits 2 without a FAIL line failed" "$?:$(cat "$tmp/sum")" \
	"1:make check: 1 of 3 checks failed, in 1 of 2 suites: exit2"
rm -f "$r2/exit2.res"
sh "$top/test/summary.sh" "make check" "$r2" >"$tmp/sum"
expect "summary: all passed" "$?:$(cat "$tmp/sum")" "0:make check: 1 checks in 1 suites passed, 1 skipped"
sh "$top/test/runsuite.sh" unit "$r2" sh -c 'echo "100%: Checks: 12, Failures: 0, Errors: 0"' >/dev/null
expect "runsuite: Check's summary line counted" "$(cut -d' ' -f3,4 "$r2/unit.res")" "12 0"

# ---- the Makefile finds the suites ---------------------------------------------------
cp "$top/Makefile" "$s/Makefile"
if command -v make >/dev/null 2>&1; then
	(cd "$s" && env -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u SUITES -u SUITE_VARIANTS make -s check-list) >"$tmp/list" 2>&1
	expect "make check-list: the scripts that source test/lib.sh" "$(tr '\n' ' ' <"$tmp/list")" \
		"unit fuzz-replay test/e2e/demo.sh test/e2e/good.sh test/malformed/m.sh test/tools/spdx.sh test/tools/t.sh "
else
	skip "make check-list" "no make"
fi

finish
