# tests/cli/cli_lib.sh: what the CLI test scripts share: the arguments,
# a scratch folder, and expect_rc. Sourced; usage of the sourcing script:
# SCRIPT SLUICE REPO_ROOT.
set -u
sluice=${1:?usage: ${0##*/} SLUICE REPO_ROOT}
root=${2:?usage: ${0##*/} SLUICE REPO_ROOT}
case $sluice in /*) ;; *) sluice=$PWD/$sluice ;; esac
case $root in /*) ;; *) root=$PWD/$root ;; esac
samples=$root/samples
limit=${SLUICE_CLI_TIMEOUT:-20} # seconds per hostile input

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2

pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# expect_rc WANT LABEL CMD...: WANT is a code or "0|1" style alternatives.
expect_rc() {
  local want=$1 label=$2
  shift 2
  timeout "$limit" "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  if [ $rc -eq 124 ]; then
    bad "$label: timed out after ${limit}s"
  elif [ $rc -ge 128 ]; then
    bad "$label: killed by signal $((rc - 128))"
  elif ! [[ "|$want|" == *"|$rc|"* ]]; then
    bad "$label: exit code $rc, expected $want; stderr: $(head -c 300 "$work/err")"
  else
    ok
    return 0
  fi
  return 1
}
