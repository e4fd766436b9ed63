// ir/ops/parsing_ops.cc: decode_csv and decode_raw op rows. decode_csv's
// column types come from its record_defaults (a type-list input), as in
// TF's DecodeCSV.
#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

bool csvType(DType t) {
  return t == DType::kI32 || t == DType::kI64 || t == DType::kF32 ||
         t == DType::kF64 || t == DType::kString;
}

// The static half of TF's DecodeCSVOp checks; the kernel repeats them at
// run time with the same messages.
Status decodeCsvShape(InferenceContext &c) {
  const auto &types = c.attr<std::vector<DType>>("Tlist");
  for (size_t i = 0; i < types.size(); ++i)
    if (!csvType(types[i]))
      return c.error("csv: data type " + std::string(dtypeName(types[i])) +
                     " not supported in field " + std::to_string(i));
  if (c.attr<std::string>("field_delim").size() != 1)
    return c.error("field_delim should be only 1 char");
  if (c.hasAttr("select_cols")) {
    const auto &sel = c.attr<std::vector<int64_t>>("select_cols");
    if (!sel.empty() && sel.size() != types.size())
      return c.error("Length of select_cols and record_defaults do not match.");
    for (size_t i = 0; i + 1 < sel.size(); ++i)
      if (sel[i] >= sel[i + 1])
        return c.error("select_cols is not strictly increasing.");
    if (!sel.empty() && sel.front() < 0)
      return c.error("select_cols contains negative values.");
  }
  for (size_t i = 0; i < types.size(); ++i) {
    const Shape &d = c.inputShape(1 + static_cast<int>(i));
    if (!d.hasRank())
      continue;
    if (d.rank() > 1)
      return c.error("Each record default should be at most rank 1");
    if (d.isFullyDefined() && d.numElements() >= 2)
      return c.error("There should only be 1 default per field but field " +
                     std::to_string(i) + " has " + std::to_string(d.numElements()));
  }
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, c.inputShape(0));
  return Status::ok();
}

Status decodeRawShape(InferenceContext &c) {
  const Shape &in = c.inputShape(0);
  if (!in.hasRank()) {
    c.setOutput(0, Shape::unknown());
    return Status::ok();
  }
  std::vector<int64_t> dims = in.dims();
  dims.push_back(-1);
  c.setOutput(0, Shape(std::move(dims)));
  return Status::ok();
}

} // namespace

void registerParsingOps(OpRegistry &reg) {
  reg.add(OpDefBuilder("decode_csv")
              .tf("DecodeCSV")
              .input("records: string")
              .input("record_defaults: Tlist")
              .output("output: Tlist")
              .attr("Tlist", AT::kTypeList)
              .attr("field_delim", AT::kString, std::string(","))
              .attr("use_quote_delim", AT::kBool, true)
              .attr("na_value", AT::kString, std::string())
              .attr("select_cols", AT::kIntList)
              .optional()
              .signature("records, record_defaults, field_delim, use_quote_delim, "
                         "na_value, select_cols")
              .expensive()
              .shape(decodeCsvShape)
              .doc("Parses CSV records into one tensor per column; a column's "
                   "dtype is its default's, and an empty default makes it "
                   "required.")
              .build());

  // Made only by the fuse-read-decode pass, from a reader_read(_up_to)
  // whose values only a decode_csv reads: the same records and columns,
  // parsed where the reader holds the lines (no string per record).
  reg.add(OpDefBuilder("reader_read_csv")
              .input("reader_handle: resource")
              .input("queue_handle: resource")
              .input("num_records: i64")
              .input("record_defaults: Tlist")
              .output("keys: string")
              .output("output: Tlist")
              .attr("Tlist", AT::kTypeList)
              .attr("field_delim", AT::kString, std::string(","))
              .attr("use_quote_delim", AT::kBool, true)
              .attr("na_value", AT::kString, std::string())
              .attr("select_cols", AT::kIntList)
              .optional()
              .attr("up_to", AT::kBool, true)
              .attr("emit_keys", AT::kBool, true)
              .stateful()
              .async()
              .shape([](InferenceContext &c) {
                // up_to: 1..num_records rows; else one record, scalars.
                // Without emit_keys nothing reads the keys: an empty scalar.
                Shape rows = c.attr<bool>("up_to") ? Shape({-1}) : Shape::scalar();
                c.setOutput(0, c.attr<bool>("emit_keys") ? rows : Shape::scalar());
                for (int i = 1; i < c.numOutputs(); ++i)
                  c.setOutput(i, rows);
                return Status::ok();
              })
              .doc("reader_read(_up_to) + decode_csv in one kernel; errors name "
                   "the bad record's file and line.")
              .build());

  reg.add(OpDefBuilder("decode_raw")
              .tf("DecodeRaw")
              .input("bytes: string")
              .output("output: out_type")
              .typeAttr("out_type", {DType::kF16, DType::kF32, DType::kF64, DType::kI8,
                                     DType::kI16, DType::kI32, DType::kI64, DType::kU8})
              .attr("little_endian", AT::kBool, true)
              .signature("bytes, out_type, little_endian")
              .alias("input_bytes", "bytes")
              .shape(decodeRawShape)
              .doc("Reinterprets the bytes of each string as a vector of "
                   "out_type.")
              .build());
}

} // namespace sluice::ir
