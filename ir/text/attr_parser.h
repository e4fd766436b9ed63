// ir/text/attr_parser.h: reads attribute values, dtypes and shapes in the
// syntax of formatAttr (ir/attr.cc); internal to ir/text.
#pragma once

#include "ir/attr.h"
#include "ir/text/lexer.h"

namespace sluice::ir::detail {

/// Reads one value of `type` (the OpDef's declared type or an annotation).
Expected<AttrValue> parseAttrValue(Cursor &cur, AttrType type);
/// Reads an attribute type name: int, float, ..., list(int), ...
Expected<AttrType> parseAttrType(Cursor &cur);
/// Reads a dtype name (f32, i64, string, ...).
Expected<DType> parseDType(Cursor &cur);
/// Reads a static shape: `?` (unknown rank) or `[2, ?]`.
Expected<Shape> parseShapeBody(Cursor &cur);

} // namespace sluice::ir::detail
