// backend/cpu/string_kernels.cc: CPU kernels for string ops.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <regex>

#include "backend/kernel_registry.h"
#include "ir/inference.h"

namespace sluice::backend {

namespace {

using ir::DType;
using ir::Tensor;

// Flat index into a tensor of `inDims` for flat output index `i` of
// `outDims`, under numpy broadcasting (inDims right-aligned).
int64_t broadcastIndex(int64_t i, const ir::Dims &outDims,
                       const ir::Dims &inDims) {
  int64_t idx = 0, mul = 1;
  size_t off = outDims.size() - inDims.size();
  for (size_t k = outDims.size(); k-- > 0;) {
    int64_t c = i % outDims[k];
    i /= outDims[k];
    if (k >= off) {
      int64_t d = inDims[k - off];
      idx += (d == 1 ? 0 : c) * mul;
      mul *= d;
    }
  }
  return idx;
}

std::optional<ir::Dims> broadcastDims(const ir::Dims &a, const ir::Dims &b) {
  auto s = ir::broadcastShapes(ir::Shape(a), ir::Shape(b));
  if (!s)
    return std::nullopt;
  return s->dims();
}

class StringJoinKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor *shaped = nullptr;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const Tensor &t = ctx.input(i);
      if (t.rank() == 0)
        continue;
      if (shaped && shaped->dims() != t.dims())
        return ctx.fail(invalidArgument(
            "Input shapes do not match: " + ir::dimsString(shaped->dims()) +
            " vs. " + ir::dimsString(t.dims())));
      shaped = shaped ? shaped : &t;
    }
    ir::Dims dims = shaped ? shaped->dims() : ir::Dims{};
    Tensor &out = ctx.allocateOutput(0, DType::kString, dims);
    const std::string &sep = node().attr<std::string>("separator");
    for (int64_t e = 0; e < out.numElements(); ++e) {
      std::string &s = out.strings()[e];
      for (int i = 0; i < ctx.numInputs(); ++i) {
        const Tensor &t = ctx.input(i);
        if (i)
          s += sep;
        s += t.strings()[t.rank() == 0 ? 0 : e];
      }
    }
  }
};

// TF1's string_split: every byte of `delimiter` splits; an empty
// delimiter splits into single bytes.
class StringSplitKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &src = ctx.input(0);
    if (src.rank() != 1)
      return ctx.fail(invalidArgument("input must be a vector, got shape: " +
                                      ir::dimsString(src.dims())));
    const std::string &delim = node().attr<std::string>("delimiter");
    bool skipEmpty = node().attr<bool>("skip_empty");
    std::vector<int64_t> rows, cols;
    std::vector<std::string> tokens;
    int64_t maxTokens = 0;
    for (int64_t b = 0; b < src.numElements(); ++b) {
      const std::string &s = src.strings()[b];
      int64_t count = 0;
      auto emit = [&](std::string tok) {
        if (skipEmpty && tok.empty())
          return;
        rows.push_back(b);
        cols.push_back(count++);
        tokens.push_back(std::move(tok));
      };
      if (delim.empty()) {
        for (char ch : s)
          emit(std::string(1, ch));
      } else {
        size_t start = 0;
        for (size_t i = 0; i <= s.size(); ++i)
          if (i == s.size() || delim.find(s[i]) != std::string::npos) {
            emit(s.substr(start, i - start));
            start = i + 1;
          }
      }
      maxTokens = std::max(maxTokens, count);
    }
    int64_t n = static_cast<int64_t>(tokens.size());
    Tensor &indices = ctx.allocateOutput(0, DType::kI64, {n, 2});
    for (int64_t i = 0; i < n; ++i) {
      indices.data<int64_t>()[2 * i] = rows[i];
      indices.data<int64_t>()[2 * i + 1] = cols[i];
    }
    Tensor &values = ctx.allocateOutput(1, DType::kString, {n});
    std::move(tokens.begin(), tokens.end(), values.strings());
    ctx.setOutput(2, Tensor::fromVector<int64_t>({src.numElements(), maxTokens}));
  }
};

// TF's safe_strto*: surrounding whitespace is allowed, nothing else.
template <typename T> bool parseNumber(const std::string &s, T &out) {
  const char *p = s.c_str();
  char *end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    if (s.find_first_of("xX") != std::string::npos)
      return false; // strtod would take hex floats; TF does not
    double v = std::strtod(p, &end);
    out = static_cast<T>(v);
  } else {
    long long v = std::strtoll(p, &end, 10);
    if (errno == ERANGE || v < std::numeric_limits<T>::min() ||
        v > std::numeric_limits<T>::max())
      return false;
    out = static_cast<T>(v);
  }
  if (end == p)
    return false;
  while (*end && std::isspace(static_cast<unsigned char>(*end)))
    ++end;
  return *end == '\0';
}

class StringToNumberKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    Tensor &out = ctx.allocateOutput(0, node().outputType(0), in.dims());
    ir::dispatchPod(out.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double> ||
                    std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>) {
        for (int64_t i = 0; i < in.numElements(); ++i)
          if (!parseNumber(in.strings()[i], out.data<T>()[i]))
            return ctx.fail(invalidArgument(
                "StringToNumberOp could not correctly convert string: " +
                in.strings()[i]));
      }
    });
  }
};

class AsStringKernel : public OpKernel {
public:
  explicit AsStringKernel(const ir::Node &n) : OpKernel(n) {
    DType t = n.inputs().empty() ? DType::kInvalid : n.attr<DType>("T");
    std::string fill = n.attr<std::string>("fill");
    int64_t width = n.attr<int64_t>("width");
    int64_t precision = n.attr<int64_t>("precision");
    format_ = "%" + fill;
    if (width > -1)
      format_ += std::to_string(width);
    if (precision > -1)
      format_ += "." + std::to_string(precision);
    if (ir::isFloating(t))
      format_ += n.attr<bool>("shortest")     ? "g"
                 : n.attr<bool>("scientific") ? "e"
                                              : "f";
    else
      format_ += "lld";
  }
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    Tensor &out = ctx.allocateOutput(0, DType::kString, in.dims());
    char buf[512];
    for (int64_t i = 0; i < in.numElements(); ++i) {
      std::string &s = out.strings()[i];
      if (in.dtype() == DType::kBool) {
        s = in.data<bool>()[i] ? "true" : "false";
      } else if (ir::isFloating(in.dtype())) {
        std::snprintf(buf, sizeof buf, format_.c_str(), in.elementAsDouble(i));
        s = buf;
      } else {
        std::snprintf(buf, sizeof buf, format_.c_str(),
                      static_cast<long long>(in.elementAsInt(i)));
        s = buf;
      }
    }
  }

private:
  std::string format_;
};

class StringLengthKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    bool chars = node().attr<std::string>("unit") == "UTF8_CHAR";
    Tensor &out = ctx.allocateOutput(0, DType::kI32, in.dims());
    for (int64_t i = 0; i < in.numElements(); ++i) {
      const std::string &s = in.strings()[i];
      int32_t n = static_cast<int32_t>(s.size());
      if (chars) // count bytes that do not continue a UTF-8 sequence
        n = static_cast<int32_t>(std::count_if(s.begin(), s.end(), [](char c) {
          return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        }));
      out.data<int32_t>()[i] = n;
    }
  }
};

class SubstrKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0), &pos = ctx.input(1), &len = ctx.input(2);
    if (pos.dims() != len.dims())
      return ctx.fail(invalidArgument(
          "pos and len should have the same shape, got: " +
          ir::dimsString(pos.dims()) + " vs. " + ir::dimsString(len.dims())));
    auto dims = broadcastDims(in.dims(), pos.dims());
    if (!dims)
      return ctx.fail(invalidArgument("Incompatible shapes: " +
                                      ir::dimsString(in.dims()) + " vs. " +
                                      ir::dimsString(pos.dims())));
    Tensor &out = ctx.allocateOutput(0, DType::kString, *dims);
    for (int64_t i = 0; i < out.numElements(); ++i) {
      int64_t si = broadcastIndex(i, *dims, in.dims());
      int64_t pi = broadcastIndex(i, *dims, pos.dims());
      const std::string &s = in.strings()[si];
      int64_t p = pos.elementAsInt(pi), l = len.elementAsInt(pi);
      int64_t size = static_cast<int64_t>(s.size());
      // Negative positions count from the end (TF >= 1.13).
      if (p < -size || p > size)
        return ctx.fail(invalidArgument(
            "pos " + std::to_string(p) + " out of range for string b'" + s +
            "' at index " + std::to_string(i)));
      if (p < 0)
        p += size;
      out.strings()[i] = s.substr(p, l < 0 ? std::string::npos : l);
    }
  }
};

class StringStripKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    Tensor &out = ctx.allocateOutput(0, DType::kString, in.dims());
    auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)); };
    for (int64_t i = 0; i < in.numElements(); ++i) {
      const std::string &s = in.strings()[i];
      size_t b = 0, e = s.size();
      while (b < e && space(s[b]))
        ++b;
      while (e > b && space(s[e - 1]))
        --e;
      out.strings()[i] = s.substr(b, e - b);
    }
  }
};

// The pattern is an attr, so it is compiled once when the kernel is made.
class RegexFullMatchKernel : public OpKernel {
public:
  RegexFullMatchKernel(const ir::Node &n, std::regex re)
      : OpKernel(n), re_(std::move(re)) {}
  void compute(KernelContext &ctx) override {
    const Tensor &in = ctx.input(0);
    Tensor &out = ctx.allocateOutput(0, DType::kBool, in.dims());
    for (int64_t i = 0; i < in.numElements(); ++i)
      out.data<bool>()[i] = std::regex_match(in.strings()[i], re_);
  }

private:
  std::regex re_;
};

} // namespace

void registerStringKernels(KernelRegistry &reg) {
  reg.addSimple<StringJoinKernel>("string_join");
  reg.addSimple<StringSplitKernel>("string_split");
  reg.addSimple<StringToNumberKernel>("string_to_number");
  reg.addSimple<AsStringKernel>("as_string");
  reg.addSimple<StringLengthKernel>("string_length");
  reg.addSimple<SubstrKernel>("substr");
  reg.addSimple<StringStripKernel>("string_strip");
  reg.add("regex_full_match", "CPU",
          [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
            const auto &pattern = n.attr<std::string>("pattern");
            try {
              std::regex re(pattern, std::regex::ECMAScript);
              return std::unique_ptr<OpKernel>(
                  std::make_unique<RegexFullMatchKernel>(n, std::move(re)));
            } catch (const std::regex_error &e) {
              return invalidArgument("Invalid pattern: " + pattern +
                                     ", error: " + e.what());
            }
          });
}

} // namespace sluice::backend
