// backend/io/tfrecord.cc: TFRecord framing, read and written: u64 length,
// masked CRC32C of the length, payload, masked CRC32C of the payload (all
// little-endian).
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include "backend/io/buffered_file.h"
#include "backend/io/crc32c.h"
#include "backend/io/record_iterator.h"

namespace sluice::backend::io {

namespace {

uint32_t loadU32(const char *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t loadU64(const char *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

class TFRecordIterator : public RecordIterator {
public:
  Status open(const std::string &path) override {
    SLUICE_TRY(file_.open(path));
    offset_ = 0;
    return Status::ok();
  }

  Status next(std::string *key, std::string *value) override {
    char header[12];
    SLUICE_ASSIGN_OR_RETURN(size_t got, file_.readAt(offset_, sizeof header, header));
    if (got == 0)
      return outOfRange("end of file");
    if (got < sizeof header)
      return truncated();
    if (unmaskCrc(loadU32(header + 8)) != crc32c(header, 8))
      return corrupted();
    uint64_t len = loadU64(header);
    // Check against the file size before allocating: a damaged length
    // must not become a huge allocation.
    uint64_t left = static_cast<uint64_t>(file_.size() - offset_);
    if (len > left || left - len < sizeof header + 4)
      return truncated();
    value->resize(static_cast<size_t>(len));
    SLUICE_ASSIGN_OR_RETURN(got, file_.readAt(offset_ + 12, value->size(), value->data()));
    char footer[4];
    SLUICE_ASSIGN_OR_RETURN(size_t gotFooter,
                            file_.readAt(offset_ + 12 + static_cast<int64_t>(len), 4, footer));
    if (got < len || gotFooter < 4)
      return truncated();
    if (unmaskCrc(loadU32(footer)) != crc32c(value->data(), value->size()))
      return corrupted();
    key->assign(file_.path());
    key->push_back(':');
    key->append(std::to_string(offset_));
    offset_ += 16 + static_cast<int64_t>(len);
    return Status::ok();
  }

  void close() override { file_.close(); }

private:
  Status corrupted() const {
    return Status(Code::kDataLoss, file_.path() + ": corrupted record at " +
                                       std::to_string(offset_));
  }
  Status truncated() const {
    return Status(Code::kDataLoss, file_.path() + ": truncated record at " +
                                       std::to_string(offset_));
  }

  BufferedFile file_;
  int64_t offset_ = 0;
};

} // namespace

std::unique_ptr<RecordIterator> makeTFRecordIterator() {
  return std::make_unique<TFRecordIterator>();
}

TFRecordWriter::~TFRecordWriter() { (void)close(); }

Status TFRecordWriter::open(const std::string &path) {
  SLUICE_TRY(close());
  int fd = openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fileError(path, errno);
  fd_ = fd;
  path_ = path;
  return Status::ok();
}

Status TFRecordWriter::write(const std::string &record) {
  if (fd_ < 0)
    return failedPrecondition("TFRecord writer is closed");
  char header[12];
  uint64_t len = record.size();
  std::memcpy(header, &len, 8);
  uint32_t lenCrc = maskCrc(crc32c(header, 8));
  std::memcpy(header + 8, &lenCrc, 4);
  uint32_t dataCrc = maskCrc(crc32c(record.data(), record.size()));
  pending_.append(header, sizeof header);
  pending_.append(record);
  pending_.append(reinterpret_cast<const char *>(&dataCrc), 4);
  if (pending_.size() >= (size_t(1) << 20))
    return flush();
  return Status::ok();
}

Status TFRecordWriter::flush() {
  size_t done = 0;
  while (done < pending_.size()) {
    ssize_t got = ::write(fd_, pending_.data() + done, pending_.size() - done);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return fileError(path_, errno);
    }
    done += static_cast<size_t>(got);
  }
  pending_.clear();
  return Status::ok();
}

Status TFRecordWriter::close() {
  if (fd_ < 0)
    return Status::ok();
  Status s = flush();
  if (::close(fd_) != 0 && s.isOk())
    s = fileError(path_, errno);
  fd_ = -1;
  return s;
}

} // namespace sluice::backend::io
