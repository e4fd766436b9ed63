// backend/data/shuffle_dataset.cc: TF's shuffle: a buffer of buffer_size
// elements filled from the input; each get_next returns a uniformly chosen
// buffered element and refills its slot from the input.
#include <atomic>
#include <random>

#include "backend/data/dataset.h"

namespace sluice::backend::data {

namespace {

class ShuffleDataset : public DatasetBase {
public:
  ShuffleDataset(DatasetPtr input, int64_t bufferSize, int64_t seed, int64_t seed2, bool reshuffle)
      : DatasetBase(input->outputTypes(), input->outputShapes()), input_(std::move(input)),
        bufferSize_(bufferSize), seeded_(seed != 0 || seed2 != 0), seed_(seed), seed2_(seed2),
        reshuffle_(reshuffle) {}
  std::string kind() const override { return "Shuffle"; }
  std::unique_ptr<IteratorBase> makeIterator() const override {
    // With reshuffle_each_iteration, each iterator (each epoch under
    // repeat) draws a new order; seeded runs still repeat exactly.
    uint64_t iteration = reshuffle_ ? iterations_.fetch_add(1) : 0;
    uint64_t s;
    if (seeded_) {
      std::seed_seq seq{static_cast<uint64_t>(seed_), static_cast<uint64_t>(seed2_), iteration};
      uint64_t parts[2];
      seq.generate(parts, parts + 2);
      s = (parts[0] << 32) ^ parts[1];
    } else {
      s = (static_cast<uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
    }
    return std::make_unique<Iterator>(*this, s);
  }

private:
  class Iterator : public IteratorBase {
  public:
    Iterator(const ShuffleDataset &d, uint64_t seed)
        : d_(d), in_(d.input_->makeIterator()), rng_(seed) {}
    Status getNext(IteratorContext &ctx, Element &out, bool &end) override {
      while (!inputEnded_ && static_cast<int64_t>(buffer_.size()) < d_.bufferSize_) {
        Element e;
        bool inEnd = false;
        SLUICE_TRY(in_->getNext(ctx, e, inEnd));
        if (inEnd) {
          inputEnded_ = true;
          break;
        }
        buffer_.push_back(std::move(e));
      }
      if (buffer_.empty()) {
        end = true;
        return Status::ok();
      }
      size_t pick = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
      out = std::move(buffer_[pick]);
      buffer_[pick] = std::move(buffer_.back());
      buffer_.pop_back();
      end = false;
      return Status::ok();
    }

  private:
    const ShuffleDataset &d_;
    std::unique_ptr<IteratorBase> in_;
    std::mt19937_64 rng_;
    std::vector<Element> buffer_;
    bool inputEnded_ = false;
  };

  DatasetPtr input_;
  int64_t bufferSize_;
  bool seeded_;
  int64_t seed_, seed2_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> iterations_{0};
};

} // namespace

Expected<DatasetPtr> makeShuffleDataset(DatasetPtr input, int64_t bufferSize, int64_t seed,
                                        int64_t seed2, bool reshuffleEachIteration) {
  if (bufferSize <= 0)
    return invalidArgument("buffer_size must be greater than zero.");
  return DatasetPtr(std::make_shared<ShuffleDataset>(std::move(input), bufferSize, seed, seed2,
                                                     reshuffleEachIteration));
}

} // namespace sluice::backend::data
