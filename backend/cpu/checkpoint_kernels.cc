// backend/cpu/checkpoint_kernels.cc: CPU kernels for save_checkpoint and
// restore_checkpoint (TF's SaveV2 and RestoreV2, in Sluice's format,
// backend/io/checkpoint.h). A restore checks every tensor before it
// outputs any, so the assigns that read its outputs run for all variables
// or for none: a restore never half-applies.
#include "backend/io/checkpoint.h"
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

Expected<std::string> prefixInput(KernelContext &ctx) {
  const ir::Tensor &p = ctx.input(0);
  if (p.dtype() != ir::DType::kString || p.numElements() != 1)
    return invalidArgument("the checkpoint prefix must be a string scalar, got shape " +
                           ir::dimsString(p.dims()));
  if (p.strings()[0].empty())
    return invalidArgument("the checkpoint prefix is empty");
  return p.strings()[0];
}

class SaveCheckpointKernel : public OpKernel {
public:
  explicit SaveCheckpointKernel(const ir::Node &n)
      : OpKernel(n), names_(n.attr<std::vector<std::string>>("tensor_names")),
        shards_(n.attr<std::vector<int64_t>>("shards")),
        numShards_(static_cast<int>(n.attr<int64_t>("num_shards"))) {}

  void compute(KernelContext &ctx) override {
    auto prefix = prefixInput(ctx);
    if (!prefix.hasValue())
      return ctx.fail(prefix.takeStatus());
    std::vector<io::SaveEntry> entries;
    for (size_t i = 0; i < names_.size(); ++i) {
      io::SaveEntry e;
      e.name = names_[i];
      e.value = ctx.input(static_cast<int>(i) + 1);
      e.shard = shards_.empty() ? 0 : static_cast<int>(shards_[i]);
      entries.push_back(std::move(e));
    }
    io::CheckpointWriteOptions opts;
    opts.numShards = numShards_;
    if (Status s = io::writeCheckpoint(*prefix, entries, opts); !s)
      ctx.fail(std::move(s));
  }

private:
  std::vector<std::string> names_;
  std::vector<int64_t> shards_;
  int numShards_;
};

class RestoreCheckpointKernel : public OpKernel {
public:
  explicit RestoreCheckpointKernel(const ir::Node &n)
      : OpKernel(n), names_(n.attr<std::vector<std::string>>("tensor_names")),
        dtypes_(n.attr<std::vector<ir::DType>>("dtypes")),
        shapes_(n.attr<std::vector<ir::Shape>>("shapes")),
        variables_(n.attr<std::vector<std::string>>("variable_names")) {}

  void compute(KernelContext &ctx) override {
    auto prefix = prefixInput(ctx);
    if (!prefix.hasValue())
      return ctx.fail(prefix.takeStatus());
    auto reader = io::CheckpointReader::open(*prefix);
    if (!reader.hasValue())
      return ctx.fail(reader.takeStatus());
    const std::string index = io::checkpointIndexPath(*prefix);
    // Every name, dtype and shape first (cheap, from the index), then every
    // payload; outputs only once all of them passed.
    std::vector<const io::CheckpointEntry *> found;
    for (size_t i = 0; i < names_.size(); ++i) {
      const io::CheckpointEntry *e = (*reader)->find(names_[i]);
      if (!e)
        return ctx.fail(notFound("Key " + names_[i] + " not found in checkpoint " + *prefix +
                                 " (" + index + ")"));
      const std::string var = variables_.empty() ? names_[i] : variables_[i];
      if (e->dtype != dtypes_[i])
        return ctx.fail(invalidArgument(
            index + ": tensor '" + names_[i] + "' has dtype " +
            std::string(ir::dtypeName(e->dtype)) + ", but variable '" + var + "' has dtype " +
            std::string(ir::dtypeName(dtypes_[i]))));
      if (!shapes_.empty() && !shapes_[i].isCompatibleWith(ir::Shape(e->dims)))
        return ctx.fail(invalidArgument(index + ": tensor '" + names_[i] + "' has shape " +
                                        ir::dimsString(e->dims) + ", but variable '" + var +
                                        "' has shape " + shapes_[i].str()));
      found.push_back(e);
    }
    std::vector<ir::Tensor> values;
    for (const io::CheckpointEntry *e : found) {
      auto t = (*reader)->read(*e);
      if (!t.hasValue())
        return ctx.fail(t.takeStatus());
      values.push_back(std::move(*t));
    }
    for (size_t i = 0; i < values.size(); ++i)
      ctx.setOutput(static_cast<int>(i), std::move(values[i]));
  }

private:
  std::vector<std::string> names_;
  std::vector<ir::DType> dtypes_;
  std::vector<ir::Shape> shapes_;
  std::vector<std::string> variables_;
};

} // namespace

void registerCheckpointKernels(KernelRegistry &reg) {
  reg.addSimple<SaveCheckpointKernel>("save_checkpoint");
  reg.addSimple<RestoreCheckpointKernel>("restore_checkpoint");
}

} // namespace sluice::backend
