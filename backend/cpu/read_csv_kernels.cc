// backend/cpu/read_csv_kernels.cc: reader_read_csv, the fused form of
// reader_read(_up_to) + decode_csv (passes/fuse_read_decode.cc): each line
// is copied once into a read-wide buffer and parsed from there, so a record
// costs no string of its own, and a bad record's error names its file:line.
#include <optional>

#include "backend/handle_lookup.h"
#include "backend/io/csv_decoder.h"
#include "backend/io/reader_resource.h"
#include "backend/kernel_registry.h"

namespace sluice::backend {

namespace {

// Copies each line the reader hands over into one buffer (the reader's
// lock is held meanwhile, so only the copy happens under it); decode()
// parses them afterwards, outside the lock, so threads sharing a reader
// parse in parallel.
class CsvSink : public ReaderResource::RecordSink {
public:
  CsvSink(int64_t max, bool emitKeys) : emitKeys_(emitKeys) {
    size_t expect = static_cast<size_t>(std::min<int64_t>(max, 4096));
    ends_.reserve(expect);
    bytes_.reserve(expect * 32);
    if (emitKeys_)
      keys_.reserve(expect);
  }

  void add(std::string_view value, const io::RecordIterator &it) override {
    if (ends_.empty())
      first_ = it.numberedKey();
    // Keys are kept when the graph reads them, or when nothing else can
    // name a bad record later.
    if (emitKeys_ || !first_)
      keys_.push_back(it.currentKey());
    bytes_.append(value);
    ends_.push_back(bytes_.size());
  }

  int64_t count() const { return static_cast<int64_t>(ends_.size()); }

  /// Parses every record into columns of `rows` rows (or scalars).
  Status decode(const io::CsvDecoder &decoder, const std::vector<ir::Tensor> &defaults,
                bool upTo, std::vector<ir::Tensor> &cols) const {
    cols = decoder.allocate(upTo ? ir::Dims{count()} : ir::Dims{});
    io::CsvScratch scratch;
    size_t start = 0;
    for (int64_t r = 0; r < count(); ++r) {
      std::string_view record(bytes_.data() + start, ends_[r] - start);
      start = ends_[r];
      if (Status s = decoder.decode(record, r, defaults, cols, scratch); !s.isOk()) {
        // The happy path never builds a key; a failure decodes again to
        // word the error with the record's file:line.
        std::string origin = originOf(r);
        Status located = decoder.decode(record, r, defaults, cols, scratch, &origin);
        return located.isOk() ? s : located;
      }
    }
    return Status::ok();
  }

  std::vector<std::string> keys_;

private:
  std::string originOf(int64_t r) const {
    if (first_)
      return first_->first + ":" + std::to_string(first_->second + r);
    return keys_[static_cast<size_t>(r)];
  }

  bool emitKeys_;
  std::string bytes_;
  std::vector<size_t> ends_;
  std::optional<std::pair<std::string, int64_t>> first_;
};

class ReadCsvKernel : public OpKernel {
public:
  explicit ReadCsvKernel(const ir::Node &n)
      : OpKernel(n), decoder_(n), upTo_(n.attr<bool>("up_to")),
        emitKeys_(n.attr<bool>("emit_keys")) {}
  bool isAsync() const override { return true; }
  void compute(KernelContext &ctx) override {
    ctx.fail(internalError("reader_read_csv must run asynchronously"));
  }

  void computeAsync(KernelContext &ctx, std::function<void()> done) override {
    auto reader = lookupHandle<ReaderResource>(ctx, 0, "reader");
    if (!reader.hasValue()) {
      ctx.fail(reader.takeStatus());
      return done();
    }
    auto queue = lookupHandle<QueueInterface>(ctx, 1, "queue");
    if (!queue.hasValue()) {
      ctx.fail(queue.takeStatus());
      return done();
    }
    const ir::Tensor &num = ctx.input(2);
    if (num.numElements() != 1) {
      ctx.fail(invalidArgument("num_records must be a scalar"));
      return done();
    }
    int64_t n = upTo_ ? num.elementAsInt(0) : 1;
    if (n <= 0) {
      ctx.fail(invalidArgument("num_records must be > 0 but got " + std::to_string(n)));
      return done();
    }
    std::vector<ir::Tensor> given;
    for (size_t f = 0; f < decoder_.numColumns(); ++f)
      given.push_back(ctx.input(3 + static_cast<int>(f)));
    auto defaults = decoder_.checkDefaults(std::move(given));
    if (!defaults.hasValue()) {
      ctx.fail(defaults.takeStatus());
      return done();
    }
    auto sink = std::make_shared<CsvSink>(n, emitKeys_);
    bool upTo = upTo_, emitKeys = emitKeys_;
    const io::CsvDecoder *decoder = &decoder_;
    (*reader)->readUpTo(
        *queue, ctx.cancellation(), n, sink,
        [&ctx, sink, decoder, defaults = std::move(*defaults), upTo, emitKeys,
         done = std::move(done)](Status s, int64_t) {
          std::vector<ir::Tensor> cols;
          if (s.isOk())
            s = sink->decode(*decoder, defaults, upTo, cols);
          if (!s.isOk()) {
            ctx.fail(std::move(s));
            return done();
          }
          if (!emitKeys) {
            ctx.setOutput(0, ir::Tensor::scalarString(""));
          } else if (upTo) {
            ir::Tensor keys(ir::DType::kString, ir::Dims{static_cast<int64_t>(sink->keys_.size())});
            for (size_t i = 0; i < sink->keys_.size(); ++i)
              keys.strings()[i] = std::move(sink->keys_[i]);
            ctx.setOutput(0, std::move(keys));
          } else {
            ctx.setOutput(0, ir::Tensor::scalarString(std::move(sink->keys_[0])));
          }
          for (size_t f = 0; f < cols.size(); ++f)
            ctx.setOutput(1 + static_cast<int>(f), std::move(cols[f]));
          done();
        });
  }

private:
  io::CsvDecoder decoder_;
  bool upTo_, emitKeys_;
};

} // namespace

void registerReadCsvKernels(KernelRegistry &reg) { reg.addSimple<ReadCsvKernel>("reader_read_csv"); }

} // namespace sluice::backend
