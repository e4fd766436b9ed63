// driver/junit_report.h: `sluice test --junit FILE`: the results in the
// JUnit XML that CI systems read (one <testsuite> per .sluice file, one
// <testcase> per test block, <failure> with the diagnostic as its text).
#pragma once

#include <string>
#include <vector>

#include "support/status.h"

namespace sluice::driver {

struct JUnitCase {
  std::string name;
  double seconds = 0;
  bool passed = true;
  std::string message; // the failure's first line
  std::string detail;  // the whole diagnostic
};

struct JUnitSuite {
  std::string name; // the file as given
  std::vector<JUnitCase> cases;
  bool fileFailed = false; // the file itself did not evaluate
  std::string fileError;
};

/// Writes the report atomically (a temporary file, then rename), so a
/// reader never sees half of it.
Status writeJUnit(const std::string &path, const std::vector<JUnitSuite> &suites);

} // namespace sluice::driver
