// backend/io/csv_decoder.cc: CSV fields split in place (TF's
// ExtractFields) and parsed into columns without per-field allocations.
#include "backend/io/csv_decoder.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace sluice::backend::io {

namespace {

using ir::DType;

Status csvError(std::string msg) { return invalidArgument(std::move(msg)); }

/// Splits `in` into `fields` exactly as TF's DecodeCSVOp::ExtractFields.
/// Fields view `in`, or `scratch` for quoted fields holding "" escapes.
Status splitRecord(std::string_view in, const CsvOptions &o,
                   std::vector<std::string_view> &fields,
                   std::deque<std::string> &scratch) {
  fields.clear();
  const size_t n = in.size();
  if (n == 0)
    return Status::ok();
  size_t i = 0;
  int64_t parsed = 0;
  size_t sel = 0;
  const bool selecting = !o.select.empty();
  while (i < n) {
    char c = in[i];
    if (c == '\n' || c == '\r') { // TF skips line breaks between fields
      ++i;
      continue;
    }
    bool include = !selecting || o.select[sel] == parsed;
    std::string_view field;
    if (o.quote && c == '"') {
      ++i;
      size_t start = i;
      std::string *buf = nullptr;
      while (i < n - 1 && (in[i] != '"' || in[i + 1] != o.delim)) {
        if (in[i] != '"') {
          if (buf)
            buf->push_back(in[i]);
          ++i;
          continue;
        }
        if (in[i + 1] != '"')
          return csvError("Quote inside a string has to be escaped by another quote");
        if (include) {
          if (!buf)
            buf = &scratch.emplace_back(in.substr(start, i - start));
          buf->push_back('"');
        }
        i += 2;
      }
      if (!(i < n && in[i] == '"' && (i == n - 1 || in[i + 1] == o.delim)))
        return csvError("Quoted field has to end with quote followed by delim or end");
      field = buf ? std::string_view(*buf) : in.substr(start, i - start);
      i += 2;
    } else {
      size_t start = i;
      while (i < n && !o.special[static_cast<unsigned char>(in[i])])
        ++i;
      if (i < n && in[i] != o.delim)
        return csvError("Unquoted fields cannot have quotes/CRLFs inside");
      field = in.substr(start, i - start);
      ++i;
    }
    ++parsed;
    if (include) {
      fields.push_back(field);
      if (selecting && ++sel == o.select.size())
        return Status::ok();
    }
  }
  bool include = !selecting || o.select[sel] == parsed;
  if (include && in[n - 1] == o.delim)
    fields.emplace_back();
  return Status::ok();
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
std::string_view trimSpaces(std::string_view s) {
  while (!s.empty() && isSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

/// TF's safe_strto32/64: optional spaces, optional '-', digits, spaces;
/// overflow fails.
template <typename T> bool parseInt(std::string_view s, T *out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc() && p == s.data() + s.size())
    return true;
  std::string_view t = trimSpaces(s);
  if (t.size() == s.size() || t.empty())
    return false;
  auto [p2, ec2] = std::from_chars(t.data(), t.data() + t.size(), *out);
  return ec2 == std::errc() && p2 == t.data() + t.size();
}

/// TF's safe_strtof/strtod (double-conversion with leading and trailing
/// spaces, '+', hex, case-insensitive inf/nan; overflow gives inf).
template <typename T> bool parseReal(std::string_view s, T *out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  if (ec == std::errc() && p == s.data() + s.size())
    return true;
  std::string_view t = trimSpaces(s);
  if (t.empty() || t.size() > 256)
    return false;
  char buf[260];
  std::memcpy(buf, t.data(), t.size());
  buf[t.size()] = '\0';
  if (buf[0] == '+' && (t.size() == 1 || buf[1] == '-' || buf[1] == '+'))
    return false;
  char *end = nullptr;
  if constexpr (std::is_same_v<T, float>)
    *out = std::strtof(buf, &end);
  else
    *out = std::strtod(buf, &end);
  return end == buf + t.size();
}

const char *typeWord(DType t) {
  switch (t) {
  case DType::kI32: return "int32";
  case DType::kI64: return "int64";
  case DType::kF32: return "float";
  case DType::kF64: return "double";
  default: return "string";
  }
}


// " (file:line)" after "record r" when the record came from a reader.
std::string at(const std::string *origin) {
  return origin ? " (" + *origin + ")" : std::string();
}

} // namespace

CsvDecoder::CsvDecoder(const ir::Node &n) : types_(n.attr<std::vector<DType>>("Tlist")) {
  const std::string &delim = n.attr<std::string>("field_delim");
  if (delim.size() != 1)
    bad_ = invalidArgument("field_delim should be only 1 char");
  else
    o_.delim = delim[0];
  o_.quote = n.attr<bool>("use_quote_delim");
  o_.na = n.attr<std::string>("na_value");
  if (n.hasAttr("select_cols"))
    o_.select = n.attr<std::vector<int64_t>>("select_cols");
  if (bad_.isOk() && !o_.select.empty() && o_.select.size() != types_.size())
    bad_ = invalidArgument("Length of select_cols and record_defaults do not match.");
  for (size_t i = 0; bad_.isOk() && i + 1 < o_.select.size(); ++i)
    if (o_.select[i] >= o_.select[i + 1])
      bad_ = invalidArgument("select_cols is not strictly increasing.");
  if (bad_.isOk() && !o_.select.empty() && o_.select.front() < 0)
    bad_ = invalidArgument("select_cols contains negative values.");
  o_.special[static_cast<unsigned char>(o_.delim)] = true;
  o_.special['\n'] = o_.special['\r'] = true;
  if (o_.quote)
    o_.special['"'] = true;
}

Expected<std::vector<ir::Tensor>>
CsvDecoder::checkDefaults(std::vector<ir::Tensor> defaults) const {
  if (!bad_.isOk())
    return bad_;
  for (size_t f = 0; f < types_.size(); ++f) {
    const ir::Tensor &d = defaults[f];
    if (d.rank() > 1)
      return invalidArgument("Each record default should be at most rank 1");
    if (d.numElements() >= 2)
      return invalidArgument("There should only be 1 default per field but field " +
                             std::to_string(f) + " has " + std::to_string(d.numElements()));
    if (d.dtype() != types_[f])
      return invalidArgument("record_defaults[" + std::to_string(f) + "] has the wrong dtype");
  }
  return defaults;
}

std::vector<ir::Tensor> CsvDecoder::allocate(const ir::Dims &dims) const {
  std::vector<ir::Tensor> cols;
  cols.reserve(types_.size());
  for (DType t : types_)
    cols.push_back(t == DType::kString ? ir::Tensor(t, dims) : ir::Tensor::uninitialized(t, dims));
  return cols;
}

namespace {

// A number parsed straight from the record, as the plain parse loop does;
// false sends the record the general way (spaces, '+', hex, empty fields
// and every error are handled there, with TF's words).
template <typename T> bool parseAt(const char *&p, const char *end, void *out, int64_t r) {
  auto [q, ec] = std::from_chars(p, end, static_cast<T *>(out)[r]);
  if (ec != std::errc())
    return false;
  p = q;
  return true;
}

} // namespace

bool CsvDecoder::decodeSimple(std::string_view record, int64_t r,
                              const std::vector<ir::Tensor> &defaults, CsvScratch &scratch) const {
  const size_t numCols = types_.size();
  const char *p = record.data(), *end = p + record.size();
  if (!o_.select.empty() || p == end)
    return false;
  // A numeric na_value ("-1") must not parse as a number.
  const bool direct = o_.na.empty();
  for (size_t f = 0; f < numCols; ++f) {
    const char *start = p;
    bool parsed = false;
    if (direct) {
      switch (types_[f]) {
      case DType::kF32: parsed = parseAt<float>(p, end, scratch.out[f], r); break;
      case DType::kF64: parsed = parseAt<double>(p, end, scratch.out[f], r); break;
      case DType::kI32: parsed = parseAt<int32_t>(p, end, scratch.out[f], r); break;
      case DType::kI64: parsed = parseAt<int64_t>(p, end, scratch.out[f], r); break;
      default: break;
      }
    }
    if (!parsed)
      while (p < end && !o_.special[static_cast<unsigned char>(*p)])
        ++p;
    bool last = f + 1 == numCols;
    // A field must end at its delimiter (the last one at the record's
    // end); anything else (quotes, CR/LF, a field count off, a number
    // with more after it) goes the general way.
    if (last ? p != end : (p == end || *p != o_.delim))
      return false;
    if (!parsed &&
        !store(f, r, std::string_view(start, p - start), defaults[f], scratch.out[f], nullptr)
             .isOk())
      return false;
    ++p;
  }
  return true;
}

Status CsvDecoder::decode(std::string_view record, int64_t r,
                          const std::vector<ir::Tensor> &defaults, std::vector<ir::Tensor> &cols,
                          CsvScratch &scratch, const std::string *origin) const {
  if (scratch.bound != &cols) {
    scratch.out.clear();
    for (ir::Tensor &t : cols)
      scratch.out.push_back(t.dtype() == DType::kString ? static_cast<void *>(t.strings())
                                                        : t.rawData());
    scratch.bound = &cols;
  }
  if (!origin && decodeSimple(record, r, defaults, scratch))
    return Status::ok();
  if (!scratch.quoted.empty())
    scratch.quoted.clear();
  if (Status s = splitRecord(record, o_, scratch.fields, scratch.quoted); !s.isOk())
    return origin ? invalidArgument(s.message() + " in record " + std::to_string(r) + at(origin))
                  : s;
  const size_t numCols = types_.size();
  if (scratch.fields.size() != numCols)
    return invalidArgument("Expect " + std::to_string(numCols) + " fields but have " +
                           std::to_string(scratch.fields.size()) + " in record " +
                           std::to_string(r) + at(origin));
  for (size_t f = 0; f < numCols; ++f)
    SLUICE_TRY(store(f, r, scratch.fields[f], defaults[f], scratch.out[f], origin));
  return Status::ok();
}

Status CsvDecoder::store(size_t f, int64_t r, std::string_view field, const ir::Tensor &d,
                         void *out, const std::string *origin) const {
  DType t = types_[f];
  if (field.empty() || (!o_.na.empty() && field == o_.na)) {
    if (d.numElements() != 1)
      return invalidArgument("Field " + std::to_string(f) + " is required but missing in record " +
                             std::to_string(r) + at(origin) + "!");
    if (t == DType::kString)
      static_cast<std::string *>(out)[r] = d.strings()[0];
    else
      std::memcpy(static_cast<char *>(out) + r * ir::dtypeSize(t), d.rawData(),
                  ir::dtypeSize(t));
    return Status::ok();
  }
  bool ok = true;
  switch (t) {
  case DType::kI32: ok = parseInt(field, static_cast<int32_t *>(out) + r); break;
  case DType::kI64: ok = parseInt(field, static_cast<int64_t *>(out) + r); break;
  case DType::kF32: ok = parseReal(field, static_cast<float *>(out) + r); break;
  case DType::kF64: ok = parseReal(field, static_cast<double *>(out) + r); break;
  case DType::kString: static_cast<std::string *>(out)[r].assign(field); break;
  default:
    return invalidArgument("csv: data type " + std::string(ir::dtypeName(t)) +
                           " not supported in field " + std::to_string(f));
  }
  if (!ok)
    return invalidArgument("Field " + std::to_string(f) + " in record " + std::to_string(r) +
                           at(origin) + " is not a valid " + typeWord(t) + ": " +
                           std::string(field));
  return Status::ok();
}

} // namespace sluice::backend::io
