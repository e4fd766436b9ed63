// backend/io/record_iterators.cc: text-line, fixed-length and whole-file
// record iterators (TF's TextLineReader, FixedLengthRecordReader and
// WholeFileReader).
#include <charconv>

#include "backend/io/buffered_file.h"
#include "backend/io/record_iterator.h"

namespace sluice::backend::io {

namespace {

void makeKey(std::string *key, const std::string &path, int64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  (void)ec;
  key->reserve(path.size() + 1 + (end - digits));
  key->assign(path);
  key->push_back(':');
  key->append(digits, end);
}

Status endOfFile() { return outOfRange("end of file"); }

} // namespace

Status RecordIterator::nextView(std::string_view *value) {
  SLUICE_TRY(next(&key_, &value_));
  *value = value_;
  return Status::ok();
}

namespace {

class TextLineIterator : public RecordIterator {
public:
  explicit TextLineIterator(int64_t skip) : skip_(skip) {}

  Status open(const std::string &path) override {
    SLUICE_TRY(file_.open(path));
    line_ = 0;
    for (int64_t i = 0; i < skip_; ++i) {
      SLUICE_ASSIGN_OR_RETURN(bool got, file_.skipLine());
      if (!got)
        break; // a file shorter than its header yields nothing
      ++line_;
    }
    return Status::ok();
  }

  Status next(std::string *key, std::string *value) override {
    SLUICE_ASSIGN_OR_RETURN(bool got, file_.readLine(value));
    if (!got)
      return endOfFile();
    makeKey(key, file_.path(), ++line_);
    return Status::ok();
  }

  // A view into the file's buffer and a key built only when asked: a
  // fused read + decode_csv never copies a line (passes/fuse_read_decode).
  Status nextView(std::string_view *value) override {
    SLUICE_ASSIGN_OR_RETURN(bool got, file_.readLineView(value, &scratch_));
    if (!got)
      return endOfFile();
    ++line_;
    return Status::ok();
  }
  std::string currentKey() const override {
    std::string key;
    makeKey(&key, file_.path(), line_);
    return key;
  }
  std::optional<std::pair<std::string, int64_t>> numberedKey() const override {
    return std::make_pair(file_.path(), line_);
  }

  void close() override { file_.close(); }

private:
  std::string scratch_;
  int64_t skip_;
  BufferedFile file_;
  int64_t line_ = 0;
};

class FixedLengthIterator : public RecordIterator {
public:
  explicit FixedLengthIterator(FixedLengthOptions o) : o_(o) {}

  Status open(const std::string &path) override {
    SLUICE_TRY(file_.open(path));
    index_ = 0;
    dataEnd_ = file_.size() - o_.footerBytes;
    return Status::ok();
  }

  Status next(std::string *key, std::string *value) override {
    int64_t stride = o_.hopBytes > 0 ? o_.hopBytes : o_.recordBytes;
    int64_t start = o_.headerBytes + index_ * stride;
    if (start + o_.recordBytes > dataEnd_)
      return endOfFile();
    value->resize(static_cast<size_t>(o_.recordBytes));
    SLUICE_ASSIGN_OR_RETURN(size_t got,
                            file_.readAt(start, value->size(), value->data()));
    if (got < value->size()) // the file shrank under us
      return endOfFile();
    makeKey(key, file_.path(), index_++);
    return Status::ok();
  }

  void close() override { file_.close(); }

private:
  FixedLengthOptions o_;
  BufferedFile file_;
  int64_t index_ = 0;
  int64_t dataEnd_ = 0;
};

class WholeFileIterator : public RecordIterator {
public:
  Status open(const std::string &path) override {
    path_ = path;
    // Open now so that a missing file fails when the work starts, as TF.
    BufferedFile f;
    SLUICE_TRY(f.open(path));
    done_ = false;
    return Status::ok();
  }
  Status next(std::string *key, std::string *value) override {
    if (done_)
      return endOfFile();
    SLUICE_TRY(readFileToString(path_, value));
    *key = path_;
    done_ = true;
    return Status::ok();
  }
  void close() override { done_ = true; }

private:
  std::string path_;
  bool done_ = true;
};

} // namespace

std::unique_ptr<RecordIterator> makeTextLineIterator(int64_t skipHeaderLines) {
  return std::make_unique<TextLineIterator>(skipHeaderLines);
}
std::unique_ptr<RecordIterator> makeFixedLengthIterator(FixedLengthOptions opts) {
  return std::make_unique<FixedLengthIterator>(opts);
}
std::unique_ptr<RecordIterator> makeWholeFileIterator() {
  return std::make_unique<WholeFileIterator>();
}

} // namespace sluice::backend::io
