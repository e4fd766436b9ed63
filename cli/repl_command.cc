// cli/repl_command.cc: `sluice repl [FILE]`: libedit (line editing, history in
// ~/.sluice_history, Tab completion) and Ctrl-C around driver::Repl; with
// standard input not a terminal, statements are read without prompts.
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include <editline/readline.h>
#include <poll.h>
#include <unistd.h>

#include "cli/commands.h"
#include "driver/repl.h"
#include "support/large_stack.h"
#include "support/stop_signals.h"

namespace sluice::cli {

namespace {

struct ReplFlags {
  std::string file;
  bool oneDevice = false;
  std::string backend;
};

driver::Repl *gRepl = nullptr;
int gWake[2] = {-1, -1};           // Ctrl-C at the prompt writes here
std::atomic<bool> gReading{false}; // inside readline()
std::atomic<bool> gInterrupted{false};
std::vector<std::string> gMatches;
size_t gNextMatch = 0;

// libedit reads keys through this: it waits on the terminal and on the
// wake pipe, and ends the line (EOF, flagged) when Ctrl-C arrives.
int readKey(FILE *in) {
  for (;;) {
    pollfd fds[2] = {{fileno(in), POLLIN, 0}, {gWake[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      return EOF;
    }
    if (fds[1].revents & POLLIN) {
      char buf[16];
      (void)!read(gWake[0], buf, sizeof buf);
      gInterrupted = true;
      return EOF;
    }
    unsigned char c;
    ssize_t n = read(fileno(in), &c, 1);
    if (n == 1)
      return c;
    if (n < 0 && errno == EINTR)
      continue;
    return EOF;
  }
}

char *nextMatch(const char *, int state) {
  if (state == 0)
    gNextMatch = 0;
  if (gNextMatch < gMatches.size())
    return strdup(gMatches[gNextMatch++].c_str());
  return nullptr;
}

char **completeWord(const char *text, int, int) {
  rl_attempted_completion_over = 1;
  std::string line(rl_line_buffer, static_cast<size_t>(rl_end));
  driver::ReplCompletion c = gRepl->complete(line, static_cast<size_t>(rl_point));
  if (c.files) {
    rl_attempted_completion_over = 0; // libedit's file names
    return nullptr;
  }
  gMatches = std::move(c.candidates);
  if (gMatches.empty())
    return nullptr;
  return rl_completion_matches(text, nextMatch);
}

std::string historyPath() {
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : ".") + "/.sluice_history";
}

bool blank(const std::string &s) { return s.find_first_not_of(" \t\r") == std::string::npos; }

void interactive(driver::Repl &repl) {
  gRepl = &repl;
  if (pipe(gWake) != 0) {
    std::cerr << "sluice: error: cannot create a pipe: " << std::strerror(errno) << "\n";
    return;
  }
  int handler = addInterruptHandler([&repl] {
    if (gReading)
      (void)!write(gWake[1], "x", 1);
    else
      repl.interrupt();
  });
  rl_readline_name = "sluice";
  rl_getc_function = readKey;
  rl_initialize();
  rl_getc_function = readKey;
  rl_attempted_completion_function = completeWord;
  static char breaks[] = " \t\n\"\\'`@$><=;|&{(}[],.:+-*/%!#~^?";
  rl_completer_word_break_characters = breaks;
  rl_basic_word_break_characters = breaks; // what libedit's completion reads
  rl_completion_append_character = '\0';
  std::string hist = historyPath();
  using_history();
  read_history(hist.c_str());
  std::cout << "sluice repl: :help lists the commands, Ctrl-D exits\n" << std::flush;
  while (!repl.quitRequested()) {
    std::cout.flush();
    std::cerr.flush();
    repl.setIdle(true);
    gReading = true;
    char *raw = readline(repl.pending() ? "   ...> " : "sluice> ");
    gReading = false;
    repl.setIdle(false);
    if (gInterrupted.exchange(false)) {
      std::free(raw);
      repl.discardPending();
      std::cout << "^C\n";
      continue;
    }
    if (!raw) {
      std::cout << "\n";
      if (repl.pending())
        repl.flush();
      break;
    }
    std::string line = raw;
    std::free(raw);
    if (!blank(line)) {
      add_history(line.c_str());
      write_history(hist.c_str());
    }
    repl.addLine(line);
  }
  removeInterruptHandler(handler);
  close(gWake[0]);
  close(gWake[1]);
  gRepl = nullptr;
}

void scripted(driver::Repl &repl) {
  std::string line;
  while (!repl.quitRequested() && std::getline(std::cin, line))
    repl.addLine(line);
  if (repl.pending() && !repl.quitRequested())
    repl.flush();
}

int runRepl(const ReplFlags &flags) {
  int code = 0;
  runWithLargeStack([&] {
    driver::ReplOptions opts;
    opts.oneDevice = flags.oneDevice;
    opts.backend = flags.backend;
    driver::Repl repl(opts);
    if (!flags.file.empty())
      repl.load(flags.file);
    // A script's status says whether everything worked; a person at the
    // prompt has seen each error.
    if (isatty(STDIN_FILENO)) {
      interactive(repl);
    } else {
      scripted(repl);
      code = repl.failures() > 0 ? 1 : 0;
    }
  });
  return code;
}

} // namespace

void addReplCommand(CLI::App &app, int &exitCode) {
  auto flags = std::make_shared<ReplFlags>();
  CLI::App *cmd = app.add_subcommand(
      "repl", "Interactive: statements into one graph and one session (:help inside)");
  cmd->footer("With standard input not a terminal, statements are read from it without\n"
              "prompts, and the exit status is 1 if any statement (or FILE) failed.\n"
              "History is kept in ~/.sluice_history.");
  cmd->add_option("file", flags->file, "A .sluice file to evaluate first");
  cmd->add_flag("--one-device", flags->oneDevice,
                "Run every node on the first CPU, ignoring device requests");
  addBackendFlag(*cmd, flags->backend);
  cmd->callback([flags, &exitCode] { exitCode = runRepl(*flags); });
}

} // namespace sluice::cli
