// backend/cpu/dataset_kernels.cc: kernels of the dataset ops (each builds a
// dataset value from its inputs) and of the iterator ops (a resource in the
// step's resource manager, like a queue).
#include "backend/data/iterator_resource.h"
#include "backend/function.h"
#include "backend/kernel_registry.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {

using data::DatasetPtr;

std::vector<ir::DType> typesAttr(const ir::Node &n, const char *name) {
  return n.attr<std::vector<ir::DType>>(name);
}
std::vector<ir::Shape> shapesAttr(const ir::Node &n) {
  return n.attr<std::vector<ir::Shape>>("output_shapes");
}

Expected<int64_t> scalarInt(KernelContext &ctx, int i, const char *what) {
  const ir::Tensor &t = ctx.input(i);
  if (t.numElements() != 1 || t.rank() != 0)
    return invalidArgument(std::string(what) + " must be a scalar, got shape " +
                           ir::Shape(t.dims()).str());
  return t.elementAsInt(0);
}

// A kernel whose whole job is one call producing a dataset.
template <typename F> class DatasetKernel : public OpKernel {
public:
  DatasetKernel(const ir::Node &n, F make) : OpKernel(n), make_(std::move(make)) {}
  void compute(KernelContext &ctx) override {
    Expected<DatasetPtr> d = make_(ctx);
    if (!d.hasValue())
      return ctx.fail(d.takeStatus());
    ctx.setOutput(0, data::datasetTensor(std::move(*d)));
  }

private:
  F make_;
};

template <typename F> void addDataset(KernelRegistry &reg, const char *op, F make) {
  reg.add(op, "CPU", [make](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(new DatasetKernel<F>(n, make));
  });
}

Expected<std::shared_ptr<const Function>> instantiate(KernelContext &ctx, const char *attr) {
  if (!ctx.functions())
    return internalError("no function runtime in this step");
  return ctx.functions()->instantiate(ctx.node().attr<std::string>(attr));
}

std::vector<ir::Tensor> inputsFrom(KernelContext &ctx, int first) {
  std::vector<ir::Tensor> out;
  for (int i = first; i < ctx.numInputs(); ++i)
    out.push_back(ctx.input(i));
  return out;
}

Expected<std::shared_ptr<data::IteratorResource>> iteratorFrom(KernelContext &ctx, int input) {
  const ir::Tensor &h = ctx.input(input);
  if (h.dtype() != ir::DType::kResource || h.numElements() != 1)
    return invalidArgument("expected a scalar iterator handle");
  if (!ctx.resources())
    return internalError("no resource manager in this step");
  auto [container, name] = decodeResourceKey(h.strings()[0]);
  auto r = ctx.resources()->lookup<data::IteratorResource>(container, name);
  if (!r)
    return notFound("Resource " + h.strings()[0] + " does not exist or is not an iterator");
  return r;
}

// iterator / one_shot_iterator: creates the resource on first use and
// outputs its handle; a one-shot iterator also starts on its dataset then.
class IteratorHandleKernel : public OpKernel {
public:
  IteratorHandleKernel(const ir::Node &n, bool oneShot)
      : OpKernel(n), oneShot_(oneShot), container_(n.attr<std::string>("container")),
        name_(n.attr<std::string>("shared_name")) {
    if (name_.empty())
      name_ = n.name();
  }
  void compute(KernelContext &ctx) override {
    if (!ctx.resources())
      return ctx.fail(internalError("no resource manager in this step"));
    const ir::Node &n = node();
    auto it = ctx.resources()->lookupOrCreate<data::IteratorResource>(
        container_, name_, [&]() -> Expected<std::shared_ptr<data::IteratorResource>> {
          return std::make_shared<data::IteratorResource>(typesAttr(n, "output_types"),
                                                          shapesAttr(n));
        });
    if (!it.hasValue())
      return ctx.fail(it.takeStatus());
    if (oneShot_) {
      auto d = data::datasetFrom(ctx.input(0), "dataset");
      if (!d.hasValue())
        return ctx.fail(d.takeStatus());
      Status s = (*it)->initializeOnce(std::move(*d));
      if (!s.isOk())
        return ctx.fail(std::move(s));
    }
    ir::Tensor &h = ctx.allocateOutput(0, ir::DType::kResource, {});
    h.strings()[0] = encodeResourceKey(container_, name_);
  }

private:
  bool oneShot_;
  std::string container_, name_;
};

class MakeIteratorKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto d = data::datasetFrom(ctx.input(0), "dataset");
    if (!d.hasValue())
      return ctx.fail(d.takeStatus());
    auto it = iteratorFrom(ctx, 1);
    if (!it.hasValue())
      return ctx.fail(it.takeStatus());
    Status s = (*it)->reset(std::move(*d));
    if (!s.isOk())
      ctx.fail(std::move(s));
  }
};

class GetNextKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto it = iteratorFrom(ctx, 0);
    if (!it.hasValue())
      return ctx.fail(it.takeStatus());
    data::IteratorContext ictx{ctx.resources(), ctx.cancellation()};
    data::Element e;
    Status s = (*it)->getNext(ictx, e);
    if (!s.isOk())
      return ctx.fail(std::move(s));
    if (static_cast<int>(e.size()) != ctx.numOutputs())
      return ctx.fail(invalidArgument("get_next expects " + std::to_string(ctx.numOutputs()) +
                                      " components, the iterator gives " +
                                      std::to_string(e.size())));
    for (int i = 0; i < ctx.numOutputs(); ++i)
      ctx.setOutput(i, std::move(e[i]));
  }
};

class FunctionArgKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    ctx.fail(invalidArgument("function_arg '" + node().name() +
                             "' has no value: it is set only when its function is called"));
  }
};

} // namespace

void registerDatasetKernels(KernelRegistry &reg) {
  reg.addSimple<FunctionArgKernel>("function_arg");
  addDataset(reg, "tensor_slice_dataset", [](KernelContext &ctx) {
    return data::makeTensorSliceDataset(inputsFrom(ctx, 0), shapesAttr(ctx.node()));
  });
  addDataset(reg, "range_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(int64_t start, scalarInt(ctx, 0, "start"));
    SLUICE_ASSIGN_OR_RETURN(int64_t stop, scalarInt(ctx, 1, "stop"));
    SLUICE_ASSIGN_OR_RETURN(int64_t step, scalarInt(ctx, 2, "step"));
    return data::makeRangeDataset(start, stop, step);
  });
  addDataset(reg, "text_line_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    const ir::Tensor &f = ctx.input(0);
    if (f.rank() > 1)
      return invalidArgument("filenames must be a scalar or a vector");
    std::vector<std::string> files(f.strings(), f.strings() + f.numElements());
    return data::makeTextLineDataset(std::move(files));
  });
  addDataset(reg, "map_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(auto fn, instantiate(ctx, "f"));
    return data::makeMapDataset(std::move(in), std::move(fn), inputsFrom(ctx, 1),
                                typesAttr(ctx.node(), "output_types"), shapesAttr(ctx.node()));
  });
  addDataset(reg, "filter_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(auto fn, instantiate(ctx, "predicate"));
    return data::makeFilterDataset(std::move(in), std::move(fn), inputsFrom(ctx, 1));
  });
  addDataset(reg, "batch_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t n, scalarInt(ctx, 1, "batch_size"));
    const ir::Tensor &drop = ctx.input(2);
    if (drop.numElements() != 1)
      return invalidArgument("drop_remainder must be a scalar");
    return data::makeBatchDataset(std::move(in), n, drop.scalarValue<bool>(),
                                  shapesAttr(ctx.node()));
  });
  addDataset(reg, "repeat_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t count, scalarInt(ctx, 1, "count"));
    return data::makeRepeatDataset(std::move(in), count);
  });
  addDataset(reg, "take_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t count, scalarInt(ctx, 1, "count"));
    return data::makeTakeDataset(std::move(in), count);
  });
  addDataset(reg, "skip_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t count, scalarInt(ctx, 1, "count"));
    return data::makeSkipDataset(std::move(in), count);
  });
  addDataset(reg, "shuffle_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t buffer, scalarInt(ctx, 1, "buffer_size"));
    SLUICE_ASSIGN_OR_RETURN(int64_t seed, scalarInt(ctx, 2, "seed"));
    SLUICE_ASSIGN_OR_RETURN(int64_t seed2, scalarInt(ctx, 3, "seed2"));
    if (ctx.deterministic() && seed == 0 && seed2 == 0)
      return failedPrecondition("shuffle has no seed and the session is deterministic: call "
                                "set_random_seed(...) or pass seed:");
    return data::makeShuffleDataset(std::move(in), buffer, seed, seed2,
                                    ctx.node().attr<bool>("reshuffle_each_iteration"));
  });
  addDataset(reg, "prefetch_dataset", [](KernelContext &ctx) -> Expected<DatasetPtr> {
    SLUICE_ASSIGN_OR_RETURN(DatasetPtr in, data::datasetFrom(ctx.input(0), "input_dataset"));
    SLUICE_ASSIGN_OR_RETURN(int64_t buffer, scalarInt(ctx, 1, "buffer_size"));
    return data::makePrefetchDataset(std::move(in), buffer);
  });
  reg.add("one_shot_iterator", "CPU", [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(new IteratorHandleKernel(n, true));
  });
  reg.add("iterator", "CPU", [](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(new IteratorHandleKernel(n, false));
  });
  reg.addSimple<MakeIteratorKernel>("make_iterator");
  reg.addSimple<GetNextKernel>("iterator_get_next");
}

} // namespace sluice::backend
