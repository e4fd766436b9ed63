// driver/detail/driver_support.h: small pieces the CLI's commands share.
#pragma once

#include <filesystem>
#include <iosfwd>

#include "frontend/diagnostics.h"
#include "frontend/value.h"
#include "support/status.h"

namespace sluice::driver::detail {

/// Prints a run-time or evaluation error GCC-style, quoting the line.
void reportStatus(const Status &s, frontend::DiagnosticEngine &diags, std::ostream &err);

/// `--set NAME=VALUE` values (and the C++ API's globals): numbers,
/// booleans and none keep their type; anything else is a string.
frontend::Value parseSetValue(const std::string &text);

/// Whether a supervised session may draw its progress line: standard
/// error is a terminal and SLUICE_PROGRESS is not "0".
bool progressLineWanted();

/// Runs the scope in `dir` (relative paths in a file name its fixtures),
/// restoring the working directory after.
class CwdGuard {
public:
  explicit CwdGuard(const std::filesystem::path &dir);
  ~CwdGuard();
  CwdGuard(const CwdGuard &) = delete;
  CwdGuard &operator=(const CwdGuard &) = delete;

private:
  std::filesystem::path saved_;
};

} // namespace sluice::driver::detail
