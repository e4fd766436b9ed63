// frontend/diagnostics.cc: collects diagnostics and prints them GCC style.
#include "frontend/diagnostics.h"

namespace sluice::frontend {

namespace {
const char *severityName(Severity s) {
  switch (s) {
  case Severity::kError:
    return "error";
  case Severity::kWarning:
    return "warning";
  case Severity::kNote:
    return "note";
  }
  return "error";
}

/// The 1-based line `line` of `text` without its line terminator, or false.
bool sourceLine(const std::string &text, int line, std::string &out) {
  if (line < 1)
    return false;
  size_t begin = 0;
  for (int l = 1; l < line; ++l) {
    size_t nl = text.find('\n', begin);
    if (nl == std::string::npos)
      return false;
    begin = nl + 1;
  }
  size_t end = text.find('\n', begin);
  if (end == std::string::npos)
    end = text.size();
  out = text.substr(begin, end - begin);
  if (!out.empty() && out.back() == '\r')
    out.pop_back();
  return true;
}

/// Padding that puts a caret under byte column `col` (1-based) of `line`:
/// tabs are kept, a UTF-8 sequence counts as one column.
std::string caretPadding(const std::string &line, int col) {
  std::string pad;
  size_t n = col > 1 ? static_cast<size_t>(col - 1) : 0;
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = i < line.size() ? static_cast<unsigned char>(line[i]) : ' ';
    if (c == '\t')
      pad += '\t';
    else if ((c & 0xC0) != 0x80 || i >= line.size())
      pad += ' ';
  }
  return pad;
}
} // namespace

void DiagnosticEngine::addSource(std::shared_ptr<const std::string> path,
                                 std::shared_ptr<const std::string> text) {
  for (auto &[p, t] : sources_) {
    if (p == path || (p && path && *p == *path)) {
      t = std::move(text);
      return;
    }
  }
  sources_.emplace_back(std::move(path), std::move(text));
}

void DiagnosticEngine::error(const SourceLoc &loc, std::string message) {
  diags_.push_back({Severity::kError, loc, std::move(message)});
  ++errorCount_;
}

void DiagnosticEngine::warning(const SourceLoc &loc, std::string message) {
  diags_.push_back({Severity::kWarning, loc, std::move(message)});
}

void DiagnosticEngine::clear() {
  diags_.clear();
  errorCount_ = 0;
}

std::string DiagnosticEngine::format(const Diagnostic &d) const {
  std::string out;
  if (d.loc.valid())
    out += d.loc.str() + ": ";
  out += severityName(d.severity);
  out += ": ";
  out += d.message;
  if (!d.loc.valid())
    return out;
  const std::string *text = nullptr;
  for (const auto &[p, t] : sources_)
    if (t && (p == d.loc.file || (p && *p == *d.loc.file)))
      text = t.get();
  std::string line;
  if (text && sourceLine(*text, d.loc.line, line)) {
    out += '\n';
    out += line;
    out += '\n';
    out += caretPadding(line, d.loc.col);
    out += '^';
  }
  return out;
}

void DiagnosticEngine::print(std::ostream &os) const {
  for (const Diagnostic &d : diags_)
    os << format(d) << '\n';
}

} // namespace sluice::frontend
