// api/status.cc: Error, and internal statuses turned into Errors.
#include "sluice/status.h"

#include "api/detail/program_impl.h"

namespace sluice {

static_assert(static_cast<int>(ErrorCode::kOutOfRange) == static_cast<int>(Code::kOutOfRange));
static_assert(static_cast<int>(ErrorCode::kRuntimeError) == static_cast<int>(Code::kRuntimeError));

std::string_view errorCodeName(ErrorCode code) {
  return codeName(static_cast<Code>(code));
}

std::string Error::toString() const {
  if (!text_.empty())
    return text_;
  std::string s;
  if (!file_.empty() && line_ > 0)
    s = file_ + ":" + std::to_string(line_) + ":" + std::to_string(column_) + ": ";
  s += "error: " + std::string(errorCodeName(code_)) + ": ";
  if (!node_.empty())
    s += "node '" + node_ + "': ";
  return s + message_;
}

Error api::toError(const Status &s, std::string text) {
  const SourceLoc &loc = s.loc();
  return Error(static_cast<ErrorCode>(s.code()), s.message(), loc.file ? *loc.file : "",
               loc.line, loc.col, s.node(), std::move(text));
}

} // namespace sluice
