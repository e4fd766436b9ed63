// backend/data/iterator_resource.cc
#include "backend/data/iterator_resource.h"

namespace sluice::backend::data {

namespace {
std::string typeList(const std::vector<ir::DType> &ts) {
  std::string s = "(";
  for (size_t i = 0; i < ts.size(); ++i)
    s += (i ? ", " : "") + std::string(ir::dtypeName(ts[i]));
  return s + ")";
}
} // namespace

Status IteratorResource::checkTypes(const DatasetBase &d) const {
  if (d.outputTypes() != types_)
    return invalidArgument("The iterator's element types " + typeList(types_) +
                           " do not match the dataset's " + typeList(d.outputTypes()));
  return Status::ok();
}

Status IteratorResource::reset(DatasetPtr dataset) {
  SLUICE_TRY(checkTypes(*dataset));
  auto it = dataset->makeIterator();
  std::unique_ptr<IteratorBase> old;
  DatasetPtr oldDataset;
  {
    std::lock_guard<std::mutex> lock(mu_);
    old = std::move(it_);
    oldDataset = std::move(dataset_);
    dataset_ = std::move(dataset);
    it_ = std::move(it);
    ended_ = false;
  }
  // The old iterator (and a prefetch thread it may own) goes outside the
  // lock, before its dataset.
  old.reset();
  return Status::ok();
}

Status IteratorResource::initializeOnce(DatasetPtr dataset) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (it_)
      return Status::ok();
  }
  SLUICE_TRY(checkTypes(*dataset));
  auto it = dataset->makeIterator();
  std::lock_guard<std::mutex> lock(mu_);
  if (!it_) { // another step may have won the race
    dataset_ = std::move(dataset);
    it_ = std::move(it);
  }
  return Status::ok();
}

Status IteratorResource::getNext(IteratorContext &ctx, Element &out) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!it_)
    return failedPrecondition(
        "GetNext() failed because the iterator has not been initialized. Ensure that you have "
        "run the initializer operation for this iterator before getting the next element.");
  if (ended_)
    return outOfRange("End of sequence");
  bool end = false;
  SLUICE_TRY(it_->getNext(ctx, out, end));
  if (end) {
    ended_ = true;
    return outOfRange("End of sequence");
  }
  if (out.size() != types_.size())
    return internalError("the iterator's dataset produced " + std::to_string(out.size()) +
                         " components, expected " + std::to_string(types_.size()));
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i].dtype() != types_[i])
      return invalidArgument("component " + std::to_string(i) + " of the element is " +
                             std::string(ir::dtypeName(out[i].dtype())) + ", expected " +
                             std::string(ir::dtypeName(types_[i])));
  return Status::ok();
}

} // namespace sluice::backend::data
