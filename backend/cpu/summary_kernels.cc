// backend/cpu/summary_kernels.cc: CPU kernels for scalar_summary and
// merge_summary (TF's ScalarSummary and MergeSummary), serializing
// Summary protos with backend/io/event_file.h.
#include <set>

#include "backend/io/event_file.h"
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

class ScalarSummaryKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const ir::Tensor &tags = ctx.input(0);
    const ir::Tensor &values = ctx.input(1);
    if (tags.dims() != values.dims())
      return ctx.fail(invalidArgument("tags and values not the same shape: " +
                                      ir::dimsString(tags.dims()) +
                                      " != " + ir::dimsString(values.dims())));
    std::vector<io::ScalarValue> out;
    for (int64_t i = 0; i < tags.numElements(); ++i)
      out.push_back({tags.strings()[i], static_cast<float>(values.elementAsDouble(i))});
    ctx.setOutput(0, ir::Tensor::scalarString(io::encodeScalarSummary(out)));
  }
};

class MergeSummaryKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    std::string merged;
    std::set<std::string> tags;
    for (int i = 0; i < ctx.numInputs(); ++i) {
      const ir::Tensor &in = ctx.input(i);
      for (int64_t k = 0; k < in.numElements(); ++k) {
        const std::string &bytes = in.strings()[k];
        auto values = io::decodeScalarSummary(bytes);
        if (!values.hasValue())
          return ctx.fail(invalidArgument("Could not parse one of the summary inputs"));
        for (const io::ScalarValue &v : *values)
          if (!tags.insert(v.tag).second)
            return ctx.fail(
                invalidArgument("Duplicate tag " + v.tag + " found in summary inputs"));
        // A serialized message's repeated fields concatenate: the bytes
        // joined are the merged Summary.
        merged += bytes;
      }
    }
    ctx.setOutput(0, ir::Tensor::scalarString(std::move(merged)));
  }
};

} // namespace

void registerSummaryKernels(KernelRegistry &reg) {
  reg.addSimple<ScalarSummaryKernel>("scalar_summary");
  reg.addSimple<MergeSummaryKernel>("merge_summary");
}

} // namespace sluice::backend
