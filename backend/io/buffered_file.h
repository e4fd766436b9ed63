// backend/io/buffered_file.h: a read-only file read in large (1 MiB)
// chunks, with line and positioned reads; the file helpers that share its
// error messages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace sluice::backend::io {

/// The Status for a failed system call on `path` (ENOENT is not_found
/// "<path>: No such file or directory", as TF names the path; a path with
/// a NUL byte is invalid_argument).
Status fileError(const std::string &path, int err);

/// ::open for a path held in a std::string: a NUL byte inside it would cut
/// the name the kernel sees (reading "/etc/passwd" for
/// "/etc/passwd\0.csv"), so such a path fails with EINVAL instead.
int openFile(const std::string &path, int flags, unsigned mode = 0);

/// Writes all of `bytes` to `fd` (retrying short writes and EINTR); a
/// failure is fileError on `path`.
Status writeAll(int fd, const std::string &path, std::string_view bytes);

class BufferedFile {
public:
  static constexpr size_t kBufferSize = size_t(1) << 20;

  BufferedFile() = default;
  ~BufferedFile();
  BufferedFile(const BufferedFile &) = delete;
  BufferedFile &operator=(const BufferedFile &) = delete;

  /// Opens `path` for reading; a directory is failed_precondition.
  Status open(const std::string &path);
  void close();
  const std::string &path() const { return path_; }
  /// The size at open time.
  int64_t size() const { return size_; }

  /// Reads the next line into `line`, without its "\n" and a "\r" before
  /// it (TF's InputBuffer::ReadLine); false at the end of the file. An
  /// unterminated last line is still a line.
  Expected<bool> readLine(std::string *line);
  /// readLine without a copy: `line` views the buffer (or `scratch`, for a
  /// line crossing a chunk boundary) until the next read.
  Expected<bool> readLineView(std::string_view *line, std::string *scratch);
  /// Skips one line without copying it; false at the end of the file.
  Expected<bool> skipLine();
  /// Reads up to `n` bytes at `offset` into `out`; returns how many were
  /// read (fewer only at the end of the file).
  Expected<size_t> readAt(int64_t offset, size_t n, char *out);

private:
  Status fill(); // the chunk after the current one, for sequential reads
  Status readChunk(int64_t offset);

  int fd_ = -1;
  std::string path_;
  int64_t size_ = 0;
  std::unique_ptr<char[]> buf_;
  int64_t bufStart_ = 0; // file offset of buf_[0]
  size_t bufLen_ = 0;
  size_t pos_ = 0;       // the line cursor within buf_
};

/// The whole content of `path`.
Status readFileToString(const std::string &path, std::string *out);
/// Writes `contents` to `path`, replacing it.
Status writeStringToFile(const std::string &path, const std::string &contents);
/// The files matching a glob pattern, sorted; none is an empty list.
Expected<std::vector<std::string>> matchFiles(const std::string &pattern);

} // namespace sluice::backend::io
