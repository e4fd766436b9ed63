// frontend/detail/literals.cc: integer/float parsing and string escape decoding.
#include "frontend/detail/literals.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "frontend/detail/syntax_reporter.h"

namespace sluice::frontend::detail {

namespace {
int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}
} // namespace

std::optional<uint64_t> parseIntLiteral(const std::string &text) {
  uint64_t base = 10;
  size_t i = 0;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    i = 2;
  }
  if (i >= text.size())
    return std::nullopt;
  uint64_t value = 0;
  for (; i < text.size(); ++i) {
    int digit = hexValue(text[i]);
    if (digit < 0 || static_cast<uint64_t>(digit) >= base)
      return std::nullopt;
    if (value > (UINT64_MAX - static_cast<uint64_t>(digit)) / base)
      return std::nullopt;
    value = value * base + static_cast<uint64_t>(digit);
  }
  return value;
}

std::optional<double> parseFloatLiteral(const std::string &text) {
  errno = 0;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || std::isinf(value) || std::isnan(value))
    return std::nullopt;
  return value; // underflow to 0 or a denormal is accepted, as in Python
}

std::string decodeStringLiteral(const std::string &text,
                                std::vector<StringError> &errors) {
  size_t begin = 0;
  bool raw = false;
  if (!text.empty() && text[0] == 'r') {
    raw = true;
    begin = 1;
  }
  if (begin < text.size() && text[begin] == '"')
    ++begin;
  size_t end = text.size();
  if (end > begin && text[end - 1] == '"') {
    // The closing quote, unless it is an escaped quote of an unterminated
    // literal; count the backslashes before it.
    size_t slashes = 0;
    for (size_t k = end - 1; k > begin && text[k - 1] == '\\'; --k)
      ++slashes;
    if (raw || slashes % 2 == 0)
      --end;
  }
  if (raw)
    return text.substr(begin, end - begin);
  std::string out;
  out.reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    char c = text[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i + 1 >= end) {
      errors.push_back({i, "invalid escape sequence at end of string"});
      break;
    }
    char e = text[++i];
    switch (e) {
    case '"':
      out += '"';
      break;
    case '\\':
      out += '\\';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'x': {
      int hi = i + 1 < end ? hexValue(text[i + 1]) : -1;
      int lo = i + 2 < end ? hexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        errors.push_back({i - 1, "invalid escape sequence '\\x': expected two hex digits"});
        break;
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
      break;
    }
    default:
      errors.push_back({i - 1, "invalid escape sequence '\\" +
                                   printable(std::string(1, e)) + "'"});
      out += e;
      break;
    }
  }
  return out;
}

} // namespace sluice::frontend::detail
