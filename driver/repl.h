// driver/repl.h: the engine of `sluice repl`: one graph, one interactive
// session, statements evaluated one at a time with the graph restored after
// a failing one, `:commands`, and completion candidates. No terminal here:
// cli/repl.cc puts libedit and signals around it.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace sluice::driver {

struct ReplOptions {
  std::ostream *out = nullptr; // values and command output (stdout if null)
  std::ostream *err = nullptr; // diagnostics (stderr if null)
  bool oneDevice = false;      // the session ignores device requests
  std::string backend;         // what runs fused clusters ("": the session default, jit)
};

/// Whether `text` ends inside an open `(`, `[` or `{` (strings and `#`
/// comments skipped): the REPL then reads another line.
bool needsMoreInput(const std::string &text);

/// What completing the word before the cursor may give.
struct ReplCompletion {
  size_t start = 0;                    // where the word being completed starts
  std::vector<std::string> candidates; // sorted, unique, each replacing the word
  bool files = false;                  // a file name is expected (:load, :dot)
};

class Repl {
public:
  explicit Repl(ReplOptions opts);
  ~Repl();
  Repl(const Repl &) = delete;
  Repl &operator=(const Repl &) = delete;

  /// Adds one line of input. Once brackets and braces balance, the input
  /// gathered so far is evaluated (a `:command` or statements) and true is
  /// returned; false while more lines are needed.
  bool addLine(const std::string &line);
  /// Whether lines are gathered for an unfinished statement.
  bool pending() const;
  /// Evaluates what is gathered, balanced or not (end of input).
  void flush();
  /// Drops the unfinished input (Ctrl-C at the prompt).
  void discardPending();

  /// Evaluates a file into the session (`:load`, `sluice repl FILE`).
  bool load(const std::string &path);

  /// Candidates for the word ending at `cursor` in `line`: names in scope,
  /// keywords, op names, `obj.` attributes and methods, an op's argument
  /// names inside its call, command names after `:`.
  ReplCompletion complete(const std::string &line, size_t cursor);

  /// Cancels the steps of runs in flight; safe from any thread (Ctrl-C).
  void interrupt();

  /// While idle (waiting for input) the interpreter lock is released, so
  /// spawned threads run; complete() takes it itself.
  void setIdle(bool idle);

  bool quitRequested() const;
  /// How many inputs failed (a script's exit status).
  int failures() const;

  struct State;

private:
  std::unique_ptr<State> s_;
};

} // namespace sluice::driver
