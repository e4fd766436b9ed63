// backend/cpu/parsing_kernels.cc: decode_csv (backend/io/csv_decoder.h does
// the parsing) and decode_raw.
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string_view>

#include "backend/io/csv_decoder.h"
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

using ir::DType;

class DecodeCsvKernel : public OpKernel {
public:
  explicit DecodeCsvKernel(const ir::Node &n) : OpKernel(n), decoder_(n) {}

  void compute(KernelContext &ctx) override {
    const ir::Tensor &records = ctx.input(0);
    if (records.dtype() != DType::kString)
      return ctx.fail(invalidArgument("records must be strings"));
    std::vector<ir::Tensor> given;
    for (size_t f = 0; f < decoder_.numColumns(); ++f)
      given.push_back(ctx.input(1 + static_cast<int>(f)));
    auto defaults = decoder_.checkDefaults(std::move(given));
    if (!defaults.hasValue())
      return ctx.fail(defaults.takeStatus());
    std::vector<ir::Tensor> cols = decoder_.allocate(records.dims());
    io::CsvScratch scratch;
    const std::string *recs = records.strings();
    for (int64_t r = 0; r < records.numElements(); ++r)
      if (Status s = decoder_.decode(recs[r], r, *defaults, cols, scratch); !s.isOk())
        return ctx.fail(std::move(s));
    for (size_t f = 0; f < cols.size(); ++f)
      ctx.setOutput(static_cast<int>(f), std::move(cols[f]));
  }

private:
  io::CsvDecoder decoder_;
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
