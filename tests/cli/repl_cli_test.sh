#!/usr/bin/env bash
# tests/cli/repl_cli_test.sh: `sluice repl` on a terminal, driven through
# tmux: what the screen shows for line editing, history, Tab completion,
# multi-line input, errors, Ctrl-C (at the prompt and during a run) and
# Ctrl-D. Exits 77 (skipped) when tmux is not installed.
#
# Usage: repl_cli_test.sh SLUICE REPO_ROOT.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/cli_lib.sh"
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed"; exit 77; }

export HOME=$work/home
mkdir -p "$HOME"
sock=$work/tmux.sock
T() { tmux -S "$sock" "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$work"' EXIT

screen() { T capture-pane -p -J -S -300 -t repl; }
# wait_for TEXT [SECONDS]: until the screen shows TEXT (a fixed string).
wait_for() {
  local text=$1 secs=${2:-15} i
  for ((i = 0; i < secs * 10; i++)); do
    screen | grep -qF -- "$text" && return 0
    sleep 0.1
  done
  return 1
}
# wait_line LINE [N]: until N (default 1) screen lines are exactly LINE.
wait_line() {
  local text=$1 n=${2:-1} i
  for ((i = 0; i < 150; i++)); do
    [ "$(screen | sed 's/ *$//' | grep -cxF -- "$text")" -ge "$n" ] && return 0
    sleep 0.1
  done
  return 1
}
# wait_prompt: until the screen's last line is an empty prompt (keys sent
# while a statement still runs reach a terminal in cooked mode, where Tab
# is not completion).
wait_prompt() {
  local i
  for ((i = 0; i < 150; i++)); do
    [ "$(screen | sed 's/ *$//' | grep -v '^$' | tail -1)" = "sluice>" ] && return 0
    sleep 0.1
  done
  return 1
}
# expect_screen TEXT LABEL [SECONDS]: TEXT anywhere on the screen.
expect_screen() {
  if wait_for "$1" "${3:-15}"; then ok; else bad "$2: screen lacks '$1':"; screen | tail -15; fi
}
# expect_line LINE LABEL [N]: a whole screen line (an output line).
expect_line() {
  if wait_line "$1" "${3:-1}"; then ok; else bad "$2: no screen line '$1':"; screen | tail -15; fi
}
keys() { T send-keys -t repl "$@"; }
line() { T send-keys -t repl -l "$1"; T send-keys -t repl Enter; }

# The shell writes the REPL's exit status (tmux's pane_dead_status can lag).
T -f /dev/null new-session -d -s repl -x 160 -y 50 -c "$work" "'$sluice' repl; echo \$? >'$work/rc'"
T set-option -t repl remain-on-exit on
expect_screen "sluice> " "prompt"

# Values: a host value prints; a symbolic tensor prints name, dtype, shape, device.
line '1 + 2'
expect_line "3" "host value"
line 'x = constant([1.0, 2.0], name: "xs")'
line 'x'
expect_screen "<tensor 'xs:0' dtype=f32 shape=[2] device=/job:localhost/replica:0/task:0/device:CPU:0>" "symbolic tensor"
line 'run(x * 3)'
expect_line "[3. 6.]" "run"
line ':run x + 1'
expect_line "[2. 3.]" ":run"

# Line editing: Backspace, then Ctrl-A and typing at the start of the line.
keys -l '+ 7'
keys C-a
keys -l '10 '
keys BSpace BSpace BSpace
keys -l '30 '
keys Enter
expect_line "sluice> 30 + 7" "editing (Ctrl-A, Backspace)"
expect_line "37" "editing: the result"
# History: Up recalls the last line.
keys Up
keys Enter
expect_line "sluice> 30 + 7" "history (Up)" 2
expect_line "37" "history: the result" 2

# Multi-line input while braces are open: the continuation prompt.
line 'fn twice(a) {'
expect_screen "...> " "continuation prompt"
line '  return a * 2'
line '}'
line 'twice(21)'
expect_line "42" "multi-line fn"
line 'ys = [1,'
line '      2]'
line 'ys'
expect_line "[1, 2]" "multi-line list"

# Errors: the diagnostic, and the REPL goes on with the graph as before.
line 'bad = constant(5.0, name: "kept") + no_such_name'
expect_screen "no_such_name" "error diagnostic"
line 'constant(6.0, name: "kept").name'
expect_line '"kept:0"' "graph rolled back after the error"

# Tab completion: an op name, an op's argument name, a queue's methods,
# names in scope and commands.
keys -l 'q = fifo_qu'
keys Tab
expect_screen "sluice> q = fifo_queue" "complete an op name"
keys -l '(capa'
keys Tab
expect_screen "fifo_queue(capacity:" "complete an argument name"
keys -l ' 2, dtypes: [f32])'
keys Enter
wait_prompt || bad "no prompt after the queue was made"
keys -l 'q.enq'
keys Tab
expect_screen "sluice> q.enqueue" "complete a method"
keys C-c
expect_screen "^C" "Ctrl-C drops the line"
keys -l 'twi'
keys Tab
expect_screen "sluice> twice" "complete a name in scope"
keys C-c
keys -l ':pla'
keys Tab
expect_screen "sluice> :placement" "complete a command"
keys Enter
expect_screen "xs    " "placement table"

# Ctrl-C during a run: the step is cancelled, the REPL stays.
# The spawned sleeper keeps the stall check from failing the blocked run
# before Ctrl-C comes (a loaded machine may be slow to send it).
line 'keep_alive = spawn { sleep(10000) }'
line 'print("blocking"); run(q.dequeue())'
wait_for "blocking" || bad "the blocking run did not start"
sleep 0.5
keys C-c
expect_screen "cancelled" "Ctrl-C cancels the run"
line '100 + 1'
expect_line "101" "REPL goes on after Ctrl-C"

# Ctrl-D exits (once the sleeper is done, so that nothing is joined).
line 'keep_alive.join(); print("joined")'
expect_line "joined" "the sleeper ends"
keys C-d
for ((i = 0; i < 200; i++)); do
  [ -s "$work/rc" ] && break
  sleep 0.1
done
status=$(cat "$work/rc" 2>/dev/null)
[ "$status" = 0 ] && ok || bad "Ctrl-D: exit status '$status', expected 0"
grep -qF "twice(21)" "$HOME/.sluice_history" && ok || bad "history file lacks 'twice(21)'"

echo "repl: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
