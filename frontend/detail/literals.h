// frontend/detail/literals.h: decoding of integer, float and string literal text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::frontend::detail {

/// Decimal or 0x-hex digits; nullopt when the value does not fit a uint64.
std::optional<uint64_t> parseIntLiteral(const std::string &text);

/// `1.0`, `1e-3`, `.5`, `1.`; nullopt when the value overflows a double.
std::optional<double> parseFloatLiteral(const std::string &text);

/// One problem found while decoding a string literal.
struct StringError {
  size_t offset; // byte offset into the literal's text (incl. r and quote)
  std::string message;
};

/// Decodes `"..."` (escapes \" \\ \n \r \t \xNN) or raw `r"..."` (kept as
/// is). A missing closing quote is tolerated (the lexer reported it).
std::string decodeStringLiteral(const std::string &text,
                                std::vector<StringError> &errors);

} // namespace sluice::frontend::detail
