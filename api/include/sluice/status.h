// sluice/status.h: the public API's errors: Error (TF's code, the message
// and where it happened) and Result<T>, a value or an Error.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace sluice {

/// TF's status codes, plus the three errors TF's Python raised while a
/// graph was built (value, type, runtime).
enum class ErrorCode {
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

/// The language's name of a code, as `catch` spells it: "out_of_range".
std::string_view errorCodeName(ErrorCode code);

/// An error with its code, message and, where known, the source location
/// (file:line:col) and the graph node that caused it.
class Error {
public:
  Error(ErrorCode code, std::string message, std::string file = {}, int line = 0,
        int column = 0, std::string node = {}, std::string text = {})
      : code_(code), message_(std::move(message)), file_(std::move(file)), line_(line),
        column_(column), node_(std::move(node)), text_(std::move(text)) {}

  ErrorCode code() const { return code_; }
  /// The bare message: "Field 1 in record 1 is not a valid int32: x".
  const std::string &message() const { return message_; }
  /// Where it happened; empty file and line 0 when unknown.
  const std::string &file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  /// The node's name for run-time errors, else empty.
  const std::string &node() const { return node_; }
  /// The error as `sluice run` prints it: `file:line:col: error: kind:
  /// message`, then the source line and a caret when the file is known
  /// (one such block per error for several syntax errors).
  std::string toString() const;

private:
  ErrorCode code_;
  std::string message_;
  std::string file_;
  int line_ = 0;
  int column_ = 0;
  std::string node_;
  std::string text_; // the formatted diagnostics, when they were made
};

inline std::ostream &operator<<(std::ostream &os, const Error &e) {
  return os << e.toString();
}

namespace detail {
[[noreturn]] inline void failedResult(const Error &e) {
  std::fprintf(stderr, "sluice: value of a failed Result:\n%s\n", e.toString().c_str());
  std::abort();
}
} // namespace detail

/// A value, or the Error that says why there is none. Reading the value
/// of a failed Result is a programmer error: it prints the error and
/// aborts. `ASSERT_TRUE(r.ok()) << r.error();` reports it in a test.
template <typename T> class Result {
public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  /// The error; only for a failed Result.
  const Error &error() const {
    if (ok())
      detail::failedResult(Error(ErrorCode::kInternal, "error() of an ok Result"));
    return std::get<1>(v_);
  }

  T &value() & { return check(), std::get<0>(v_); }
  const T &value() const & { return check(), std::get<0>(v_); }
  T &&value() && { return check(), std::get<0>(std::move(v_)); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }

private:
  void check() const {
    if (!ok())
      detail::failedResult(std::get<1>(v_));
  }
  std::variant<T, Error> v_;
};

/// Success or an Error, for calls with no value.
template <> class Result<void> {
public:
  Result() = default;
  Result(Error error) : e_(std::move(error)) {}

  bool ok() const { return !e_; }
  explicit operator bool() const { return ok(); }
  const Error &error() const {
    if (ok())
      detail::failedResult(Error(ErrorCode::kInternal, "error() of an ok Result"));
    return *e_;
  }

private:
  std::optional<Error> e_;
};

/// Prints "ok" or the error (gtest's failure messages use it).
template <typename T> std::ostream &operator<<(std::ostream &os, const Result<T> &r) {
  return r.ok() ? os << "ok" : os << r.error();
}

} // namespace sluice
