// backend/io/csv_decoder.h: decode_csv's parser (TF's DecodeCSVOp rules
// and messages), shared by the decode_csv kernel and the fused reader +
// decode kernel, which names each bad record's file and line.
#pragma once

#include <array>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "ir/node.h"
#include "ir/tensor.h"
#include "support/status.h"

namespace sluice::backend::io {

struct CsvOptions {
  char delim = ',';
  bool quote = true;
  std::string na;
  std::vector<int64_t> select;
  std::array<bool, 256> special{}; // bytes that end or invalidate an unquoted field
};

/// Per-call working space (the decoder itself is shared by concurrent steps).
struct CsvScratch {
  std::vector<std::string_view> fields;
  std::deque<std::string> quoted; // quoted fields holding "" escapes
  // The columns' element pointers, looked up once per set of columns.
  const std::vector<ir::Tensor> *bound = nullptr;
  std::vector<void *> out;
};

class CsvDecoder {
public:
  /// decode_csv's attrs of `n`: Tlist, field_delim, use_quote_delim,
  /// na_value, select_cols. A bad one is reported by setDefaults.
  explicit CsvDecoder(const ir::Node &n);
  size_t numColumns() const { return types_.size(); }
  const std::vector<ir::DType> &types() const { return types_; }

  /// Checks one record default per column (TF's rules: at most rank 1, at
  /// most one element, the column's dtype); returns them for decode().
  Expected<std::vector<ir::Tensor>> checkDefaults(std::vector<ir::Tensor> defaults) const;
  /// Column tensors of `dims`, numbers uninitialized, strings empty.
  std::vector<ir::Tensor> allocate(const ir::Dims &dims) const;
  /// Parses `record` into element `r` of every column. With `origin` (the
  /// reader's key "file:line"), messages name it after TF's "record r".
  Status decode(std::string_view record, int64_t r, const std::vector<ir::Tensor> &defaults,
                std::vector<ir::Tensor> &cols, CsvScratch &scratch,
                const std::string *origin = nullptr) const;

private:
  Status store(size_t f, int64_t r, std::string_view field, const ir::Tensor &dflt, void *out,
               const std::string *origin) const;
  /// The plain case (no select_cols, no quotes, CR or LF, one field per
  /// column): split and stored in one pass. False when the record needs
  /// the general splitter (which also words any error).
  bool decodeSimple(std::string_view record, int64_t r, const std::vector<ir::Tensor> &defaults,
                    CsvScratch &scratch) const;

  std::vector<ir::DType> types_;
  CsvOptions o_;
  Status bad_;
};

} // namespace sluice::backend::io
