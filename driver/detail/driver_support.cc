// driver/detail/driver_support.cc
#include "driver/detail/driver_support.h"

#include <cstdlib>
#include <ostream>
#include <string>

#include <unistd.h>

namespace sluice::driver::detail {

using namespace sluice::frontend;

void reportStatus(const Status &s, DiagnosticEngine &diags, std::ostream &err) {
  Diagnostic d;
  d.loc = s.loc();
  std::string msg = std::string(codeName(s.code())) + ": ";
  if (!s.node().empty())
    msg += "node '" + s.node() + "': ";
  d.message = msg + s.message();
  err << diags.format(d) << '\n';
}

/// `--set` values: numbers, booleans and none keep their type; anything
/// else is a string.
Value parseSetValue(const std::string &text) {
  if (text == "true" || text == "false")
    return Value::boolean(text == "true");
  if (text == "none")
    return Value::none();
  try {
    size_t used = 0;
    int64_t i = std::stoll(text, &used);
    if (used == text.size())
      return Value::integer(i);
  } catch (...) {
  }
  try {
    size_t used = 0;
    double d = std::stod(text, &used);
    if (used == text.size())
      return Value::real(d);
  } catch (...) {
  }
  return Value::string(text);
}

bool progressLineWanted() {
  const char *env = std::getenv("SLUICE_PROGRESS");
  return ::isatty(STDERR_FILENO) && !(env && std::string(env) == "0");
}

CwdGuard::CwdGuard(const std::filesystem::path &dir) : saved_(std::filesystem::current_path()) {
  if (!dir.empty())
    std::filesystem::current_path(dir);
}

CwdGuard::~CwdGuard() {
  std::error_code ec;
  std::filesystem::current_path(saved_, ec);
}

} // namespace sluice::driver::detail
