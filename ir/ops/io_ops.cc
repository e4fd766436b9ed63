// ir/ops/io_ops.cc: reader op rows (TF1's ReaderV2 family, resource
// handles), the small file ops (read_file, write_file, matching_files,
// tf_record_write) and the checkpoint ops a saver is built from
// (save_checkpoint, restore_checkpoint: TF's SaveV2 and RestoreV2).
#include <set>
#include <utility>

#include "ir/inference.h"
#include "ir/op_registry.h"

namespace sluice::ir {

namespace {

using AT = AttrType;

// TF checks reader attrs when the kernel is built; checking them here too
// gives the same message at graph construction.
Status checkNonNegative(InferenceContext &c, const char *attr) {
  int64_t v = c.attr<int64_t>(attr);
  if (v < 0)
    return c.error(std::string(attr) + " must be >= 0 not " + std::to_string(v));
  return Status::ok();
}

Status vectorOutputs(InferenceContext &c) {
  for (int i = 0; i < c.numOutputs(); ++i)
    c.setOutput(i, Shape({-1}));
  return Status::ok();
}

Status readUpToShape(InferenceContext &c) {
  const Shape &n = c.inputShape(2);
  if (n.hasRank() && n.rank() != 0)
    return c.error("Shape must be rank 0 but is rank " + std::to_string(n.rank()) +
                   " for 'num_records'");
  // A constant num_records bounds, but does not fix, the count.
  return vectorOutputs(c);
}

Status scalarInput(InferenceContext &c, int i, const char *what) {
  const Shape &s = c.inputShape(i);
  if (s.hasRank() && s.rank() != 0)
    return c.error(std::string(what) + " must be a scalar, got shape " + s.str());
  return Status::ok();
}

/// OpDefBuilder reads only "T...list" names as type lists; TF's name for
/// the checkpoint ops' list ("dtypes") is set here.
OpDef withTypeList(OpDef def, bool output, const std::string &arg, const std::string &attr) {
  for (ArgDef &a : output ? def.outputs : def.inputs)
    if (a.name == arg) {
      a.typeAttr.clear();
      a.typeListAttr = attr;
    }
  return def;
}

Status checkTensorNames(InferenceContext &c, size_t count) {
  const auto &names = c.attr<std::vector<std::string>>("tensor_names");
  if (names.size() != count)
    return c.error("tensor_names has " + std::to_string(names.size()) + " names for " +
                   std::to_string(count) + " tensors");
  std::set<std::string> seen;
  for (const std::string &n : names) {
    if (n.empty())
      return c.error("a tensor name is empty");
    if (!seen.insert(n).second)
      return c.error("tensor name '" + n + "' appears twice");
  }
  return Status::ok();
}

Status saveShape(InferenceContext &c) {
  SLUICE_TRY(scalarInput(c, 0, "prefix"));
  size_t n = static_cast<size_t>(c.numInputs() - 1);
  SLUICE_TRY(checkTensorNames(c, n));
  int64_t numShards = c.attr<int64_t>("num_shards");
  const auto &shards = c.attr<std::vector<int64_t>>("shards");
  if (!shards.empty() && shards.size() != n)
    return c.error("shards has " + std::to_string(shards.size()) + " entries for " +
                   std::to_string(n) + " tensors");
  for (int64_t s : shards)
    if (s < 0 || s >= numShards)
      return c.error("shard " + std::to_string(s) + " is not in [0, " +
                     std::to_string(numShards) + ")");
  for (int i = 1; i < c.numInputs(); ++i)
    if (c.inputType(i) == DType::kResource || c.inputType(i) == DType::kVariant)
      return c.error("cannot save a tensor of dtype " + std::string(dtypeName(c.inputType(i))));
  return Status::ok();
}

Status restoreShape(InferenceContext &c) {
  SLUICE_TRY(scalarInput(c, 0, "prefix"));
  size_t n = static_cast<size_t>(c.numOutputs());
  SLUICE_TRY(checkTensorNames(c, n));
  const auto &shapes = c.attr<std::vector<Shape>>("shapes");
  if (!shapes.empty() && shapes.size() != n)
    return c.error("shapes has " + std::to_string(shapes.size()) + " entries for " +
                   std::to_string(n) + " tensors");
  const auto &vars = c.attr<std::vector<std::string>>("variable_names");
  if (!vars.empty() && vars.size() != n)
    return c.error("variable_names has " + std::to_string(vars.size()) + " entries for " +
                   std::to_string(n) + " tensors");
  for (size_t i = 0; i < n; ++i)
    c.setOutput(static_cast<int>(i), shapes.empty() ? Shape::unknown() : shapes[i]);
  return Status::ok();
}

OpDefBuilder readerRow(const char *name, const char *tf) {
  OpDefBuilder b(name);
  b.tf(tf);
  b.output("reader_handle: resource");
  return b;
}

} // namespace

void registerIoOps(OpRegistry &reg) {
  reg.add(readerRow("text_line_reader", "TextLineReaderV2")
              .attr("skip_header_lines", AT::kInt, int64_t{0})
              .attr("container", AT::kString, std::string())
              .attr("shared_name", AT::kString, std::string())
              .signature("skip_header_lines, container, shared_name")
              .stateful()
              .shape([](InferenceContext &c) {
                SLUICE_TRY(checkNonNegative(c, "skip_header_lines"));
                return scalarShape(c);
              })
              .doc("A reader of text lines: key '<file>:<line>', value the "
                   "line without its newline.")
              .build());

  reg.add(readerRow("fixed_length_record_reader", "FixedLengthRecordReaderV2")
              .attr("record_bytes", AT::kInt)
              .attr("header_bytes", AT::kInt, int64_t{0})
              .attr("footer_bytes", AT::kInt, int64_t{0})
              .attr("hop_bytes", AT::kInt, int64_t{0})
              .attr("encoding", AT::kString, std::string())
              .attr("container", AT::kString, std::string())
              .attr("shared_name", AT::kString, std::string())
              .signature("record_bytes, header_bytes, footer_bytes, hop_bytes, "
                         "encoding, container, shared_name")
              .stateful()
              .shape([](InferenceContext &c) {
                int64_t rb = c.attr<int64_t>("record_bytes");
                if (rb <= 0)
                  return c.error("record_bytes must be > 0 not " + std::to_string(rb));
                SLUICE_TRY(checkNonNegative(c, "header_bytes"));
                SLUICE_TRY(checkNonNegative(c, "footer_bytes"));
                SLUICE_TRY(checkNonNegative(c, "hop_bytes"));
                // TODO(#3): ZLIB and GZIP encodings.
                if (!c.attr<std::string>("encoding").empty())
                  return c.error("encoding '" + c.attr<std::string>("encoding") +
                                 "' is not supported (only '')");
                return scalarShape(c);
              })
              .doc("A reader of fixed-size records: key '<file>:<index>'.")
              .build());

  reg.add(readerRow("whole_file_reader", "WholeFileReaderV2")
              .attr("container", AT::kString, std::string())
              .attr("shared_name", AT::kString, std::string())
              .signature("container, shared_name")
              .stateful()
              .shape(scalarShape)
              .doc("A reader yielding each file whole: key '<file>'.")
              .build());

  reg.add(readerRow("tf_record_reader", "TFRecordReaderV2")
              .attr("container", AT::kString, std::string())
              .attr("shared_name", AT::kString, std::string())
              .attr("compression_type", AT::kString, std::string())
              .signature("container, shared_name, compression_type")
              .stateful()
              .shape([](InferenceContext &c) {
                if (!c.attr<std::string>("compression_type").empty())
                  return c.error("compression_type '" +
                                 c.attr<std::string>("compression_type") +
                                 "' is not supported (only '')");
                return scalarShape(c);
              })
              .doc("A reader of TFRecord files: key '<file>:<offset>'.")
              .build());

  reg.add(OpDefBuilder("reader_read")
              .tf("ReaderReadV2")
              .input("reader_handle: resource")
              .input("queue_handle: resource")
              .output("key: string")
              .output("value: string")
              .signature("reader_handle, queue_handle")
              .stateful()
              .async()
              .shape(scalarShape)
              .doc("The next record; dequeues a filename when the reader "
                   "has no current file.")
              .build());

  reg.add(OpDefBuilder("reader_read_up_to")
              .tf("ReaderReadUpToV2")
              .input("reader_handle: resource")
              .input("queue_handle: resource")
              .input("num_records: i64")
              .output("keys: string")
              .output("values: string")
              .signature("reader_handle, queue_handle, num_records")
              .stateful()
              .async()
              .shape(readUpToShape)
              .doc("1..num_records records from one file (never two).")
              .build());

  for (auto [name, tf] : {std::pair{"reader_num_records_produced", "ReaderNumRecordsProducedV2"},
                          std::pair{"reader_num_work_units_completed",
                                    "ReaderNumWorkUnitsCompletedV2"}})
    reg.add(OpDefBuilder(name)
                .tf(tf)
                .input("reader_handle: resource")
                .output("output: i64")
                .signature("reader_handle")
                .stateful()
                .shape(scalarShape)
                .build());

  reg.add(OpDefBuilder("reader_reset")
              .tf("ReaderResetV2")
              .input("reader_handle: resource")
              .signature("reader_handle")
              .stateful()
              .doc("Zeroes the reader's counters and drops its current file.")
              .build());

  reg.add(OpDefBuilder("read_file")
              .tf("ReadFile")
              .input("filename: string")
              .output("contents: string")
              .signature("filename")
              .stateful()
              .expensive()
              .shape([](InferenceContext &c) {
                SLUICE_TRY(scalarInput(c, 0, "filename"));
                return scalarShape(c);
              })
              .doc("The whole content of a file.")
              .build());

  reg.add(OpDefBuilder("write_file")
              .tf("WriteFile")
              .input("filename: string")
              .input("contents: string")
              .signature("filename, contents")
              .stateful()
              .expensive()
              .shape([](InferenceContext &c) {
                SLUICE_TRY(scalarInput(c, 0, "filename"));
                return scalarInput(c, 1, "contents");
              })
              .doc("Writes contents to a file, replacing it.")
              .build());

  reg.add(OpDefBuilder("matching_files")
              .tf("MatchingFiles")
              .input("pattern: string")
              .output("filenames: string")
              .signature("pattern")
              .stateful()
              .shape([](InferenceContext &c) {
                const Shape &s = c.inputShape(0);
                if (s.hasRank() && s.rank() > 1)
                  return c.error("pattern must be a scalar or a vector, got shape " +
                                 s.str());
                return vectorOutputs(c);
              })
              .doc("The files matching glob patterns, sorted.")
              .build());

  reg.add(OpDefBuilder("tf_record_write")
              .input("filename: string")
              .input("records: string")
              .signature("filename, records")
              .stateful()
              .expensive()
              .shape([](InferenceContext &c) {
                SLUICE_TRY(scalarInput(c, 0, "filename"));
                const Shape &s = c.inputShape(1);
                if (s.hasRank() && s.rank() > 1)
                  return c.error("records must be a scalar or a vector, got shape " +
                                 s.str());
                return Status::ok();
              })
              .doc("Writes records as a TFRecord file (for tests and tools).")
              .build());

  // TF's Saver builds SaveV2 and RestoreV2 for these; the file layout is
  // TF's V2 one, the bytes inside Sluice's own (backend/io/checkpoint.h).
  reg.add(withTypeList(OpDefBuilder("save_checkpoint")
                           .tf("SaveV2")
                           .input("prefix: string")
                           .input("tensors: dtypes")
                           .attr("dtypes", AT::kTypeList)
                           .attr("tensor_names", AT::kStringList)
                           .attr("shards", AT::kIntList, std::vector<int64_t>{})
                           .attr("num_shards", AT::kInt, int64_t{1})
                           .minimum(1)
                           .signature("prefix, tensors, tensor_names, shards, num_shards")
                           .stateful()
                           .expensive()
                           .shape(saveShape)
                           .doc("Writes the tensors as checkpoint `prefix` (P.index and "
                                "P.data-k-of-N; tensor i in shard shards[i]), atomically.")
                           .build(),
                       false, "tensors", "dtypes"));

  reg.add(withTypeList(OpDefBuilder("restore_checkpoint")
                           .tf("RestoreV2")
                           .input("prefix: string")
                           .output("tensors: dtypes")
                           .attr("dtypes", AT::kTypeList)
                           .attr("tensor_names", AT::kStringList)
                           .attr("shapes", AT::kShapeList, std::vector<Shape>{})
                           .attr("variable_names", AT::kStringList, std::vector<std::string>{})
                           .signature("prefix, tensor_names, dtypes, shapes, variable_names")
                           .stateful()
                           .expensive()
                           .shape(restoreShape)
                           .doc("Reads the named tensors of checkpoint `prefix`, after checking "
                                "every one (present, dtype, shape compatible with shapes[i], "
                                "checksum): all of them or an error. variable_names name "
                                "what each is restored into, for messages.")
                           .build(),
                       true, "tensors", "dtypes"));
}

} // namespace sluice::ir
