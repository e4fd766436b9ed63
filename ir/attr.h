// ir/attr.h: typed attribute values of IR nodes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/shape.h"
#include "ir/tensor.h"

namespace sluice::ir {

enum class AttrType {
  kInt,
  kFloat,
  kBool,
  kString,
  kType,
  kShape,
  kTensor,
  kIntList,
  kFloatList,
  kStringList,
  kTypeList,
  kShapeList,
};

std::string_view attrTypeName(AttrType t);

/// One attribute value. The alternative's index matches AttrType.
using AttrValue =
    std::variant<int64_t, double, bool, std::string, DType, Shape, Tensor,
                 std::vector<int64_t>, std::vector<double>,
                 std::vector<std::string>, std::vector<DType>,
                 std::vector<Shape>>;

inline AttrType attrTypeOf(const AttrValue &v) {
  return static_cast<AttrType>(v.index());
}

/// Attributes by name; ordered so printing is deterministic.
using AttrMap = std::map<std::string, AttrValue, std::less<>>;

/// Text form used by the textual IR (parsed back by ir/text/attr_parser.cc).
std::string formatAttr(const AttrValue &v);
/// Element i of `t` in the same exact text that formatAttr uses for a
/// tensor's elements (floats read back bit for bit, strings quoted).
std::string exactElementText(const Tensor &t, int64_t i);

} // namespace sluice::ir
