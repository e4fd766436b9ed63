// backend/data/transform_datasets.cc: map, filter, batch, repeat, take and
// skip.
#include "backend/cpu/array_copy.h"
#include "backend/data/dataset.h"

namespace sluice::backend::data {

namespace {

// Prefixes errors from a user function with the transformation, so a
// failure deep in a map body still says which map it came from.
Status inFunction(Status s, const char *what, const Function &fn) {
  if (s.isOk())
    return s;
  return Status(s.code(), std::string(what) + " function '" + fn.def().name + "': " + s.message(),
                s.loc(), s.node());
}

class MapDataset : public DatasetBase {
public:
  MapDataset(DatasetPtr input, std::shared_ptr<const Function> fn, std::vector<ir::Tensor> captured,
             std::vector<ir::DType> types, std::vector<ir::Shape> shapes)
      : DatasetBase(std::move(types), std::move(shapes)), input_(std::move(input)),
        fn_(std::move(fn)), captured_(std::move(captured)) {}
  std::string kind() const override { return "Map"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const MapDataset &d) : d_(d), in_(d.input_->makeIterator()) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      Element args;
      SLUICE_TRY(in_->getNext(ctx, args, end));
      if (end)
        return Status::ok();
      args.insert(args.end(), d_.captured_.begin(), d_.captured_.end());
      auto r = d_.fn_->call(args, ctx.frame());
      if (!r.hasValue())
        return inFunction(r.takeStatus(), "map", *d_.fn_);
      if (r->size() != d_.outputTypes().size())
        return internalError("map function '" + d_.fn_->def().name + "' returned " +
                             std::to_string(r->size()) + " values, expected " +
                             std::to_string(d_.outputTypes().size()));
      out = std::move(*r);
      return Status::ok();
    }

  private:
    const MapDataset &d_;
    std::unique_ptr<IteratorBase> in_;
  };

  DatasetPtr input_;
  std::shared_ptr<const Function> fn_;
  std::vector<ir::Tensor> captured_;
};

class FilterDataset : public DatasetBase {
public:
  FilterDataset(DatasetPtr input, std::shared_ptr<const Function> pred,
                std::vector<ir::Tensor> captured)
      : DatasetBase(input->outputTypes(), input->outputShapes()), input_(std::move(input)),
        pred_(std::move(pred)), captured_(std::move(captured)) {}
  std::string kind() const override { return "Filter"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const FilterDataset &d) : d_(d), in_(d.input_->makeIterator()) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      for (;;) {
        SLUICE_TRY(in_->getNext(ctx, out, end));
        if (end)
          return Status::ok();
        Element args = out;
        args.insert(args.end(), d_.captured_.begin(), d_.captured_.end());
        auto r = d_.pred_->call(args, ctx.frame());
        if (!r.hasValue())
          return inFunction(r.takeStatus(), "filter", *d_.pred_);
        if (r->size() != 1 || (*r)[0].dtype() != ir::DType::kBool || (*r)[0].numElements() != 1 ||
            (*r)[0].rank() != 0)
          return invalidArgument("Filter predicate `" + d_.pred_->def().name +
                                 "` must return a scalar bool.");
        if ((*r)[0].scalarValue<bool>())
          return Status::ok();
      }
    }

  private:
    const FilterDataset &d_;
    std::unique_ptr<IteratorBase> in_;
  };

  DatasetPtr input_;
  std::shared_ptr<const Function> pred_;
  std::vector<ir::Tensor> captured_;
};

class BatchDataset : public DatasetBase {
public:
  BatchDataset(DatasetPtr input, int64_t batchSize, bool drop, std::vector<ir::Shape> shapes)
      : DatasetBase(input->outputTypes(), std::move(shapes)), input_(std::move(input)),
        batchSize_(batchSize), drop_(drop) {}
  std::string kind() const override { return "Batch"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const BatchDataset &d) : d_(d), in_(d.input_->makeIterator()) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      std::vector<Element> rows;
      while (!inputEnded_ && static_cast<int64_t>(rows.size()) < d_.batchSize_) {
        Element e;
        bool inEnd = false;
        SLUICE_TRY(in_->getNext(ctx, e, inEnd));
        if (inEnd) {
          inputEnded_ = true;
          break;
        }
        rows.push_back(std::move(e));
      }
      if (rows.empty() ||
          (d_.drop_ && static_cast<int64_t>(rows.size()) < d_.batchSize_)) {
        end = true;
        return Status::ok();
      }
      out.clear();
      for (size_t c = 0; c < rows[0].size(); ++c) {
        const ir::Tensor &first = rows[0][c];
        for (size_t r = 1; r < rows.size(); ++r)
          if (rows[r][c].dims() != first.dims())
            return invalidArgument(
                "Cannot batch tensors with different shapes in component " + std::to_string(c) +
                ". First element had shape " + ir::Shape(first.dims()).str() + " and element " +
                std::to_string(r) + " had shape " + ir::Shape(rows[r][c].dims()).str() + ".");
        ir::Dims dims{static_cast<int64_t>(rows.size())};
        dims.insert(dims.end(), first.dims().begin(), first.dims().end());
        ir::Tensor batch = ir::Tensor::uninitialized(first.dtype(), dims);
        int64_t n = first.numElements();
        for (size_t r = 0; r < rows.size(); ++r)
          copyElements(rows[r][c], 0, batch, static_cast<int64_t>(r) * n, n);
        out.push_back(std::move(batch));
      }
      end = false;
      return Status::ok();
    }

  private:
    const BatchDataset &d_;
    std::unique_ptr<IteratorBase> in_;
    bool inputEnded_ = false;
  };

  DatasetPtr input_;
  int64_t batchSize_;
  bool drop_;
};

class RepeatDataset : public DatasetBase {
public:
  RepeatDataset(DatasetPtr input, int64_t count)
      : DatasetBase(input->outputTypes(), input->outputShapes()), input_(std::move(input)),
        count_(count) {}
  std::string kind() const override { return "Repeat"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const RepeatDataset &d) : d_(d) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      for (;;) {
        if (!in_) {
          if (d_.count_ >= 0 && epoch_ >= d_.count_) {
            end = true;
            return Status::ok();
          }
          in_ = d_.input_->makeIterator();
          epochHadElements_ = false;
        }
        SLUICE_TRY(in_->getNext(ctx, out, end));
        if (!end) {
          epochHadElements_ = true;
          return Status::ok();
        }
        in_.reset();
        ++epoch_;
        // An empty input repeated forever would loop here forever; TF ends
        // the sequence instead.
        if (!epochHadElements_ && d_.count_ < 0) {
          end = true;
          return Status::ok();
        }
      }
    }

  private:
    const RepeatDataset &d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t epoch_ = 0;
    bool epochHadElements_ = false;
  };

  DatasetPtr input_;
  int64_t count_;
};

// take(n) and skip(n): one class, the count applies to the front.
class TakeSkipDataset : public DatasetBase {
public:
  TakeSkipDataset(DatasetPtr input, int64_t count, bool take)
      : DatasetBase(input->outputTypes(), input->outputShapes()), input_(std::move(input)),
        count_(count), take_(take) {}
  std::string kind() const override { return take_ ? "Take" : "Skip"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    return std::make_unique<Iterator>(*this);
  }

private:
  class Iterator : public IteratorBase {
  public:
    explicit Iterator(const TakeSkipDataset &d) : d_(d), in_(d.input_->makeIterator()) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      if (d_.take_) {
        if (d_.count_ >= 0 && seen_ >= d_.count_) {
          end = true;
          return Status::ok();
        }
        SLUICE_TRY(in_->getNext(ctx, out, end));
        seen_ += !end;
        return Status::ok();
      }
      while (d_.count_ < 0 || seen_ < d_.count_) {
        SLUICE_TRY(in_->getNext(ctx, out, end));
        if (end)
          return Status::ok();
        ++seen_;
      }
      return in_->getNext(ctx, out, end);
    }

  private:
    const TakeSkipDataset &d_;
    std::unique_ptr<IteratorBase> in_;
    int64_t seen_ = 0;
  };

  DatasetPtr input_;
  int64_t count_;
  bool take_;
};

} // namespace

DatasetPtr makeTakeDataset(DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(input), count, true);
}

DatasetPtr makeSkipDataset(DatasetPtr input, int64_t count) {
  return std::make_shared<TakeSkipDataset>(std::move(input), count, false);
}

DatasetPtr makeMapDataset(DatasetPtr input, std::shared_ptr<const Function> fn,
                          std::vector<ir::Tensor> captured, std::vector<ir::DType> types,
                          std::vector<ir::Shape> shapes) {
  return std::make_shared<MapDataset>(std::move(input), std::move(fn), std::move(captured),
                                      std::move(types), std::move(shapes));
}

DatasetPtr makeFilterDataset(DatasetPtr input, std::shared_ptr<const Function> pred,
                             std::vector<ir::Tensor> captured) {
  return std::make_shared<FilterDataset>(std::move(input), std::move(pred), std::move(captured));
}

Expected<DatasetPtr> makeBatchDataset(DatasetPtr input, int64_t batchSize, bool dropRemainder,
                                      std::vector<ir::Shape> shapes) {
  if (batchSize <= 0)
    return invalidArgument("Batch size must be greater than zero.");
  return DatasetPtr(std::make_shared<BatchDataset>(std::move(input), batchSize, dropRemainder,
                                                   std::move(shapes)));
}

DatasetPtr makeRepeatDataset(DatasetPtr input, int64_t count) {
  return std::make_shared<RepeatDataset>(std::move(input), count);
}

} // namespace sluice::backend::data
