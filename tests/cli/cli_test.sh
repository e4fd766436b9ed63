#!/usr/bin/env bash
# tests/cli/cli_test.sh: the `sluice` binary's contract as a tool: exit codes
# (0 ok, 1 bad program, 2 usage), never a crash or hang on hostile input, and
# the compile/test subcommands' output forms.
#
# Usage: cli_test.sh SLUICE REPO_ROOT. Needs python3 for the generated inputs.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"

# --- Usage and exit codes ------------------------------------------------
expect_rc 0 "--version" "$sluice" --version &&
  { grep -q . "$work/out" || bad "--version printed nothing"; }
expect_rc 0 "--help" "$sluice" --help
expect_rc 2 "no subcommand" "$sluice"
expect_rc 2 "unknown subcommand" "$sluice" frobnicate
expect_rc 2 "unknown flag" "$sluice" --frobnicate
expect_rc 2 "unknown run flag" "$sluice" run --frobnicate "$samples/hello.sluice"
expect_rc 2 "bad --emit" "$sluice" compile "$samples/hello.sluice" --emit asm
expect_rc 2 "run without a file" "$sluice" run
if expect_rc 1 "run missing file" "$sluice" run "$work/no_such_file.sluice"; then
  grep -q 'no_such_file.sluice' "$work/err" ||
    bad "run missing file: stderr does not name the file: $(cat "$work/err")"
fi
expect_rc 0 "run hello" "$sluice" run "$samples/hello.sluice"

# --- What is not a graph file, and standard input (#19 item 6) -----------
if expect_rc 1 "run a directory" "$sluice" run "$samples"; then
  grep -q 'is a directory' "$work/err" || bad "run a directory: stderr: $(cat "$work/err")"
fi
if expect_rc 1 "compile a directory" "$sluice" compile "$samples"; then
  grep -q 'is a directory' "$work/err" || bad "compile a directory: stderr: $(cat "$work/err")"
fi
mkdir -p "$work/graph.sir"
expect_rc 1 "compile a directory named .sir" "$sluice" compile "$work/graph.sir"
if printf 'x = 6\nprint(x * 7)\n' | "$sluice" run - >"$work/out" 2>"$work/err"; then
  if [ "$(cat "$work/out")" = "42" ]; then ok; else bad "run -: printed '$(cat "$work/out")'"; fi
else
  bad "run -: exit $?: $(cat "$work/err")"
fi
if printf 'x = \n' | "$sluice" run - >"$work/out" 2>"$work/err"; then
  bad "run - with a syntax error exited 0"
else
  grep -q '<stdin>:1:' "$work/err" && ok || bad "run -: the error does not name <stdin>:1: $(cat "$work/err")"
fi

# --- Hostile inputs: exit 1 (or 0 where the input may be valid) ----------
gen=$work/gen
mkdir -p "$gen"
python3 - "$gen" "$samples" <<'PY' || { bad "python3 could not generate the inputs"; }
import os, random, sys
gen, samples = sys.argv[1], sys.argv[2]
def put(name, data):
    with open(os.path.join(gen, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())
# Prefixes of the samples: mostly cut mid-token or mid-block; some are valid.
for s in ("hello.sluice", "counter.sluice"):
    text = open(os.path.join(samples, s), "rb").read()
    for n in range(0, len(text), 7):
        put("maybe_trunc_%s_%04d.sluice" % (s[:-7], n), text[:n])
rng = random.Random(20240611)
for i in range(200):
    n = rng.randrange(1, 400)
    data = bytes(rng.randrange(256) for _ in range(n))
    if i % 4 == 0:
        data = data[: n // 2] + b"\0" + data[n // 2:]       # NUL
    if i % 4 == 1:
        data = b"x = \"" + data + b"\xff\xfe\xc3(\"\n"   # invalid UTF-8 in a string
    if i % 4 == 2:
        # Printable soup from the language's own characters.
        data = bytes(rng.choice(b"()[]{}:;,.+-*/@<>=!\"'#\\\n abcxyz019_") for _ in range(n))
    put("maybe_random_%03d.sluice" % i, data)
put("bad_unterminated_string.sluice", 'x = "never closed\ny = 1\n')
put("bad_unterminated_raw_string.sluice", 'x = r"never closed\n')
put("bad_nested_parens.sluice", "x = " + "(" * 100000 + "\n")
put("bad_nested_parens_closed.sluice", "x = " + "(" * 100000 + "1" + ")" * 100000 + "\n")
put("bad_nested_brackets.sluice", "x = " + "[" * 100000 + "\n")
put("bad_nested_braces.sluice", "if true {\n" * 100000)
put("bad_long_chain.sluice", "x = " + "+".join(["1"] * 100000) + "\n")
put("bad_unary_minus.sluice", "x = " + "-" * 100000 + "1\n")
put("bad_not_chain.sluice", "x = " + "not " * 100000 + "true\n")
put("bad_huge_int.sluice", "x = " + "9" * 5000 + "\n")
put("bad_huge_int_arg.sluice", "x = constant(" + "9" * 5000 + ")\n")
put("bad_huge_float.sluice", "x = 1e999999\n")
put("bad_huge_float_digits.sluice", "x = " + "9" * 5000 + ".5e99999\n")
put("bad_float_for_f32.sluice", "x = constant(1e39, dtype: f32)\n")
put("bad_unknown_op.sluice", "x = no_such_op(1, 2)\n")
put("bad_unknown_attr.sluice", "x = constant(1, no_such_attr: 2)\n")
put("bad_unknown_method.sluice", "x = constant(1)\ny = x.no_such_method()\n")
put("bad_unknown_dtype.sluice", "x = placeholder(f33)\n")
put("bad_only_nul.sluice", b"\0" * 64)
put("bad_invalid_utf8_ident.sluice", b"x\xff = 1\n")
put("bad_long_line.sluice", "x = " + "a" * 1000000 + " b\n")
PY
for f in "$gen"/*.sluice; do
  name=$(basename "$f")
  case $name in
    maybe_*) want="0|1" ;;
    *) want=1 ;;
  esac
  expect_rc "$want" "run $name" "$sluice" run "$f" || continue
  # A rejected file must say why, GCC style.
  if [ "$want" = 1 ] && ! grep -q ': error: ' "$work/err"; then
    bad "run $name: exit 1 without an 'error:' diagnostic"
  fi
done
# The same hostile inputs through `compile`, which must not crash either.
for f in "$gen"/bad_*.sluice; do
  expect_rc 1 "compile $(basename "$f")" "$sluice" compile "$f" --emit ir
done

# --- compile: text IR round trip, dot -----------------------------------
if expect_rc 0 "compile hello -o" "$sluice" compile "$samples/hello.sluice" --emit ir -o "$work/hello.sir"; then
  if expect_rc 0 "compile hello.sir" "$sluice" compile "$work/hello.sir" --emit ir; then
    cmp -s "$work/hello.sir" "$work/out" ||
      bad "compile round trip: re-emitting hello.sir changed it: $(diff "$work/hello.sir" "$work/out" | head -10)"
  fi
fi
if expect_rc 0 "compile --emit dot" "$sluice" compile "$samples/hello.sluice" --emit dot; then
  grep -q '^digraph' "$work/out" || bad "--emit dot: no 'digraph' in: $(head -c 200 "$work/out")"
fi
printf 'garbage %%x = \n' >"$work/broken.sir"
expect_rc 1 "compile broken .sir" "$sluice" compile "$work/broken.sir" --emit ir

# --- test: the summary line ------------------------------------------------
mkdir -p "$work/lang"
cat >"$work/lang/summary.sluice" <<'SL'
test "passes" {
    expect_eq(1 + 1, 2)
}
test "fails" {
    expect_eq(1 + 1, 3)
}
SL
expect_rc 1 "test with a failing test" "$sluice" test "$work/lang"
last=$(tail -n 1 "$work/out")
[[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || bad "test: last line is '$last'"
[ "$last" = "1 passed, 1 failed" ] || bad "test: expected '1 passed, 1 failed', got '$last'"
# --list names the tests (after --filter) and runs none.
expect_rc 0 "test --list" "$sluice" test "$work/lang" --list
[ "$(cat "$work/out")" = "$(printf '%s\n%s' "$work/lang/summary.sluice: passes" "$work/lang/summary.sluice: fails")" ] ||
  bad "test --list: $(cat "$work/out")"
expect_rc 0 "test --list --filter" "$sluice" test "$work/lang" --list --filter fails
[ "$(cat "$work/out")" = "$work/lang/summary.sluice: fails" ] || bad "test --list --filter: $(cat "$work/out")"
# --junit writes JUnit XML that parses, with the failure's diagnostic.
printf 'test "x < y & z" {\n    expect(false)\n}\nnot valid (\n' >"$work/lang/broken.sluice"
expect_rc 1 "test --junit" "$sluice" test "$work/lang" --junit "$work/report.xml"
python3 - "$work/report.xml" <<'PY' || bad "test --junit: $(head -c 600 "$work/report.xml")"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
assert root.get("tests") == "3" and root.get("failures") == "1" and root.get("errors") == "1", root.attrib
suites = {s.get("name").rsplit("/", 1)[-1]: s for s in root}
cases = {c.get("name"): c for c in suites["summary.sluice"]}
assert cases["passes"].find("failure") is None
failure = cases["fails"].find("failure")
assert "expect_eq" in failure.text and "summary.sluice:5" in failure.text, failure.text
assert suites["broken.sluice"].find("testcase/error") is not None
PY
rm "$work/lang/broken.sluice"
expect_rc 1 "test --junit to a bad path" "$sluice" test "$work/lang" --junit "$work/no_such_dir/r.xml" &&
  { grep -q 'sluice: error: --junit: cannot write' "$work/err" || bad "--junit bad path: $(cat "$work/err")"; }
expect_rc 0 "test samples" "$sluice" test "$samples"
last=$(tail -n 1 "$work/out")
[[ $last =~ ^[0-9]+\ passed,\ [0-9]+\ failed$ ]] || bad "test samples: last line is '$last'"
expect_rc 1 "test missing path" "$sluice" test "$work/no_such_dir"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
