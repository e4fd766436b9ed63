// backend/io/record_iterator.h: the file formats readers iterate: text
// lines, fixed-length records, whole files and TFRecords, behind one small
// interface (TF's ReaderBase subclasses, without the queue logic).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <string_view>

#include "support/status.h"

namespace sluice::backend::io {

class RecordIterator {
public:
  virtual ~RecordIterator() = default;
  /// Starts on `path`; a missing file is not_found naming the path.
  virtual Status open(const std::string &path) = 0;
  /// The next record and its key; out_of_range at the end of the file.
  virtual Status next(std::string *key, std::string *value) = 0;
  /// The next record's value, valid until the next call, without building
  /// its key (currentKey() does, on demand); out_of_range at the end.
  virtual Status nextView(std::string_view *value);
  /// The key of the record nextView returned last.
  virtual std::string currentKey() const { return key_; }
  /// For keys "<file>:<n>" with n counting up by one per record (text
  /// lines): the current record's file and n, from which a read can name
  /// any of its records without building their keys. nullopt otherwise.
  virtual std::optional<std::pair<std::string, int64_t>> numberedKey() const {
    return std::nullopt;
  }
  /// Drops the open file.
  virtual void close() = 0;

protected:
  std::string key_, value_; // nextView's default: next() into these
};

/// Key "<file>:<n>", n the 1-based physical line number (skipped header
/// lines count); the value is the line without "\n" or "\r\n".
std::unique_ptr<RecordIterator> makeTextLineIterator(int64_t skipHeaderLines);

struct FixedLengthOptions {
  int64_t recordBytes = 0;
  int64_t headerBytes = 0;
  int64_t footerBytes = 0;
  int64_t hopBytes = 0; // > 0: records start every hopBytes bytes
};
/// Key "<file>:<i>", i 0-based; a short tail is dropped.
std::unique_ptr<RecordIterator> makeFixedLengthIterator(FixedLengthOptions opts);

/// One record per file: key "<file>", the whole content (even when empty,
/// as TF's WholeFileReader).
std::unique_ptr<RecordIterator> makeWholeFileIterator();

/// TFRecord framing; key "<file>:<offset>" of the record's start. A bad
/// checksum is data_loss "<file>: corrupted record at <offset>".
std::unique_ptr<RecordIterator> makeTFRecordIterator();

/// Appends TFRecord-framed records to a new file.
class TFRecordWriter {
public:
  TFRecordWriter() = default;
  ~TFRecordWriter();
  TFRecordWriter(const TFRecordWriter &) = delete;
  TFRecordWriter &operator=(const TFRecordWriter &) = delete;

  Status open(const std::string &path);
  Status write(const std::string &record);
  Status flush();
  Status close();
  bool isOpen() const { return fd_ >= 0; }

private:
  int fd_ = -1;
  std::string path_;
  std::string pending_; // bytes not yet written
};

} // namespace sluice::backend::io
