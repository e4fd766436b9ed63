// backend/cpu/parsing_kernels.cc: decode_csv (TF's DecodeCSVOp rules and
// messages, parsed in place without per-field allocations) and decode_raw.
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string_view>

#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

using ir::DType;

struct CsvOptions {
  char delim = ',';
  bool quote = true;
  std::string na;
  std::vector<int64_t> select;
  std::array<bool, 256> special{}; // bytes that end or invalidate an unquoted field
};

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

class DecodeCsvKernel : public OpKernel {
public:
  explicit DecodeCsvKernel(const ir::Node &n)
      : OpKernel(n), types_(n.attr<std::vector<DType>>("Tlist")) {
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

  void compute(KernelContext &ctx) override {
    if (!bad_.isOk())
      return ctx.fail(bad_);
    const ir::Tensor &records = ctx.input(0);
    const size_t numCols = types_.size();
    if (records.dtype() != DType::kString)
      return ctx.fail(invalidArgument("records must be strings"));
    for (size_t f = 0; f < numCols; ++f) {
      const ir::Tensor &d = ctx.input(1 + static_cast<int>(f));
      if (d.rank() > 1)
        return ctx.fail(invalidArgument("Each record default should be at most rank 1"));
      if (d.numElements() >= 2)
        return ctx.fail(invalidArgument("There should only be 1 default per field but field " +
                                        std::to_string(f) + " has " +
                                        std::to_string(d.numElements())));
      if (d.dtype() != types_[f])
        return ctx.fail(invalidArgument("record_defaults[" + std::to_string(f) +
                                        "] has the wrong dtype"));
    }
    const int64_t numRecords = records.numElements();
    std::vector<void *> out(numCols);
    for (size_t f = 0; f < numCols; ++f) {
      ir::Tensor &t = ctx.allocateOutput(static_cast<int>(f), types_[f], records.dims());
      out[f] = types_[f] == DType::kString ? static_cast<void *>(t.strings()) : t.rawData();
    }
    const std::string *recs = records.strings();
    std::vector<std::string_view> fields;
    fields.reserve(numCols);
    std::deque<std::string> scratch;
    for (int64_t r = 0; r < numRecords; ++r) {
      scratch.clear();
      if (Status s = splitRecord(recs[r], o_, fields, scratch); !s.isOk())
        return ctx.fail(std::move(s));
      if (fields.size() != numCols)
        return ctx.fail(invalidArgument("Expect " + std::to_string(numCols) +
                                        " fields but have " + std::to_string(fields.size()) +
                                        " in record " + std::to_string(r)));
      for (size_t f = 0; f < numCols; ++f)
        if (Status s = store(ctx, f, r, fields[f], out[f]); !s.isOk())
          return ctx.fail(std::move(s));
    }
  }

private:
  Status store(KernelContext &ctx, size_t f, int64_t r, std::string_view field, void *out) {
    DType t = types_[f];
    if (field.empty() || field == o_.na) {
      const ir::Tensor &d = ctx.input(1 + static_cast<int>(f));
      if (d.numElements() != 1)
        return invalidArgument("Field " + std::to_string(f) +
                               " is required but missing in record " + std::to_string(r) + "!");
      size_t width = t == DType::kString ? 0 : ir::dtypeSize(t);
      if (t == DType::kString)
        static_cast<std::string *>(out)[r] = d.strings()[0];
      else
        std::memcpy(static_cast<char *>(out) + r * width, d.rawData(), width);
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
                             " is not a valid " + typeWord(t) + ": " + std::string(field));
    return Status::ok();
  }

  std::vector<DType> types_;
  CsvOptions o_;
  Status bad_;
};

class DecodeRawKernel : public OpKernel {
public:
  explicit DecodeRawKernel(const ir::Node &n)
      : OpKernel(n), type_(n.attr<DType>("out_type")),
        littleEndian_(n.attr<bool>("little_endian")) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &in = ctx.input(0);
    const int64_t count = in.numElements();
    const size_t width = ir::dtypeSize(type_);
    ir::Dims dims = in.dims();
    if (count == 0) {
      dims.push_back(0);
      ctx.allocateOutput(0, type_, dims);
      return;
    }
    const std::string *s = in.strings();
    const size_t size = s[0].size();
    for (int64_t i = 1; i < count; ++i)
      if (s[i].size() != size)
        return ctx.fail(invalidArgument(
            "DecodeRaw requires input strings to all be the same size, but element " +
            std::to_string(i) + " has size " + std::to_string(s[i].size()) +
            " != " + std::to_string(size)));
    if (size % width != 0)
      return ctx.fail(invalidArgument("Input to DecodeRaw has length " + std::to_string(size) +
                                      " that is not a multiple of " + std::to_string(width) +
                                      ", the size of " + std::string(ir::dtypeName(type_))));
    dims.push_back(static_cast<int64_t>(size / width));
    char *out = static_cast<char *>(ctx.allocateOutput(0, type_, dims).rawData());
    for (int64_t i = 0; i < count; ++i)
      std::memcpy(out + i * size, s[i].data(), size);
    bool hostLittle = std::endian::native == std::endian::little;
    if (width > 1 && hostLittle != littleEndian_) {
      size_t total = size * static_cast<size_t>(count);
      for (size_t k = 0; k < total; k += width)
        std::reverse(out + k, out + k + width);
    }
  }

private:
  DType type_;
  bool littleEndian_;
};

} // namespace

void registerParsingKernels(KernelRegistry &reg) {
  reg.addSimple<DecodeCsvKernel>("decode_csv");
  reg.addSimple<DecodeRawKernel>("decode_raw");
}

} // namespace sluice::backend
