// ir/text/attr_parser.cc: the inverse of formatAttr, one reader per
// AttrType. Values are flat or one level nested, so nothing here recurses
// on user input.
#include "ir/text/attr_parser.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace sluice::ir::detail {

namespace {

Expected<int64_t> parseInt(Cursor &cur) {
  if (cur.peek().kind != Tok::kNumber)
    return cur.expected("an integer");
  const Token &t = cur.next();
  int64_t v = 0;
  const char *end = t.text.data() + t.text.size();
  auto [ptr, ec] = std::from_chars(t.text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    return cur.errorAt(t, "integer '" + t.text + "' is out of range");
  if (ec != std::errc() || ptr != end)
    return cur.errorAt(t, "expected an integer, found '" + t.text + "'");
  return v;
}

// Floats are numbers or the words inf/nan (a leading '-' lexes as part of
// the number token). T is float for f32/f16 elements so that the digits
// printed for a float read back as that float, not a double rounded twice.
template <typename T> Expected<T> parseFloating(Cursor &cur) {
  const Token &t = cur.peek();
  if (t.kind == Tok::kIdent && (t.text == "inf" || t.text == "nan")) {
    cur.next();
    return t.text == "inf" ? std::numeric_limits<T>::infinity()
                           : std::numeric_limits<T>::quiet_NaN();
  }
  if (t.kind != Tok::kNumber)
    return cur.expected("a number");
  cur.next();
  T v = 0;
  const char *end = t.text.data() + t.text.size();
  auto [ptr, ec] = std::from_chars(t.text.data(), end, v);
  if (ec == std::errc::result_out_of_range)
    return cur.errorAt(t, "number '" + t.text + "' is out of range");
  if (ec != std::errc() || ptr != end)
    return cur.errorAt(t, "expected a number, found '" + t.text + "'");
  return v;
}

Expected<bool> parseBool(Cursor &cur) {
  if (cur.isIdent("true") || cur.isIdent("false"))
    return cur.next().text == "true";
  return cur.expected("true or false");
}

Expected<std::string> parseString(Cursor &cur) {
  SLUICE_ASSIGN_OR_RETURN(Token t, cur.expectKind(Tok::kString, "a string"));
  return std::move(t.text);
}

Expected<Shape> parseShapeAttr(Cursor &cur) {
  if (!cur.isIdent("shape"))
    return cur.expected("a shape such as shape[2, ?] or shape?");
  cur.next();
  return parseShapeBody(cur);
}

// `[a, b, c]` of items read by `item`, into `out`.
template <typename T, typename F>
Expected<std::vector<T>> parseList(Cursor &cur, F &&item) {
  SLUICE_TRY(cur.expect('['));
  std::vector<T> out;
  if (cur.accept(']'))
    return out;
  for (;;) {
    SLUICE_ASSIGN_OR_RETURN(T v, item(cur));
    out.push_back(std::move(v));
    if (cur.accept(']'))
      return out;
    if (!cur.accept(','))
      return cur.expected("',' or ']'");
  }
}

Status checkIntRange(Cursor &cur, const Token &t, int64_t v, DType dtype) {
  int64_t lo = 0, hi = 0;
  switch (dtype) {
  case DType::kI8:
    lo = INT8_MIN;
    hi = INT8_MAX;
    break;
  case DType::kI16:
    lo = INT16_MIN;
    hi = INT16_MAX;
    break;
  case DType::kI32:
    lo = INT32_MIN;
    hi = INT32_MAX;
    break;
  case DType::kU8:
    lo = 0;
    hi = UINT8_MAX;
    break;
  default:
    return Status::ok();
  }
  if (v < lo || v > hi)
    return cur.errorAt(t, "value " + std::to_string(v) +
                              " is out of range for " +
                              std::string(dtypeName(dtype)));
  return Status::ok();
}

// Stores element i of a tensor of `dtype` read from the cursor.
Status parseElement(Cursor &cur, Tensor &t, int64_t i) {
  DType dtype = t.dtype();
  if (dtype == DType::kVariant)
    return cur.expected("a tensor of a dtype other than variant (variant values "
                        "exist only at run time)");
  if (dtype == DType::kString || dtype == DType::kResource) {
    SLUICE_ASSIGN_OR_RETURN(t.strings()[i], parseString(cur));
    return Status::ok();
  }
  if (dtype == DType::kBool) {
    SLUICE_ASSIGN_OR_RETURN(t.data<bool>()[i], parseBool(cur));
    return Status::ok();
  }
  if (dtype == DType::kF64) {
    SLUICE_ASSIGN_OR_RETURN(t.data<double>()[i], parseFloating<double>(cur));
    return Status::ok();
  }
  if (dtype == DType::kF32 || dtype == DType::kF16) {
    SLUICE_ASSIGN_OR_RETURN(float f, parseFloating<float>(cur));
    if (dtype == DType::kF32)
      t.data<float>()[i] = f;
    else
      t.data<Half>()[i] = Half(f);
    return Status::ok();
  }
  Token tok = cur.peek();
  SLUICE_ASSIGN_OR_RETURN(int64_t v, parseInt(cur));
  SLUICE_TRY(checkIntRange(cur, tok, v, dtype));
  dispatchPod(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, Half>)
      t.data<T>()[i] = static_cast<T>(v);
  });
  return Status::ok();
}

// tensor<f32 [2, 2] {1.0, 2.0, 3.0, 4.0}>: the element count is checked
// against the dims before anything is allocated.
Expected<Tensor> parseTensor(Cursor &cur) {
  if (!cur.isIdent("tensor"))
    return cur.expected("a tensor such as tensor<f32 [2] {1.0, 2.0}>");
  cur.next();
  SLUICE_TRY(cur.expect('<'));
  SLUICE_ASSIGN_OR_RETURN(DType dtype, parseDType(cur));
  Token dimsTok = cur.peek();
  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          parseList<int64_t>(cur, parseInt));
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0)
      return cur.errorAt(dimsTok, "tensor dimensions must not be negative");
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / d)
      return cur.errorAt(dimsTok, "tensor has too many elements");
    count *= d;
  }
  // Count the items before allocating, so that huge dims with few items
  // fail cleanly instead of exhausting memory.
  Token open = cur.peek();
  SLUICE_TRY(cur.expect('{'));
  Cursor probe = cur;
  int64_t items = 0;
  if (!probe.isPunct('}')) {
    items = 1;
    while (!probe.isPunct('}')) {
      const Token &t = probe.next();
      if (t.kind == Tok::kEof || t.kind == Tok::kNewline)
        return probe.errorAt(t, "expected '}' to close the tensor elements");
      if (t.kind == Tok::kPunct && t.text == ",")
        ++items;
    }
  }
  if (items != count)
    return cur.errorAt(open, "tensor of shape " + dimsString(dims) + " needs " +
                                 std::to_string(count) + " element" +
                                 (count == 1 ? "" : "s") + ", found " +
                                 std::to_string(items));
  Tensor t(dtype, dims);
  for (int64_t i = 0; i < count; ++i) {
    if (i)
      SLUICE_TRY(cur.expect(','));
    SLUICE_TRY(parseElement(cur, t, i));
  }
  SLUICE_TRY(cur.expect('}'));
  SLUICE_TRY(cur.expect('>'));
  return t;
}

} // namespace

Expected<DType> parseDType(Cursor &cur) {
  if (cur.peek().kind != Tok::kIdent)
    return cur.expected("a dtype");
  const Token &t = cur.next();
  auto d = dtypeFromName(t.text);
  if (!d)
    return cur.errorAt(t, "unknown dtype '" + t.text + "'");
  return *d;
}

Expected<Shape> parseShapeBody(Cursor &cur) {
  if (cur.accept('?'))
    return Shape::unknown();
  auto dim = [](Cursor &c) -> Expected<int64_t> {
    if (c.accept('?'))
      return Shape::kUnknown;
    Token t = c.peek();
    SLUICE_ASSIGN_OR_RETURN(int64_t d, parseInt(c));
    if (d < 0)
      return c.errorAt(t, "dimension must be '?' or at least 0, found " +
                              std::to_string(d));
    return d;
  };
  if (!cur.isPunct('['))
    return cur.expected("a shape ('?' or '[...]')");
  SLUICE_ASSIGN_OR_RETURN(std::vector<int64_t> dims,
                          parseList<int64_t>(cur, dim));
  return Shape(std::move(dims));
}

Expected<AttrType> parseAttrType(Cursor &cur) {
  if (cur.peek().kind != Tok::kIdent)
    return cur.expected("an attribute type");
  Token t = cur.next();
  std::string name = t.text;
  if (name == "list") {
    SLUICE_TRY(cur.expect('('));
    SLUICE_ASSIGN_OR_RETURN(Token inner, cur.expectKind(Tok::kIdent, "a type"));
    SLUICE_TRY(cur.expect(')'));
    name = "list(" + inner.text + ")";
  }
  for (int i = 0; i <= static_cast<int>(AttrType::kShapeList); ++i)
    if (attrTypeName(static_cast<AttrType>(i)) == name)
      return static_cast<AttrType>(i);
  return cur.errorAt(t, "unknown attribute type '" + name + "'");
}

Expected<AttrValue> parseAttrValue(Cursor &cur, AttrType type) {
  switch (type) {
  case AttrType::kInt: {
    SLUICE_ASSIGN_OR_RETURN(int64_t v, parseInt(cur));
    return AttrValue(v);
  }
  case AttrType::kFloat: {
    SLUICE_ASSIGN_OR_RETURN(double v, parseFloating<double>(cur));
    return AttrValue(v);
  }
  case AttrType::kBool: {
    SLUICE_ASSIGN_OR_RETURN(bool v, parseBool(cur));
    return AttrValue(v);
  }
  case AttrType::kString: {
    SLUICE_ASSIGN_OR_RETURN(std::string v, parseString(cur));
    return AttrValue(std::move(v));
  }
  case AttrType::kType: {
    SLUICE_ASSIGN_OR_RETURN(DType v, parseDType(cur));
    return AttrValue(v);
  }
  case AttrType::kShape: {
    SLUICE_ASSIGN_OR_RETURN(Shape v, parseShapeAttr(cur));
    return AttrValue(std::move(v));
  }
  case AttrType::kTensor: {
    SLUICE_ASSIGN_OR_RETURN(Tensor v, parseTensor(cur));
    return AttrValue(std::move(v));
  }
  case AttrType::kIntList: {
    SLUICE_ASSIGN_OR_RETURN(auto v, parseList<int64_t>(cur, parseInt));
    return AttrValue(std::move(v));
  }
  case AttrType::kFloatList: {
    SLUICE_ASSIGN_OR_RETURN(auto v,
                            parseList<double>(cur, parseFloating<double>));
    return AttrValue(std::move(v));
  }
  case AttrType::kStringList: {
    SLUICE_ASSIGN_OR_RETURN(auto v, parseList<std::string>(cur, parseString));
    return AttrValue(std::move(v));
  }
  case AttrType::kTypeList: {
    if (!cur.isIdent("types"))
      return cur.expected("a type list such as types[f32, i32]");
    cur.next();
    SLUICE_ASSIGN_OR_RETURN(auto v, parseList<DType>(cur, parseDType));
    return AttrValue(std::move(v));
  }
  case AttrType::kShapeList: {
    if (!cur.isIdent("shapes"))
      return cur.expected("a shape list such as shapes[[2], ?]");
    cur.next();
    SLUICE_ASSIGN_OR_RETURN(auto v, parseList<Shape>(cur, parseShapeBody));
    return AttrValue(std::move(v));
  }
  }
  return cur.expected("an attribute value");
}

} // namespace sluice::ir::detail
