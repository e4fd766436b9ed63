// backend/cpu/io_kernels.cc: CPU kernels of the reader ops (create the
// reader resource, read, read_up_to, counters, reset) and the file ops.
#include "backend/io/buffered_file.h"
#include "backend/handle_lookup.h"
#include "backend/io/reader_resource.h"
#include "backend/kernel_registry.h"
#include "backend/variable.h"

namespace sluice::backend {

namespace {

using io::RecordIterator;

/// Creates (once per session) the reader named by the node and outputs
/// its handle, like the variable kernel.
class ReaderOpKernel : public OpKernel {
public:
  ReaderOpKernel(const ir::Node &n, std::string kind,
                 ReaderResource::IteratorFactory factory, Status bad)
      : OpKernel(n), kind_(std::move(kind)), factory_(std::move(factory)),
        bad_(std::move(bad)), container_(n.attr<std::string>("container")),
        name_(n.attr<std::string>("shared_name")) {
    if (name_.empty())
      name_ = n.name();
    key_ = encodeResourceKey(container_, name_);
  }

  void compute(KernelContext &ctx) override {
    if (!bad_.isOk())
      return ctx.fail(bad_);
    if (!ctx.resources())
      return ctx.fail(internalError("no resource manager in this step"));
    auto reader = ctx.resources()->lookupOrCreate<ReaderResource>(
        container_, name_, [&]() -> Expected<std::shared_ptr<ReaderResource>> {
          return std::make_shared<ReaderResource>(kind_, factory_);
        });
    if (!reader.hasValue())
      return ctx.fail(reader.takeStatus());
    if ((*reader)->kind() != kind_)
      return ctx.fail(invalidArgument("resource '" + name_ + "' is a " +
                                      (*reader)->kind() + ", not a " + kind_));
    ir::Tensor &h = ctx.allocateOutput(0, ir::DType::kResource, {});
    h.strings()[0] = key_;
  }

private:
  std::string kind_;
  ReaderResource::IteratorFactory factory_;
  Status bad_;
  std::string container_, name_, key_;
};

ir::Tensor stringVector(std::vector<std::string> &&items) {
  ir::Tensor t = ir::Tensor::uninitialized(ir::DType::kString,
                                           {static_cast<int64_t>(items.size())});
  std::string *out = t.strings();
  for (size_t i = 0; i < items.size(); ++i)
    out[i] = std::move(items[i]);
  return t;
}

class ReaderReadKernel : public OpKernel {
public:
  ReaderReadKernel(const ir::Node &n, bool upTo) : OpKernel(n), upTo_(upTo) {}
  bool isAsync() const override { return true; }
  void compute(KernelContext &) override {}

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
    int64_t n = 1;
    if (upTo_) {
      const ir::Tensor &t = ctx.input(2);
      if (t.numElements() != 1) {
        ctx.fail(invalidArgument("num_records must be a scalar"));
        return done();
      }
      n = t.elementAsInt(0);
      if (n <= 0) {
        ctx.fail(invalidArgument("num_records must be > 0 but got " + std::to_string(n)));
        return done();
      }
    }
    bool upTo = upTo_;
    (*reader)->readUpTo(
        *queue, ctx.cancellation(), n,
        [&ctx, done = std::move(done), upTo](Status s, std::vector<std::string> keys,
                                             std::vector<std::string> values) {
          if (!s.isOk()) {
            ctx.fail(std::move(s));
          } else if (upTo) {
            ctx.setOutput(0, stringVector(std::move(keys)));
            ctx.setOutput(1, stringVector(std::move(values)));
          } else {
            ctx.setOutput(0, ir::Tensor::scalarString(std::move(keys[0])));
            ctx.setOutput(1, ir::Tensor::scalarString(std::move(values[0])));
          }
          done();
        });
  }

private:
  bool upTo_;
};

class ReaderCounterKernel : public OpKernel {
public:
  ReaderCounterKernel(const ir::Node &n, bool workUnits)
      : OpKernel(n), workUnits_(workUnits) {}
  void compute(KernelContext &ctx) override {
    auto reader = lookupHandle<ReaderResource>(ctx, 0, "reader");
    if (!reader.hasValue())
      return ctx.fail(reader.takeStatus());
    int64_t v = workUnits_ ? (*reader)->numWorkUnitsCompleted()
                           : (*reader)->numRecordsProduced();
    ctx.setOutput(0, ir::Tensor::scalar<int64_t>(v));
  }

private:
  bool workUnits_;
};

class ReaderResetKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto reader = lookupHandle<ReaderResource>(ctx, 0, "reader");
    if (!reader.hasValue())
      return ctx.fail(reader.takeStatus());
    (*reader)->reset();
  }
};

Expected<std::string> scalarString(const ir::Tensor &t, const char *what) {
  if (t.dtype() != ir::DType::kString || t.numElements() != 1)
    return invalidArgument(std::string(what) + " must be a scalar string, got shape " +
                           ir::dimsString(t.dims()));
  return t.strings()[0];
}

class ReadFileKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto name = scalarString(ctx.input(0), "filename");
    if (!name.hasValue())
      return ctx.fail(name.takeStatus());
    std::string contents;
    if (Status s = io::readFileToString(*name, &contents); !s.isOk())
      return ctx.fail(std::move(s));
    ctx.setOutput(0, ir::Tensor::scalarString(std::move(contents)));
  }
};

class WriteFileKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto name = scalarString(ctx.input(0), "filename");
    if (!name.hasValue())
      return ctx.fail(name.takeStatus());
    auto contents = scalarString(ctx.input(1), "contents");
    if (!contents.hasValue())
      return ctx.fail(contents.takeStatus());
    if (Status s = io::writeStringToFile(*name, *contents); !s.isOk())
      return ctx.fail(std::move(s));
  }
};

class MatchingFilesKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    const ir::Tensor &p = ctx.input(0);
    if (p.rank() > 1)
      return ctx.fail(invalidArgument("pattern must be a scalar or a vector, got shape " +
                                      ir::dimsString(p.dims())));
    std::vector<std::string> all;
    for (int64_t i = 0; i < p.numElements(); ++i) {
      auto found = io::matchFiles(p.strings()[i]);
      if (!found.hasValue())
        return ctx.fail(found.takeStatus());
      all.insert(all.end(), found->begin(), found->end());
    }
    std::sort(all.begin(), all.end());
    ctx.setOutput(0, stringVector(std::move(all)));
  }
};

class TFRecordWriteKernel : public OpKernel {
public:
  using OpKernel::OpKernel;
  void compute(KernelContext &ctx) override {
    auto name = scalarString(ctx.input(0), "filename");
    if (!name.hasValue())
      return ctx.fail(name.takeStatus());
    const ir::Tensor &records = ctx.input(1);
    io::TFRecordWriter w;
    Status s = w.open(*name);
    for (int64_t i = 0; s.isOk() && i < records.numElements(); ++i)
      s = w.write(records.strings()[i]);
    if (s.isOk())
      s = w.close();
    if (!s.isOk())
      ctx.fail(std::move(s));
  }
};

template <typename Make>
void addReader(KernelRegistry &reg, const char *op, Make make) {
  reg.add(op, "CPU", [make](const ir::Node &n) -> Expected<std::unique_ptr<OpKernel>> {
    return std::unique_ptr<OpKernel>(make(n));
  });
}

Status nonNegative(const ir::Node &n, const char *attr) {
  int64_t v = n.attr<int64_t>(attr);
  if (v < 0)
    return invalidArgument(std::string(attr) + " must be >= 0 not " + std::to_string(v));
  return Status::ok();
}

} // namespace

void registerIoKernels(KernelRegistry &reg) {
  addReader(reg, "text_line_reader", [](const ir::Node &n) {
    int64_t skip = n.attr<int64_t>("skip_header_lines");
    return new ReaderOpKernel(
        n, "TextLineReader", [skip] { return io::makeTextLineIterator(skip); },
        nonNegative(n, "skip_header_lines"));
  });
  addReader(reg, "fixed_length_record_reader", [](const ir::Node &n) {
    io::FixedLengthOptions o;
    o.recordBytes = n.attr<int64_t>("record_bytes");
    o.headerBytes = n.attr<int64_t>("header_bytes");
    o.footerBytes = n.attr<int64_t>("footer_bytes");
    o.hopBytes = n.attr<int64_t>("hop_bytes");
    Status bad = o.recordBytes > 0
                     ? Status::ok()
                     : invalidArgument("record_bytes must be > 0 not " +
                                       std::to_string(o.recordBytes));
    for (const char *a : {"header_bytes", "footer_bytes", "hop_bytes"})
      if (bad.isOk())
        bad = nonNegative(n, a);
    if (bad.isOk() && !n.attr<std::string>("encoding").empty())
      bad = unimplemented("encoding '" + n.attr<std::string>("encoding") + "' is not supported");
    return new ReaderOpKernel(
        n, "FixedLengthRecordReader", [o] { return io::makeFixedLengthIterator(o); },
        std::move(bad));
  });
  addReader(reg, "whole_file_reader", [](const ir::Node &n) {
    return new ReaderOpKernel(n, "WholeFileReader", [] { return io::makeWholeFileIterator(); },
                              Status::ok());
  });
  addReader(reg, "tf_record_reader", [](const ir::Node &n) {
    const std::string &ct = n.attr<std::string>("compression_type");
    Status bad = ct.empty() ? Status::ok()
                            : unimplemented("compression_type '" + ct + "' is not supported");
    return new ReaderOpKernel(n, "TFRecordReader", [] { return io::makeTFRecordIterator(); },
                              std::move(bad));
  });
  addReader(reg, "reader_read", [](const ir::Node &n) { return new ReaderReadKernel(n, false); });
  addReader(reg, "reader_read_up_to",
            [](const ir::Node &n) { return new ReaderReadKernel(n, true); });
  addReader(reg, "reader_num_records_produced",
            [](const ir::Node &n) { return new ReaderCounterKernel(n, false); });
  addReader(reg, "reader_num_work_units_completed",
            [](const ir::Node &n) { return new ReaderCounterKernel(n, true); });
  reg.addSimple<ReaderResetKernel>("reader_reset");
  reg.addSimple<ReadFileKernel>("read_file");
  reg.addSimple<WriteFileKernel>("write_file");
  reg.addSimple<MatchingFilesKernel>("matching_files");
  reg.addSimple<TFRecordWriteKernel>("tf_record_write");
}

} // namespace sluice::backend
