// backend/data/source_datasets.cc: datasets that start a pipeline: the
// slices of tensors, a range of integers, the lines of text files.
#include "backend/cpu/array_copy.h"
#include "backend/data/dataset.h"
#include "backend/io/buffered_file.h"

namespace sluice::backend::data {

Expected<DatasetPtr> datasetFrom(const ir::Tensor &t, const char *what) {
  if (t.dtype() != ir::DType::kVariant || t.numElements() != 1)
    return invalidArgument(std::string(what) + " must be a dataset (a variant scalar)");
  auto d = std::dynamic_pointer_cast<const DatasetBase>(t.variants()[0]);
  if (!d)
    return invalidArgument(std::string(what) + " holds " +
                           (t.variants()[0] ? t.variants()[0]->debugString() : "nothing") +
                           ", not a dataset");
  return d;
}

ir::Tensor datasetTensor(DatasetPtr d) { return ir::Tensor::scalarVariant(std::move(d)); }

namespace {

class TensorSliceDataset : public DatasetBase {
public:
  TensorSliceDataset(std::vector<ir::Tensor> components, std::vector<ir::Shape> shapes)
      : DatasetBase(typesOf(components), std::move(shapes)), components_(std::move(components)) {}
  std::string kind() const override { return "TensorSlice"; }

  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  static std::vector<ir::DType> typesOf(const std::vector<ir::Tensor> &c) {
    std::vector<ir::DType> out;
    for (const auto &t : c)
      out.push_back(t.dtype());
    return out;
  }

  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const TensorSliceDataset &d) : d_(d) {}
    Status getNext(IteratorContext &, Element &out, bool &end) override {
      const auto &cs = d_.components_;
      if (i_ >= cs[0].dim(0)) {
        end = true;
        return Status::ok();
      }
      out.clear();
      for (const ir::Tensor &c : cs) {
        ir::Dims rowDims(c.dims().begin() + 1, c.dims().end());
        ir::Tensor row = ir::Tensor::uninitialized(c.dtype(), rowDims);
        int64_t n = row.numElements();
        copyElements(c, i_ * n, row, 0, n);
        out.push_back(std::move(row));
      }
      ++i_;
      end = false;
      return Status::ok();
    }

  private:
    const TensorSliceDataset &d_;
    int64_t i_ = 0;
  };

  std::vector<ir::Tensor> components_;
};

class RangeDataset : public DatasetBase {
public:
  RangeDataset(int64_t start, int64_t stop, int64_t step)
      : DatasetBase({ir::DType::kI64}, {ir::Shape::scalar()}), start_(start), stop_(stop),
        step_(step) {}
  std::string kind() const override { return "Range"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const RangeDataset &d) : d_(d), next_(d.start_) {}
    Status getNext(IteratorContext &, Element &out, bool &end) override {
      if (d_.step_ > 0 ? next_ >= d_.stop_ : next_ <= d_.stop_) {
        end = true;
        return Status::ok();
      }
      out.assign(1, ir::Tensor::scalar<int64_t>(next_));
      // Stop instead of overflowing past the last representable value.
      if (__builtin_add_overflow(next_, d_.step_, &next_))
        next_ = d_.stop_;
      end = false;
      return Status::ok();
    }

  private:
    const RangeDataset &d_;
    int64_t next_;
  };

  int64_t start_, stop_, step_;
};

class TextLineDataset : public DatasetBase {
public:
  explicit TextLineDataset(std::vector<std::string> files)
      : DatasetBase({ir::DType::kString}, {ir::Shape::scalar()}), files_(std::move(files)) {}
  std::string kind() const override { return "TextLine"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const TextLineDataset &d) : d_(d) {}
    Status getNext(IteratorContext &, Element &out, bool &end) override {
      for (;;) {
        if (!open_) {
          if (next_ >= d_.files_.size()) {
            end = true;
            return Status::ok();
          }
          // A file that fails to open is skipped after the error is
          // reported, so the next get_next goes on with the next file.
          const std::string &path = d_.files_[next_++];
          SLUICE_TRY(file_.open(path));
          open_ = true;
        }
        std::string line;
        SLUICE_ASSIGN_OR_RETURN(bool got, file_.readLine(&line));
        if (got) {
          out.assign(1, ir::Tensor::scalarString(std::move(line)));
          end = false;
          return Status::ok();
        }
        file_.close();
        open_ = false;
      }
    }

  private:
    const TextLineDataset &d_;
    size_t next_ = 0;
    bool open_ = false;
    io::BufferedFile file_;
  };

  std::vector<std::string> files_;
};

} // namespace

Expected<DatasetPtr> makeTensorSliceDataset(std::vector<ir::Tensor> components,
                                            std::vector<ir::Shape> shapes) {
  if (components.empty())
    return invalidArgument("tensor_slice_dataset needs at least one component");
  for (const ir::Tensor &c : components)
    if (c.rank() < 1)
      return invalidArgument("All components must be at least 1-dimensional");
  for (const ir::Tensor &c : components)
    if (c.dim(0) != components[0].dim(0))
      return invalidArgument("All components must have the same size in the 0th dimension");
  return DatasetPtr(std::make_shared<TensorSliceDataset>(std::move(components), std::move(shapes)));
}

Expected<DatasetPtr> makeRangeDataset(int64_t start, int64_t stop, int64_t step) {
  if (step == 0)
    return invalidArgument("step must be a non-zero integer.");
  return DatasetPtr(std::make_shared<RangeDataset>(start, stop, step));
}

DatasetPtr makeTextLineDataset(std::vector<std::string> files) {
  return std::make_shared<TextLineDataset>(std::move(files));
}

} // namespace sluice::backend::data
