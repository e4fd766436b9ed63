// backend/data/iterator_resource.h: the iterator a graph's iterator ops
// share through the resource manager: the dataset it was made from and
// the position in it. get_next calls are serialized, as in TF.
#pragma once

#include <mutex>

#include "backend/data/dataset.h"
#include "backend/resource_mgr.h"

namespace sluice::backend::data {

class IteratorResource : public Resource {
public:
  IteratorResource(std::vector<ir::DType> types, std::vector<ir::Shape> shapes)
      : types_(std::move(types)), shapes_(std::move(shapes)) {}
  std::string kind() const override { return "Iterator"; }

  /// Starts over at the beginning of `dataset` (make_iterator). Its
  /// element types must be the iterator's.
  Status reset(DatasetPtr dataset);
  /// For one-shot iterators: resets only the first time.
  Status initializeOnce(DatasetPtr dataset);
  /// The next element; out_of_range "End of sequence" at the end and on
  /// every later call; failed_precondition before initialization.
  Status getNext(IteratorContext &ctx, Element &out);

  const std::vector<ir::DType> &outputTypes() const { return types_; }

private:
  Status checkTypes(const DatasetBase &d) const;

  std::mutex mu_;
  std::vector<ir::DType> types_;
  std::vector<ir::Shape> shapes_;
  DatasetPtr dataset_;
  // Declared after dataset_: destroyed first, while its dataset lives.
  std::unique_ptr<IteratorBase> it_;
  bool ended_ = false;
};

} // namespace sluice::backend::data
