#!/usr/bin/env bash
# tests/cli/test_runner_cli_test.sh: `sluice test` as a fixture runner
# (issue #7): readable tensor diffs, expect_golden and --update-golden,
# -j N (isolated, ordered output), --timeout, fixtures' teardown after a
# failure. Usage: test_runner_cli_test.sh SLUICE REPO_ROOT
source "$(dirname "$0")/cli_lib.sh"

has() { grep -qF -- "$1" "$work/out" || bad "$2: no '$1' in: $(head -c 1500 "$work/out")"; }

# --- Readable diffs of tensors.
mkdir -p "$work/diff"
cat >"$work/diff/diff.sluice" <<'SL'
test "matrix" {
    session { expect_eq(run(constant([[1, 2, 3], [4, 5, 7]])), [[1, 2, 3], [4, 5, 6]]) }
}
test "near" {
    session { expect_near(run(constant([1.0, 2.0, 3.5, 9.0])), [1.0, 2.0, 3.0, 10.0], tol: 0.1) }
}
test "shape" {
    session { expect_eq(run(constant([1, 2])), [[1, 2]]) }
}
test "large" {
    a = range(0, 1000, dtype: i32)
    b = where(equal(a, 500), a + 1, a)
    session { expect_eq(run(b), run(a)) }
}
test "in a list" {
    session { expect_eq(run([constant(1), constant([1.5, 2.5])]), [1, [1.5, 2.0]]) }
}
SL
expect_rc 1 "diffs" "$sluice" test "$work/diff"
has "1 of 6 elements differ (i32 [2, 3])" "expect_eq diff"
has "at [1, 2]: got 7, expected 6" "expect_eq first mismatch"
has "max abs error 1 at [1, 2], max rel error 0.166667 at [1, 2]" "expect_eq errors"
has "diff.sluice:2:" "expect_eq location"
has "expect_eq(run(constant([[1, 2, 3], [4, 5, 7]]))" "expect_eq shows the expression"
has "2 of 4 elements differ by more than 0.1 (f64 [4])" "expect_near diff"
has "max abs error 1 at [3], max rel error 0.166667 at [2]" "expect_near errors"
has "shape: got [2], expected [1, 2]" "shape diff"
has "1 of 1000 elements differ (i32 [1000])" "large diff"
has "at [500]: got 501, expected 500" "large first mismatch"
grep -q "got:  *\[0 1 2" "$work/out" && bad "a 1000-element tensor was printed whole"
has "at item 1:" "list diff names the item"
has "at [1]: got 2.5, expected 2." "list diff inside"
has "0 passed, 5 failed" "diff summary"

# --- expect_golden and --update-golden.
mkdir -p "$work/g"
cat >"$work/g/g.sluice" <<'SL'
test "golden" {
    session { expect_golden(run(constant([[1.0, 2.0], [3.0, 4.5]])), "golden/v.txt") }
}
SL
expect_rc 1 "golden missing" "$sluice" test "$work/g"
has "the golden file golden/v.txt does not exist (sluice test --update-golden writes it)" "golden missing"
expect_rc 0 "--update-golden" "$sluice" test "$work/g" --update-golden
grep -qF "note: wrote golden/v.txt" "$work/err" || bad "--update-golden note: $(cat "$work/err")"
[ "$(cat "$work/g/golden/v.txt")" = "$(printf 'tensor<f32 [2, 2]>\n1.0, 2.0\n3.0, 4.5')" ] ||
  bad "golden text: $(cat "$work/g/golden/v.txt")"
expect_rc 0 "golden matches" "$sluice" test "$work/g"
expect_rc 0 "--update-golden leaves a matching file alone" "$sluice" test "$work/g" --update-golden
[ -s "$work/err" ] && bad "an unchanged golden was rewritten: $(cat "$work/err")"
printf 'tensor<f32 [2, 2]>\n1.0, 2.0\n3.0, 4.0\n' >"$work/g/golden/v.txt"
expect_rc 1 "golden differs" "$sluice" test "$work/g"
has "expect_golden failed: differs from golden/v.txt (sluice test --update-golden rewrites it)" "golden differs"
has "at [1, 1]: got 4.5, expected 4." "golden diff"
printf 'tensor<f32 [2, 2]>\n1.0, 2.0\n3.0, x\n' >"$work/g/golden/v.txt"
expect_rc 1 "golden corrupt" "$sluice" test "$work/g"
has "golden/v.txt:1: the tensor does not read back" "golden corrupt"
printf 'tensor<f32 [2, 2]>\n1.0, 2.0\n' >"$work/g/golden/v.txt"
expect_rc 1 "golden short" "$sluice" test "$work/g"
has "needs 4 elements, found 2" "golden short"
expect_rc 0 "--update-golden repairs it" "$sluice" test "$work/g" --update-golden
grep -qF "note: updated golden/v.txt" "$work/err" || bad "update note: $(cat "$work/err")"
expect_rc 0 "golden repaired" "$sluice" test "$work/g"

# --- -j N: each test in its own process, output in file order.
mkdir -p "$work/par"
for f in a b c; do
  cat >"$work/par/$f.sluice" <<SL
x = 2
test "$f one" { print("$f one prints") ; session { expect_eq(run(constant(x) * 2), 4) } }
test "$f two" { sleep(0.2) ; print("$f two prints") }
test "$f three" { expect_eq(1, $([ $f = b ] && echo 2 || echo 1)) }
SL
done
expect_rc 1 "-j 1" "$sluice" test "$work/par"
cp "$work/out" "$work/serial"
expect_rc 1 "-j 3" "$sluice" test "$work/par" -j 3 --junit "$work/par.xml"
diff "$work/serial" "$work/out" >/dev/null || bad "-j 3 output differs from -j 1: $(diff "$work/serial" "$work/out" | head -20)"
has "8 passed, 1 failed" "-j summary"
python3 - "$work/par.xml" <<'PY' || bad "-j --junit: $(head -c 600 "$work/par.xml")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.get("tests") == "9" and root.get("failures") == "1", root.attrib
suites = {s.get("name").rsplit("/", 1)[-1]: s for s in root}
fail = [c for c in suites["b.sluice"] if c.find("failure") is not None]
assert [c.get("name") for c in fail] == ["b three"], [c.get("name") for c in fail]
assert "b.sluice:4" in fail[0].find("failure").text, fail[0].find("failure").text
PY
expect_rc 0 "-j with --filter" "$sluice" test "$work/par" -j 2 --filter "two"
has "3 passed, 0 failed" "-j --filter"
expect_rc 2 "-j 0 is refused" "$sluice" test "$work/par" -j 0
expect_rc 0 "--list ignores -j" "$sluice" test "$work/par" --list -j 4
[ "$(wc -l <"$work/out")" -eq 9 ] || bad "--list -j: $(cat "$work/out")"

# --- --timeout: a hung test fails alone; the run goes on.
mkdir -p "$work/slow"
cat >"$work/slow/slow.sluice" <<'SL'
test "hangs" { while true { } }
test "blocks on a queue nothing fills" {
    q = fifo_queue(capacity: 1, dtypes: [i32])
    session(config: config_proto(stall_detection: false)) { run(q.dequeue()) }
}
test "fine" { expect(true) }
SL
start=$(date +%s)
expect_rc 1 "--timeout" "$sluice" test "$work/slow" --timeout 1 -j 2
[ $(( $(date +%s) - start )) -lt 15 ] || bad "--timeout took $(( $(date +%s) - start )) s"
has "FAIL $work/slow/slow.sluice: hangs (timed out after 1 s)" "--timeout hang"
has "FAIL $work/slow/slow.sluice: blocks on a queue nothing fills (timed out after 1 s)" "--timeout block"
has "PASS $work/slow/slow.sluice: fine" "--timeout others pass"
has "1 passed, 2 failed" "--timeout summary"
printf 'while true { }\ntest "never listed" { }\n' >"$work/slow/top.sluice"
expect_rc 1 "--timeout on a file's top level" "$sluice" test "$work/slow/top.sluice" --timeout 1
has "(the file itself failed: timed out after 1 s)" "--timeout top level"

# --- A fixture's teardown runs after a failing test; a fixture's error
# is located in the fixture.
mkdir -p "$work/fx"
cat >"$work/fx/fx.sluice" <<SL
fixture marker {
    teardown { session { run(write_file("$work/fx/teardown_ran", "yes")) } }
}
fixture broken {
    raise(aborted, "setup failed")
}
test "fails after use" {
    use marker
    expect(false, "on purpose")
}
test "uses broken" { use broken }
SL
expect_rc 1 "fixtures" "$sluice" test "$work/fx"
[ "$(cat "$work/fx/teardown_ran" 2>/dev/null)" = yes ] || bad "teardown did not run after a failure"
has "fx.sluice:5:5: error: aborted: setup failed" "fixture error location"
has "0 passed, 2 failed" "fixtures summary"
printf 'use marker\n' >"$work/fx/top.sluice"
expect_rc 1 "use outside a test" "$sluice" test "$work/fx/top.sluice"
has "use is allowed only in a test or a fixture" "use outside a test"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
