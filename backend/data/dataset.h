// backend/data/dataset.h: tf.data's model. A dataset is an immutable
// description (a variant tensor's value) that makes iterators; an iterator
// yields elements, each a fixed list of tensors (the flattened structure the
// frontend knows). Transformations hold their input dataset and, per
// iterator, an iterator of it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend/function.h"
#include "ir/shape.h"
#include "ir/tensor.h"
#include "support/cancellation.h"
#include "support/status.h"

namespace sluice::backend {
class ResourceMgr;
}

namespace sluice::backend::data {

/// What an iterator needs from the step that advances it.
struct IteratorContext {
  ResourceMgr *resources = nullptr;
  /// The get_next step's cancellation (a prefetch thread has its own).
  CancellationManager *cancellation = nullptr;
  CallFrame frame() const { return CallFrame{resources, cancellation}; }
};

using Element = std::vector<ir::Tensor>;

class IteratorBase {
public:
  virtual ~IteratorBase() = default;
  /// The next element into `out`, or `end` = true when there is none
  /// (and on every later call). Errors (a failing map function, a missing
  /// file) are returned; the iterator may be advanced again afterwards.
  virtual Status getNext(IteratorContext &ctx, Element &out, bool &end) = 0;
};

class DatasetBase : public ir::VariantValue {
public:
  DatasetBase(std::vector<ir::DType> types, std::vector<ir::Shape> shapes)
      : types_(std::move(types)), shapes_(std::move(shapes)) {}
  std::string typeName() const override { return "dataset"; }
  std::string debugString() const override { return "<dataset " + kind() + ">"; }
  /// TF's class name without "Dataset": "TensorSlice", "Map", ...
  virtual std::string kind() const = 0;
  /// A fresh iterator at the first element. The dataset must outlive it.
  virtual std::unique_ptr<IteratorBase> makeIterator() const = 0;

  const std::vector<ir::DType> &outputTypes() const { return types_; }
  const std::vector<ir::Shape> &outputShapes() const { return shapes_; }

private:
  std::vector<ir::DType> types_;
  std::vector<ir::Shape> shapes_;
};

using DatasetPtr = std::shared_ptr<const DatasetBase>;

/// The dataset in a variant scalar, or invalid_argument naming `what`.
Expected<DatasetPtr> datasetFrom(const ir::Tensor &t, const char *what);
ir::Tensor datasetTensor(DatasetPtr d);

// Sources (source_datasets.cc).
/// Checks ranks and leading dims (invalid_argument as TF's kernel says).
Expected<DatasetPtr> makeTensorSliceDataset(std::vector<ir::Tensor> components,
                                            std::vector<ir::Shape> shapes);
Expected<DatasetPtr> makeRangeDataset(int64_t start, int64_t stop, int64_t step);
DatasetPtr makeTextLineDataset(std::vector<std::string> files);

// Transformations (transform_datasets.cc, shuffle_dataset.cc,
// prefetch_dataset.cc).
DatasetPtr makeMapDataset(DatasetPtr input, std::shared_ptr<const Function> fn,
                          std::vector<ir::Tensor> captured, std::vector<ir::DType> types,
                          std::vector<ir::Shape> shapes);
DatasetPtr makeFilterDataset(DatasetPtr input, std::shared_ptr<const Function> pred,
                             std::vector<ir::Tensor> captured);
Expected<DatasetPtr> makeBatchDataset(DatasetPtr input, int64_t batchSize, bool dropRemainder,
                                      std::vector<ir::Shape> shapes);
DatasetPtr makeRepeatDataset(DatasetPtr input, int64_t count);
/// take(count) / skip(count); count -1 takes all / skips all.
DatasetPtr makeTakeDataset(DatasetPtr input, int64_t count);
DatasetPtr makeSkipDataset(DatasetPtr input, int64_t count);
Expected<DatasetPtr> makeShuffleDataset(DatasetPtr input, int64_t bufferSize, int64_t seed,
                                        int64_t seed2, bool reshuffleEachIteration);
Expected<DatasetPtr> makePrefetchDataset(DatasetPtr input, int64_t bufferSize);

} // namespace sluice::backend::data
