// driver/test_runner.cc: `sluice test`. Without -j or --timeout every
// test runs in this process, one after another; with them, through the
// isolated runner (frontend/detail/isolated_tests.cc).
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "driver/detail/driver_support.h"
#include "driver/detail/isolated_tests.h"
#include "driver/driver.h"
#include "frontend/evaluator.h"
#include "driver/junit_report.h"
#include "driver/task_flags.h"
#include "support/large_stack.h"

namespace sluice::driver {

using namespace sluice::frontend;

namespace fs = std::filesystem;

namespace {

std::vector<fs::path> collectTestFiles(const std::vector<std::string> &paths,
                                       std::ostream &err, bool &ok) {
  std::vector<fs::path> files;
  for (const auto &p : paths) {
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
      for (const auto &e : fs::recursive_directory_iterator(p, ec))
        if (e.is_regular_file() && e.path().extension() == ".sluice")
          files.push_back(e.path());
    } else if (fs::is_regular_file(p, ec)) {
      files.emplace_back(p);
    } else {
      err << "sluice: error: no such file or directory: '" << p << "'\n";
      ok = false;
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

bool selected(const TestOptions &opts, const std::string &label, const std::string &name) {
  if (!opts.onlyTest.empty() && name != opts.onlyTest)
    return false;
  return opts.filter.empty() || label.find(opts.filter) != std::string::npos;
}

/// Evaluates one file and runs (or lists) its selected tests here.
void runFileInProcess(const TestOptions &opts, const fs::path &file, std::ostream &out,
                      JUnitSuite &suite, int &passed, int &failed) {
  fs::path abs = fs::absolute(file);
  runWithLargeStack([&] {
    DiagnosticEngine diags;
    EvalOptions eo;
    eo.mode = EvalMode::kTest;
    eo.json = opts.json;
    eo.out = &out;
    eo.updateGolden = opts.updateGolden;
    eo.backend = opts.backend;
    eo.clusterHost = defaultClusterHost(nullptr);
    // Each test file runs in its own folder, so relative paths in it
    // name its fixtures.
    detail::CwdGuard cwd(abs.parent_path());
    Evaluator ev(eo, diags);
    Status s = ev.runFile(abs.string());
    const std::string shown = file.string();
    if (!s.isOk() || diags.hasErrors()) {
      std::ostringstream why;
      diags.print(why);
      if (!s.isOk() && !diags.hasErrors())
        detail::reportStatus(s, diags, why);
      out << "FAIL " << shown << " (the file itself failed)\n" << why.str();
      suite.fileFailed = true;
      suite.fileError = why.str();
      ++failed;
      return;
    }
    for (const TestCase &t : ev.tests()) {
      std::string label = shown + ": " + t.name;
      if (!selected(opts, label, t.name))
        continue;
      if (opts.list) {
        out << label << "\n";
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      TestOutcome r = ev.runTest(t);
      JUnitCase c;
      c.name = t.name;
      c.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      c.passed = r.passed;
      if (r.passed) {
        out << "PASS " << label << "\n";
        ++passed;
      } else {
        std::ostringstream why;
        detail::reportStatus(r.failure, diags, why);
        out << "FAIL " << label << "\n" << why.str();
        c.detail = why.str();
        c.message = c.detail.substr(0, c.detail.find('\n'));
        ++failed;
      }
      suite.cases.push_back(std::move(c));
      out.flush();
    }
  });
}

} // namespace

int runTests(const TestOptions &opts, std::ostream &out, std::ostream &err) {
  bool ok = true;
  std::vector<fs::path> files = collectTestFiles(opts.paths, err, ok);
  int passed = 0, failed = 0;
  std::vector<JUnitSuite> suites;
  const bool isolated = !opts.list && (opts.jobs > 1 || opts.timeoutSeconds > 0);
  if (isolated) {
    std::vector<std::string> shown;
    for (const fs::path &f : files)
      shown.push_back(f.string());
    Status s = detail::runIsolatedTests(opts, shown, out, err, suites, passed, failed);
    if (!s.isOk()) {
      err << "sluice: error: " << s.message() << "\n";
      return 1;
    }
  } else {
    for (const fs::path &file : files) {
      JUnitSuite suite;
      suite.name = file.string();
      runFileInProcess(opts, file, out, suite, passed, failed);
      suites.push_back(std::move(suite));
    }
  }
  if (opts.list)
    return ok && failed == 0 ? 0 : 1;
  out << passed << " passed, " << failed << " failed\n";
  if (!opts.junit.empty()) {
    Status w = writeJUnit(opts.junit, suites);
    if (!w.isOk()) {
      err << "sluice: error: --junit: " << w.message() << "\n";
      return 1;
    }
  }
  return (failed == 0 && ok) ? 0 : 1;
}

} // namespace sluice::driver
