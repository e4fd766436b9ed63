// driver/junit_report.cc
#include "driver/junit_report.h"

#include "backend/io/checkpoint.h"

#include <cstdio>
#include <fstream>
#include <sstream>

namespace sluice::driver {

namespace {

// XML 1.0 text: the five escapes, and control bytes (not allowed even as
// references) as '?'; a diagnostic may quote any byte of a source line.
std::string xmlEscape(const std::string &s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default:
      if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
        out += '?';
      else
        out += static_cast<char>(c);
    }
  }
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

} // namespace

Status writeJUnit(const std::string &path, const std::vector<JUnitSuite> &suites) {
  std::ostringstream x;
  int tests = 0, failures = 0, errors = 0;
  double total = 0;
  for (const JUnitSuite &s : suites) {
    tests += static_cast<int>(s.cases.size()) + (s.fileFailed ? 1 : 0);
    errors += s.fileFailed ? 1 : 0;
    for (const JUnitCase &c : s.cases) {
      failures += c.passed ? 0 : 1;
      total += c.seconds;
    }
  }
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x << "<testsuites name=\"sluice test\" tests=\"" << tests << "\" failures=\"" << failures
    << "\" errors=\"" << errors << "\" time=\"" << seconds(total) << "\">\n";
  for (const JUnitSuite &s : suites) {
    int f = 0;
    double t = 0;
    for (const JUnitCase &c : s.cases) {
      f += c.passed ? 0 : 1;
      t += c.seconds;
    }
    x << "  <testsuite name=\"" << xmlEscape(s.name) << "\" tests=\""
      << s.cases.size() + (s.fileFailed ? 1 : 0) << "\" failures=\"" << f << "\" errors=\""
      << (s.fileFailed ? 1 : 0) << "\" time=\"" << seconds(t) << "\">\n";
    if (s.fileFailed)
      x << "    <testcase name=\"(the file itself)\" classname=\"" << xmlEscape(s.name)
        << "\" time=\"0.000\">\n      <error message=\"the file failed to evaluate\">"
        << xmlEscape(s.fileError) << "</error>\n    </testcase>\n";
    for (const JUnitCase &c : s.cases) {
      x << "    <testcase name=\"" << xmlEscape(c.name) << "\" classname=\"" << xmlEscape(s.name)
        << "\" time=\"" << seconds(c.seconds) << "\"";
      if (c.passed) {
        x << "/>\n";
        continue;
      }
      x << ">\n      <failure message=\"" << xmlEscape(c.message) << "\">" << xmlEscape(c.detail)
        << "</failure>\n    </testcase>\n";
    }
    x << "  </testsuite>\n";
  }
  x << "</testsuites>\n";
  if (Status w = backend::io::writeFileAtomically(path, x.str()); !w)
    return unavailable("cannot write " + path + " (" + w.message() + ")");
  return Status::ok();
}

} // namespace sluice::driver
