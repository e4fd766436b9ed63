// ir/ops/string_ops.cc: string op rows.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

// Non-scalar inputs must share one shape; scalars broadcast (TF's
// StringJoin rule).
Status stringJoinShape(InferenceContext &c) {
  Shape out = Shape::scalar();
  bool sawNonScalar = false;
  for (int i = 0; i < c.numInputs(); ++i) {
    const Shape &s = c.inputShape(i);
    if (s.hasRank() && s.rank() == 0)
      continue;
    if (!sawNonScalar) {
      out = s;
      sawNonScalar = true;
      continue;
    }
    auto m = out.merge(s);
    if (!m)
      return c.error("Input shapes do not match: " + out.str() + " vs. " +
                     s.str());
    out = *m;
  }
  c.setOutput(0, out);
  return Status::ok();
}

Status stringSplitShape(InferenceContext &c) {
  const Shape &s = c.inputShape(0);
  if (s.hasRank() && s.rank() != 1)
    return c.error("input must be a vector, got shape: " + s.str());
  c.setOutput(0, Shape({-1, 2}));
  c.setOutput(1, Shape({-1}));
  c.setOutput(2, Shape({2}));
  return Status::ok();
}

Status asStringShape(InferenceContext &c) {
  bool scientific = c.attr<bool>("scientific"), shortest = c.attr<bool>("shortest");
  const std::string &fill = c.attr<std::string>("fill");
  DType t = c.inputType(0);
  if (scientific && shortest)
    return c.error("Cannot select both scientific and shortest notation");
  if (fill.size() > 1)
    return c.error("Fill string must be one or fewer characters");
  if (!fill.empty() && std::string(" +-0#").find(fill[0]) == std::string::npos)
    return c.error("Fill argument not supported: \"" + fill + "\"");
  if (!isFloating(t)) {
    if (c.attr<int64_t>("precision") >= 0)
      return c.error("precision not supported for datatype " +
                     std::string(dtypeTfName(t)));
    if (scientific)
      return c.error("scientific not supported for datatype " +
                     std::string(dtypeTfName(t)));
    if (shortest)
      return c.error("shortest not supported for datatype " +
                     std::string(dtypeTfName(t)));
  }
  if (t == DType::kBool && (!fill.empty() || c.attr<int64_t>("width") >= 0))
    return c.error("width and fill not supported for datatype bool");
  return unchangedShape(c);
}

Status substrShape(InferenceContext &c) {
  if (!c.inputShape(1).isCompatibleWith(c.inputShape(2)))
    return c.error("pos and len should have the same shape, got: " +
                   c.inputShape(1).str() + " vs. " + c.inputShape(2).str());
  return broadcastShape(c);
}

} // namespace

void registerStringOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("string_join")
              .tf("StringJoin")
              .input("inputs: N*string")
              .output("output: string")
              .attr("N", AT::kInt)
              .minimum(1)
              .attr("separator", AT::kString, std::string())
              .signature("inputs, separator")
              .shape(stringJoinShape)
              .build());
  // TF1 returns a SparseTensor; these are its components.
  reg.add(OpDefBuilder("string_split")
              .tf("StringSplit")
              .input("source: string")
              .output("indices: i64")
              .output("values: string")
              .output("shape: i64")
              .attr("delimiter", AT::kString, std::string(" "))
              .attr("skip_empty", AT::kBool, true)
              .signature("source, delimiter, skip_empty")
              .shape(stringSplitShape)
              .build());
  reg.add(OpDefBuilder("string_to_number")
              .tf("StringToNumber")
              .input("string_tensor: string")
              .output("output: out_type")
              .typeAttr("out_type",
                        {DType::kF32, DType::kF64, DType::kI32, DType::kI64},
                        DType::kF32)
              .signature("string_tensor, out_type")
              .shape(unchangedShape)
              .build());
  reg.add(OpDefBuilder("as_string")
              .tf("AsString")
              .input("input: T")
              .output("output: string")
              .typeAttr("T", kRealAndBoolTypes)
              .attr("precision", AT::kInt, int64_t{-1})
              .attr("scientific", AT::kBool, false)
              .attr("shortest", AT::kBool, false)
              .attr("width", AT::kInt, int64_t{-1})
              .attr("fill", AT::kString, std::string())
              .signature("input, precision, scientific, shortest, width, fill")
              .shape(asStringShape)
              .build());
  reg.add(OpDefBuilder("string_length")
              .tf("StringLength")
              .input("input: string")
              .output("output: i32")
              .attr("unit", AT::kString, std::string("BYTE"))
              .signature("input, unit")
              .shape([](InferenceContext &c) {
                const auto &unit = c.attr<std::string>("unit");
                if (unit != "BYTE" && unit != "UTF8_CHAR")
                  return c.error("unit must be BYTE or UTF8_CHAR, got " + unit);
                return unchangedShape(c);
              })
              .build());
  reg.add(OpDefBuilder("substr")
              .tf("Substr")
              .input("input: string")
              .input("pos: T")
              .input("len: T")
              .output("output: string")
              .typeAttr("T", kIndexTypes, DType::kI32)
              .signature("input, pos, len")
              .shape(substrShape)
              .build());
  reg.add(OpDefBuilder("string_strip")
              .tf("StringStrip")
              .input("input: string")
              .output("output: string")
              .shape(unchangedShape)
              .build());
  reg.add(OpDefBuilder("regex_full_match")
              .tf("StaticRegexFullMatch", "RegexFullMatch") // pattern: an attr, as Static's
              .input("input: string")
              .output("output: bool")
              .attr("pattern", AT::kString)
              .signature("input, pattern")
              .shape(unchangedShape)
              .build());
}

} // namespace sluice::ir
