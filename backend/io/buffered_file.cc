// backend/io/buffered_file.cc: chunked POSIX reads and the file helpers.
#include "backend/io/buffered_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace sluice::backend::io {

int openFile(const std::string &path, int flags, unsigned mode) {
  if (path.find('\0') != std::string::npos) {
    errno = EINVAL;
    return -1;
  }
  return ::open(path.c_str(), flags, static_cast<mode_t>(mode));
}

Status writeAll(int fd, const std::string &path, std::string_view bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t got = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return fileError(path, errno);
    }
    done += static_cast<size_t>(got);
  }
  return Status::ok();
}

Status fileError(const std::string &path, int err) {
  if (size_t nul = path.find('\0'); nul != std::string::npos)
    return invalidArgument("the path '" + path.substr(0, nul) +
                           "\\x00...' contains a NUL byte, which no file name may");
  std::string msg = path + ": " + std::strerror(err);
  switch (err) {
  case ENOENT:
  case ENOTDIR:
    return notFound(path + ": No such file or directory");
  case EACCES:
  case EPERM:
    return Status(Code::kPermissionDenied, msg);
  case EISDIR:
    return failedPrecondition(msg);
  case ENOSPC:
  case EMFILE:
  case ENFILE:
  case ENOMEM:
    return Status(Code::kResourceExhausted, msg);
  default:
    return Status(Code::kUnknown, msg);
  }
}

BufferedFile::~BufferedFile() { close(); }

void BufferedFile::close() {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  bufStart_ = 0;
  bufLen_ = 0;
  pos_ = 0;
  size_ = 0;
}

Status BufferedFile::open(const std::string &path) {
  close();
  path_ = path;
  int fd = openFile(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return fileError(path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return fileError(path, EISDIR);
  }
  fd_ = fd;
  size_ = st.st_size;
  if (!buf_)
    buf_.reset(new char[kBufferSize]);
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return Status::ok();
}

Status BufferedFile::readChunk(int64_t offset) {
  bufStart_ = offset;
  bufLen_ = 0;
  pos_ = 0;
  while (bufLen_ < kBufferSize) {
    ssize_t got = ::pread(fd_, buf_.get() + bufLen_, kBufferSize - bufLen_,
                          offset + static_cast<int64_t>(bufLen_));
    if (got < 0) {
      if (errno == EINTR)
        continue;
      return fileError(path_, errno);
    }
    if (got == 0)
      break;
    bufLen_ += static_cast<size_t>(got);
  }
  return Status::ok();
}

Status BufferedFile::fill() { return readChunk(bufStart_ + static_cast<int64_t>(bufLen_)); }

Expected<bool> BufferedFile::readLine(std::string *line) {
  line->clear();
  bool any = false;
  while (true) {
    if (pos_ == bufLen_) {
      SLUICE_TRY(fill());
      if (bufLen_ == 0)
        break;
    }
    const char *start = buf_.get() + pos_;
    size_t avail = bufLen_ - pos_;
    const void *nl = std::memchr(start, '\n', avail);
    if (nl) {
      size_t len = static_cast<const char *>(nl) - start;
      line->append(start, len);
      pos_ += len + 1;
      if (!line->empty() && line->back() == '\r')
        line->pop_back();
      return true;
    }
    line->append(start, avail);
    pos_ = bufLen_;
    any = true;
  }
  if (!line->empty() && line->back() == '\r')
    line->pop_back();
  // TF returns a non-empty unterminated tail; an empty one is the end.
  return any && !line->empty();
}

Expected<bool> BufferedFile::readLineView(std::string_view *line, std::string *scratch) {
  if (pos_ < bufLen_) {
    const char *start = buf_.get() + pos_;
    size_t avail = bufLen_ - pos_;
    if (const void *nl = std::memchr(start, '\n', avail)) {
      size_t len = static_cast<const char *>(nl) - start;
      pos_ += len + 1;
      if (len > 0 && start[len - 1] == '\r')
        --len;
      *line = std::string_view(start, len);
      return true;
    }
  }
  SLUICE_ASSIGN_OR_RETURN(bool got, readLine(scratch));
  *line = *scratch;
  return got;
}

Expected<bool> BufferedFile::skipLine() {
  bool any = false;
  while (true) {
    if (pos_ == bufLen_) {
      SLUICE_TRY(fill());
      if (bufLen_ == 0)
        return any;
    }
    const char *start = buf_.get() + pos_;
    size_t avail = bufLen_ - pos_;
    const void *nl = std::memchr(start, '\n', avail);
    if (nl) {
      pos_ += static_cast<const char *>(nl) - start + 1;
      return true;
    }
    pos_ = bufLen_;
    any = true;
  }
}

Expected<size_t> BufferedFile::readAt(int64_t offset, size_t n, char *out) {
  size_t done = 0;
  while (done < n) {
    int64_t at = offset + static_cast<int64_t>(done);
    if (at >= bufStart_ && at < bufStart_ + static_cast<int64_t>(bufLen_)) {
      size_t from = static_cast<size_t>(at - bufStart_);
      size_t k = std::min(n - done, bufLen_ - from);
      std::memcpy(out + done, buf_.get() + from, k);
      done += k;
      continue;
    }
    if (at >= size_)
      break;
    if (n - done >= kBufferSize) {
      // A record larger than the buffer goes straight to its destination.
      ssize_t got = ::pread(fd_, out + done, n - done, at);
      if (got < 0) {
        if (errno == EINTR)
          continue;
        return fileError(path_, errno);
      }
      if (got == 0)
        break;
      done += static_cast<size_t>(got);
      continue;
    }
    SLUICE_TRY(readChunk(at));
    if (bufLen_ == 0)
      break;
  }
  return done;
}

Status readFileToString(const std::string &path, std::string *out) {
  int fd = openFile(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, errno);
  struct stat st;
  int statRc = ::fstat(fd, &st);
  if (statRc != 0 || S_ISDIR(st.st_mode)) {
    int err = statRc != 0 ? errno : EISDIR;
    ::close(fd);
    return fileError(path, err);
  }
  out->clear();
  out->resize(static_cast<size_t>(st.st_size));
  size_t done = 0;
  while (true) {
    if (done == out->size())
      out->resize(std::max<size_t>(out->size() * 2, 4096)); // grew, or a pipe
    ssize_t got = ::read(fd, out->data() + done, out->size() - done);
    if (got < 0) {
      if (errno == EINTR)
        continue;
      int err = errno;
      ::close(fd);
      return fileError(path, err);
    }
    if (got == 0)
      break;
    done += static_cast<size_t>(got);
  }
  ::close(fd);
  out->resize(done);
  return Status::ok();
}

Status writeStringToFile(const std::string &path, const std::string &contents) {
  int fd = openFile(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return fileError(path, errno);
  Status s = writeAll(fd, path, contents);
  if (::close(fd) != 0 && s.isOk())
    s = fileError(path, errno);
  return s;
}

Expected<std::vector<std::string>> matchFiles(const std::string &pattern) {
  glob_t g;
  std::memset(&g, 0, sizeof g);
  int rc = ::glob(pattern.c_str(), 0, nullptr, &g);
  std::vector<std::string> out;
  if (rc == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i)
      out.emplace_back(g.gl_pathv[i]);
  ::globfree(&g);
  if (rc != 0 && rc != GLOB_NOMATCH)
    return Status(Code::kUnknown, "matching files for '" + pattern + "' failed");
  std::sort(out.begin(), out.end());
  return out;
}

} // namespace sluice::backend::io
