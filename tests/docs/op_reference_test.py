#!/usr/bin/env python3
# tests/docs/op_reference_test.py: docs/reference/ops.md is exactly what
# `sluice ops --markdown` prints, so the checked-in op reference never
# drifts from the registry.
#
# Usage: op_reference_test.py SLUICE REPO_ROOT
# On a difference it prints the first differing lines and how to
# regenerate the file. Python's standard library only.
import difflib
import os
import subprocess
import sys

REFERENCE = "docs/reference/ops.md"


def main():
    sluice, root = sys.argv[1], sys.argv[2]
    generated = subprocess.run([sluice, "ops", "--markdown"], check=True,
                               capture_output=True, text=True).stdout
    path = os.path.join(root, REFERENCE)
    try:
        with open(path, encoding="utf-8") as f:
            checked_in = f.read()
    except FileNotFoundError:
        checked_in = ""
    if generated == checked_in:
        print(f"{REFERENCE} matches `sluice ops --markdown`")
        return 0
    diff = list(difflib.unified_diff(checked_in.splitlines(), generated.splitlines(),
                                     REFERENCE, "sluice ops --markdown", lineterm="", n=1))
    print("\n".join(diff[:60]))
    if len(diff) > 60:
        print(f"... ({len(diff) - 60} more diff lines)")
    print(f"\n{REFERENCE} differs from what the op registry generates. It is generated, "
          f"not edited: regenerate it with\n"
          f"    build/sluice ops --markdown -o {REFERENCE}\n"
          f"and commit the result.")
    return 1


if __name__ == "__main__":
    sys.exit(main())
