// support/status.h: Status and Expected<T>, Sluice's error values.
// Error kinds are TensorFlow's status codes plus the three errors TF's
// Python raised at graph construction (value, type, runtime).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "support/source_loc.h"

namespace sluice {

enum class Code {
  kOk = 0,
  kCancelled,
  kUnknown,
  kInvalidArgument,
  kDeadlineExceeded,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kUnauthenticated,
  kResourceExhausted,
  kFailedPrecondition,
  kAborted,
  kOutOfRange,
  kUnimplemented,
  kInternal,
  kUnavailable,
  kDataLoss,
  kValueError,
  kTypeError,
  kRuntimeError,
};

/// The language's name for a code (`out_of_range`), as used by `catch`.
std::string_view codeName(Code code);
/// The inverse of codeName; nullopt for an unknown name.
std::optional<Code> codeFromName(std::string_view name);

/// An error (or success) with a message and, where known, the source
/// location and node that caused it.
class [[nodiscard]] Status {
public:
  Status() = default;
  Status(Code code, std::string message, SourceLoc loc = {},
         std::string node = {})
      : code_(code), message_(std::move(message)), loc_(std::move(loc)),
        node_(std::move(node)) {}

  static Status ok() { return Status(); }

  bool isOk() const { return code_ == Code::kOk; }
  explicit operator bool() const { return isOk(); }
  Code code() const { return code_; }
  const std::string &message() const { return message_; }
  const SourceLoc &loc() const { return loc_; }
  const std::string &node() const { return node_; }

  /// Adds a location if the status has none yet.
  Status &withLoc(const SourceLoc &loc) {
    if (!loc_.valid())
      loc_ = loc;
    return *this;
  }
  Status &withNode(const std::string &node) {
    if (node_.empty())
      node_ = node;
    return *this;
  }
  /// "file:line:col: error: kind: message" for printing.
  std::string toString() const;

  void ignore() const {}

private:
  Code code_ = Code::kOk;
  std::string message_;
  SourceLoc loc_;
  std::string node_;
};

/// A value or the Status that explains why there is none.
template <typename T> class [[nodiscard]] Expected {
public:
  Expected(T value) : v_(std::move(value)) {}
  Expected(Status status) : v_(std::move(status)) {
    assert(!std::get<Status>(v_).isOk() && "Expected built from an ok Status");
  }

  bool hasValue() const { return v_.index() == 0; }
  explicit operator bool() const { return hasValue(); }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  T &value() { return std::get<0>(v_); }
  const Status &status() const { return std::get<1>(v_); }
  Status takeStatus() { return std::move(std::get<1>(v_)); }

private:
  std::variant<T, Status> v_;
};

// Convenience constructors, one per code that Sluice raises.
Status invalidArgument(std::string msg);
Status outOfRange(std::string msg);
Status cancelled(std::string msg);
Status failedPrecondition(std::string msg);
Status notFound(std::string msg);
Status unimplemented(std::string msg);
Status internalError(std::string msg);
Status deadlineExceeded(std::string msg);
Status valueError(std::string msg);
Status typeError(std::string msg);
Status runtimeError(std::string msg);
Status aborted(std::string msg);
Status unavailable(std::string msg);
Status unauthenticated(std::string msg);

} // namespace sluice

#define SLUICE_CONCAT_IMPL(a, b) a##b
#define SLUICE_CONCAT(a, b) SLUICE_CONCAT_IMPL(a, b)

/// Returns the Status of `expr` from the enclosing function if it failed.
#define SLUICE_TRY(expr)                                                       \
  do {                                                                         \
    ::sluice::Status sluice_try_status_ = (expr);                              \
    if (!sluice_try_status_.isOk())                                            \
      return sluice_try_status_;                                               \
  } while (0)

/// `SLUICE_ASSIGN_OR_RETURN(auto x, f())` binds the value or returns the error.
#define SLUICE_ASSIGN_OR_RETURN(lhs, expr)                                     \
  SLUICE_ASSIGN_OR_RETURN_IMPL(SLUICE_CONCAT(sluice_expected_, __LINE__), lhs, \
                               expr)
#define SLUICE_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr)                           \
  auto tmp = (expr);                                                           \
  if (!tmp.hasValue())                                                         \
    return tmp.takeStatus();                                                   \
  lhs = std::move(*tmp)

#define SLUICE_UNREACHABLE(msg)                                                \
  do {                                                                         \
    assert(false && msg);                                                      \
    __builtin_unreachable();                                                   \
  } while (0)
