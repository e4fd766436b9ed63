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
