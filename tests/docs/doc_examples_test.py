#!/usr/bin/env python3
# tests/docs/doc_examples_test.py: every ```sluice block of README.md and
# docs/{guide,internals}/*.md is a complete program, and runs.
#
# Usage: doc_examples_test.py SLUICE REPO_ROOT [FILE.md ...]
#
# Convention (docs/guide/README.md): a fence tagged `sluice` is a complete
# program: it is run with `sluice run`, or `sluice test` when it holds a
# `test "..."` block, in a fresh folder holding a copy of samples/ (so it may
# read my_test.csv, data/iris.csv). Fragments are tagged `sluice-fragment`
# (or sh, text, cpp...) and are not run; a fence without a tag is an error,
# so that no program escapes the test by accident. A failure prints
# `FILE:LINE: example failed` and the output; the last line is
# `N passed, M failed`. Python's standard library only.
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

TIMEOUT = int(os.environ.get("DOC_EXAMPLE_TIMEOUT", "120"))  # seconds per example
FENCE = re.compile(r"^\s*(`{3,}|~{3,})\s*([^\s`]*)")
TEST_BLOCK = re.compile(r'^\s*test\s+"', re.M)


def doc_files(root):
    files = [os.path.join(root, "README.md")]
    for sub in ("docs/guide", "docs/internals"):
        d = os.path.join(root, sub)
        if os.path.isdir(d):
            files += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".md"))
    return [f for f in files if os.path.isfile(f)]


def blocks(path):
    """Yields (line of the opening fence, tag, text) for each fenced block."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, tag, start = m.group(1), m.group(2), i + 1
        body = []
        i += 1
        while i < len(lines):
            s = lines[i].strip()
            if s.startswith(fence[0] * len(fence)) and s.strip(fence[0]) == "":
                break
            body.append(lines[i])
            i += 1
        if i == len(lines):
            yield start, None, "unclosed fence"
            return
        yield start, tag, "\n".join(body) + "\n"
        i += 1


def run(cmd, cwd, env):
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=TIMEOUT)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace") + f"\n(timed out after {TIMEOUT} s)\n"


def main():
    if len(sys.argv) < 3:
        print("usage: doc_examples_test.py SLUICE REPO_ROOT [FILE.md ...]", file=sys.stderr)
        return 2
    sluice = os.path.abspath(sys.argv[1])
    root = os.path.abspath(sys.argv[2])
    files = [os.path.abspath(f) for f in sys.argv[3:]] or doc_files(root)
    work = tempfile.mkdtemp(prefix="sluice-doc-examples-")
    env = dict(os.environ)
    # Examples run alone: no cluster from the environment, no progress line.
    for k in ("TF_CONFIG", "SLUICE_CLUSTER_TOKEN"):
        env.pop(k, None)
    env["SLUICE_PROGRESS"] = "0"
    env.setdefault("SLUICE_JIT_CACHE_DIR", os.path.join(work, "jit-cache"))
    passed = failed = 0
    try:
        for path in files:
            rel = os.path.relpath(path, root)
            for line, tag, text in blocks(path):
                if tag is None or tag == "":
                    print(f"{rel}:{line}: fenced block without a tag "
                          "(sluice, sluice-fragment, sh, text, ...)")
                    failed += 1
                    continue
                if tag != "sluice":
                    continue
                n = passed + failed
                folder = os.path.join(work, f"example_{n}")
                shutil.copytree(os.path.join(root, "samples"), folder)
                name = f"doc_example_{n}.sluice"
                with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
                    f.write(text)
                verb = "test" if TEST_BLOCK.search(text) else "run"
                rc, out = run([sluice, verb, name], folder, env)
                if rc == 0:
                    passed += 1
                    shutil.rmtree(folder, ignore_errors=True)
                else:
                    failed += 1
                    why = "timed out" if rc is None else f"exit code {rc}"
                    print(f"{rel}:{line}: example failed ({why}; sluice {verb})")
                    print("\n".join("    " + l for l in out.rstrip("\n").split("\n")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
