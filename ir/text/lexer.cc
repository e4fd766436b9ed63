// ir/text/lexer.cc: splits .sir text into tokens with line/column positions.
#include "ir/text/lexer.h"

#include <cstdio>

namespace sluice::ir::detail {

bool isNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '/' || c == '-';
}

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }
int hexValue(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

std::string charText(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u < 0x20 || u >= 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", u);
    return buf;
  }
  return std::string(1, c);
}

class Lexer {
public:
  Lexer(std::string_view src, std::shared_ptr<const std::string> file)
      : src_(src), file_(std::move(file)) {}

  Expected<std::vector<Token>> run() {
    std::vector<Token> out;
    for (;;) {
      skipSpaceAndComments();
      Token t;
      t.line = line_;
      t.col = col_;
      if (pos_ >= src_.size()) {
        out.push_back(t);
        return out;
      }
      char c = src_[pos_];
      if (c == '\n') {
        advance();
        t.kind = Tok::kNewline;
      } else if (c == '"') {
        t.kind = Tok::kString;
        SLUICE_ASSIGN_OR_RETURN(t.text, lexString());
      } else if (c == '%') {
        advance();
        t.kind = Tok::kValueRef;
        if (pos_ < src_.size() && src_[pos_] == '"') {
          SLUICE_ASSIGN_OR_RETURN(t.text, lexString());
        } else {
          while (pos_ < src_.size() && isNameChar(src_[pos_]))
            t.text += advance();
          if (t.text.empty())
            return error(line_, col_, "expected a node name after '%'");
        }
      } else if (isDigit(c) || c == '-') {
        t.kind = Tok::kNumber;
        t.text = lexNumber();
        if (t.text == "-")
          return error(t.line, t.col, "expected a number after '-'");
      } else if (isIdentStart(c)) {
        t.kind = Tok::kIdent;
        while (pos_ < src_.size() && isIdentChar(src_[pos_]))
          t.text += advance();
      } else if (std::string_view("=(),:^{}[]<>?@").find(c) !=
                 std::string_view::npos) {
        t.kind = Tok::kPunct;
        t.text = std::string(1, advance());
      } else {
        return error(line_, col_, "unexpected character '" + charText(c) + "'");
      }
      out.push_back(std::move(t));
    }
  }

private:
  char advance() {
    char c = src_[pos_++];
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    return c;
  }

  void skipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\r') {
        advance();
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n')
          advance();
      } else {
        return;
      }
    }
  }

  // A sign, then letters, digits, '.', and '+'/'-' right after an exponent
  // 'e': covers 12, -0.5, 1e+20, -inf and nan; conversion checks the rest.
  std::string lexNumber() {
    std::string s;
    if (src_[pos_] == '-')
      s += advance();
    bool numeric = pos_ < src_.size() && isDigit(src_[pos_]);
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      bool exponentSign = numeric && (c == '+' || c == '-') && !s.empty() &&
                          (s.back() == 'e' || s.back() == 'E');
      if (!isIdentChar(c) && c != '.' && !exponentSign)
        break;
      s += advance();
    }
    return s;
  }

  Expected<std::string> lexString() {
    int line = line_, col = col_;
    advance(); // opening quote
    std::string s;
    for (;;) {
      if (pos_ >= src_.size() || src_[pos_] == '\n')
        return error(line, col, "unterminated string");
      char c = advance();
      if (c == '"')
        return s;
      if (c != '\\') {
        s += c;
        continue;
      }
      int escLine = line_, escCol = col_ - 1;
      if (pos_ >= src_.size())
        return error(line, col, "unterminated string");
      char e = advance();
      switch (e) {
      case '"':
        s += '"';
        break;
      case '\\':
        s += '\\';
        break;
      case 'n':
        s += '\n';
        break;
      case 't':
        s += '\t';
        break;
      case 'r':
        s += '\r';
        break;
      case 'x': {
        int hi = pos_ < src_.size() ? hexValue(src_[pos_]) : -1;
        int lo = pos_ + 1 < src_.size() ? hexValue(src_[pos_ + 1]) : -1;
        if (hi < 0 || lo < 0)
          return error(escLine, escCol, "\\x needs two hex digits");
        advance();
        advance();
        s += static_cast<char>(hi * 16 + lo);
        break;
      }
      default:
        return error(escLine, escCol,
                     "unknown escape '\\" + charText(e) + "' in string");
      }
    }
  }

  Status error(int line, int col, std::string msg) const {
    return Status(Code::kInvalidArgument, std::move(msg),
                  SourceLoc{file_, line, col});
  }

  std::string_view src_;
  std::shared_ptr<const std::string> file_;
  size_t pos_ = 0;
  int line_ = 1;
  int col_ = 1;
};

} // namespace

Expected<std::vector<Token>>
lexSir(std::string_view src, const std::shared_ptr<const std::string> &file) {
  return Lexer(src, file).run();
}

std::string describeToken(const Token &t) {
  switch (t.kind) {
  case Tok::kEof:
    return "end of file";
  case Tok::kNewline:
    return "end of line";
  case Tok::kString:
    return "a string";
  case Tok::kValueRef:
    return "'%" + t.text + "'";
  default:
    return "'" + t.text + "'";
  }
}

Status Cursor::errorAt(const Token &t, std::string msg) const {
  return Status(Code::kInvalidArgument, std::move(msg), locOf(t));
}

Status Cursor::expected(std::string_view what) const {
  return errorAt(peek(), "expected " + std::string(what) + ", found " +
                             describeToken(peek()));
}

Status Cursor::expect(char c) {
  if (accept(c))
    return Status::ok();
  return expected("'" + std::string(1, c) + "'");
}

Expected<Token> Cursor::expectKind(Tok kind, std::string_view what) {
  if (peek().kind != kind)
    return expected(what);
  return next();
}

} // namespace sluice::ir::detail
