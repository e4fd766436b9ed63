// driver/detail/isolated_tests.h: `sluice test -j N` and `--timeout`.
// Each file's tests are listed by a child process, then each test runs in
// a child of its own (`sluice test FILE --only-test NAME`), at most N at
// a time. A test that hangs is killed at its timeout and one that crashes
// fails alone; the rest go on. Output is buffered per child and printed
// in file and test order, so -j 8 reads like -j 1.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "driver/driver.h"
#include "driver/junit_report.h"
#include "support/status.h"

namespace sluice::driver::detail {

/// Runs the tests of `files` (as the user named them). An error is only
/// for a runner that cannot start children; test failures are counted.
Status runIsolatedTests(const TestOptions &opts, const std::vector<std::string> &files,
                        std::ostream &out, std::ostream &err, std::vector<JUnitSuite> &suites,
                        int &passed, int &failed);

} // namespace sluice::driver::detail
