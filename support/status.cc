// support/status.cc: names of error codes and printing of statuses.
#include "support/status.h"

#include <array>

namespace sluice {

namespace {
constexpr std::array<std::string_view, 20> kCodeNames = {
    "ok",
    "cancelled",
    "unknown",
    "invalid_argument",
    "deadline_exceeded",
    "not_found",
    "already_exists",
    "permission_denied",
    "unauthenticated",
    "resource_exhausted",
    "failed_precondition",
    "aborted",
    "out_of_range",
    "unimplemented",
    "internal",
    "unavailable",
    "data_loss",
    "value_error",
    "type_error",
    "runtime_error",
};
} // namespace

std::string_view codeName(Code code) {
  return kCodeNames[static_cast<size_t>(code)];
}

std::optional<Code> codeFromName(std::string_view name) {
  for (size_t i = 0; i < kCodeNames.size(); ++i)
    if (kCodeNames[i] == name)
      return static_cast<Code>(i);
  return std::nullopt;
}

std::string SourceLoc::str() const {
  if (!valid())
    return "";
  return *file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string Status::toString() const {
  if (isOk())
    return "ok";
  std::string out;
  if (loc_.valid())
    out += loc_.str() + ": ";
  out += "error: ";
  out += codeName(code_);
  out += ": ";
  if (!node_.empty())
    out += "node '" + node_ + "': ";
  out += message_;
  return out;
}

Status invalidArgument(std::string m) { return {Code::kInvalidArgument, std::move(m)}; }
Status outOfRange(std::string m) { return {Code::kOutOfRange, std::move(m)}; }
Status cancelled(std::string m) { return {Code::kCancelled, std::move(m)}; }
Status failedPrecondition(std::string m) { return {Code::kFailedPrecondition, std::move(m)}; }
Status notFound(std::string m) { return {Code::kNotFound, std::move(m)}; }
Status unimplemented(std::string m) { return {Code::kUnimplemented, std::move(m)}; }
Status internalError(std::string m) { return {Code::kInternal, std::move(m)}; }
Status deadlineExceeded(std::string m) { return {Code::kDeadlineExceeded, std::move(m)}; }
Status valueError(std::string m) { return {Code::kValueError, std::move(m)}; }
Status typeError(std::string m) { return {Code::kTypeError, std::move(m)}; }
Status runtimeError(std::string m) { return {Code::kRuntimeError, std::move(m)}; }
Status aborted(std::string m) { return {Code::kAborted, std::move(m)}; }
Status unavailable(std::string m) { return {Code::kUnavailable, std::move(m)}; }
Status unauthenticated(std::string m) { return {Code::kUnauthenticated, std::move(m)}; }

} // namespace sluice
