// backend/io/event_file.cc: protobuf wire encoding of Event and Summary
// (varints, fixed64/fixed32, length-delimited fields), the event file and
// metrics.jsonl writer.
#include "backend/io/event_file.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <unistd.h>

#include "backend/io/buffered_file.h"

namespace sluice::backend::io {

namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
void putTag(std::string &out, uint32_t field, WireType wt) { putVarint(out, (field << 3) | wt); }
void putBytes(std::string &out, uint32_t field, std::string_view bytes) {
  putTag(out, field, kLengthDelimited);
  putVarint(out, bytes.size());
  out.append(bytes);
}
template <typename T> void putFixed(std::string &out, uint32_t field, T v) {
  putTag(out, field, sizeof(T) == 8 ? kFixed64 : kFixed32);
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}

/// Reads the fields of one message in order; unknown ones are skipped.
class WireReader {
public:
  explicit WireReader(std::string_view b) : b_(b) {}
  bool done() const { return pos_ >= b_.size(); }
  bool varint(uint64_t *v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= b_.size())
        return false;
      uint8_t byte = static_cast<uint8_t>(b_[pos_++]);
      *v |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  /// The next field's number and wire type.
  bool tag(uint32_t *field, uint32_t *wt) {
    uint64_t t;
    if (!varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff)
      return false;
    *field = static_cast<uint32_t>(t >> 3);
    *wt = static_cast<uint32_t>(t & 7);
    return true;
  }
  bool bytes(std::string_view *out) {
    uint64_t n;
    if (!varint(&n) || n > b_.size() - pos_)
      return false;
    *out = b_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  template <typename T> bool fixed(T *v) {
    if (b_.size() - pos_ < sizeof(T))
      return false;
    std::memcpy(v, b_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool skip(uint32_t wt) {
    uint64_t v;
    std::string_view s;
    switch (wt) {
    case kVarint: return varint(&v);
    case kFixed64: return fixed(&v);
    case kLengthDelimited: return bytes(&s);
    case kFixed32: {
      uint32_t w;
      return fixed(&w);
    }
    default: return false; // groups are not used by these messages
    }
  }

private:
  std::string_view b_;
  size_t pos_ = 0;
};

double nowSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out + "\"";
}

} // namespace

std::string encodeScalarSummary(const std::vector<ScalarValue> &values) {
  std::string out;
  for (const ScalarValue &v : values) {
    std::string value;
    putBytes(value, 1, v.tag);
    putFixed<float>(value, 2, v.value);
    putBytes(out, 1, value);
  }
  return out;
}

Expected<std::vector<ScalarValue>> decodeScalarSummary(std::string_view bytes) {
  std::vector<ScalarValue> out;
  WireReader r(bytes);
  auto bad = [] { return invalidArgument("bytes are not a serialized Summary proto"); };
  while (!r.done()) {
    uint32_t field, wt;
    if (!r.tag(&field, &wt))
      return bad();
    if (field != 1 || wt != kLengthDelimited) {
      if (!r.skip(wt))
        return bad();
      continue;
    }
    std::string_view value;
    if (!r.bytes(&value))
      return bad();
    WireReader vr(value);
    ScalarValue sv;
    bool simple = false;
    while (!vr.done()) {
      uint32_t f, w;
      if (!vr.tag(&f, &w))
        return bad();
      std::string_view tag;
      if (f == 1 && w == kLengthDelimited) {
        if (!vr.bytes(&tag))
          return bad();
        sv.tag = std::string(tag);
      } else if (f == 2 && w == kFixed32) {
        if (!vr.fixed(&sv.value))
          return bad();
        simple = true;
      } else if (!vr.skip(w)) {
        return bad();
      }
    }
    if (simple)
      out.push_back(std::move(sv));
  }
  return out;
}

std::string encodeEvent(const Event &e) {
  std::string out;
  putFixed<double>(out, 1, e.wallTime);
  if (e.step != 0) {
    putTag(out, 2, kVarint);
    putVarint(out, static_cast<uint64_t>(e.step));
  }
  if (e.fileVersion)
    putBytes(out, 3, *e.fileVersion);
  if (e.summary)
    putBytes(out, 5, *e.summary);
  return out;
}

Expected<Event> decodeEvent(std::string_view bytes) {
  Event e;
  WireReader r(bytes);
  auto bad = [] { return invalidArgument("bytes are not a serialized Event proto"); };
  while (!r.done()) {
    uint32_t field, wt;
    if (!r.tag(&field, &wt))
      return bad();
    std::string_view s;
    uint64_t v;
    if (field == 1 && wt == kFixed64) {
      if (!r.fixed(&e.wallTime))
        return bad();
    } else if (field == 2 && wt == kVarint) {
      if (!r.varint(&v))
        return bad();
      e.step = static_cast<int64_t>(v);
    } else if (field == 3 && wt == kLengthDelimited) {
      if (!r.bytes(&s))
        return bad();
      e.fileVersion = std::string(s);
    } else if (field == 5 && wt == kLengthDelimited) {
      if (!r.bytes(&s))
        return bad();
      e.summary = std::string(s);
    } else if (!r.skip(wt)) {
      return bad();
    }
  }
  return e;
}

Expected<std::unique_ptr<SummaryFileWriter>> SummaryFileWriter::open(const std::string &logdir) {
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec)
    return fileError(logdir, ec.value());
  auto w = std::unique_ptr<SummaryFileWriter>(new SummaryFileWriter());
  char host[256] = "localhost";
  if (::gethostname(host, sizeof host - 1) != 0)
    std::strcpy(host, "localhost");
  double now = nowSeconds();
  // TF names the file by time and host; the pid keeps two processes
  // started in the same second from sharing (and truncating) one file.
  w->eventPath_ = logdir + "/events.out.tfevents." +
                  std::to_string(static_cast<int64_t>(now)) + "." + host + "." +
                  std::to_string(::getpid());
  w->metricsPath_ = logdir + "/metrics.jsonl";
  SLUICE_TRY(w->events_.open(w->eventPath_));
  Event first;
  first.wallTime = now;
  first.fileVersion = "brain.Event:2";
  SLUICE_TRY(w->events_.write(encodeEvent(first)));
  SLUICE_TRY(w->events_.flush());
  w->metricsFd_ = openFile(w->metricsPath_, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (w->metricsFd_ < 0)
    return fileError(w->metricsPath_, errno);
  return w;
}

SummaryFileWriter::~SummaryFileWriter() { (void)close(); }

Status SummaryFileWriter::addSummary(std::string_view summary, int64_t step) {
  if (metricsFd_ < 0)
    return failedPrecondition("the summary writer is closed");
  SLUICE_ASSIGN_OR_RETURN(std::vector<ScalarValue> scalars, decodeScalarSummary(summary));
  Event e;
  e.wallTime = nowSeconds();
  e.step = step;
  e.summary = std::string(summary);
  SLUICE_TRY(events_.write(encodeEvent(e)));
  SLUICE_TRY(events_.flush());
  std::string lines;
  for (const ScalarValue &v : scalars) {
    char num[64];
    if (std::isfinite(v.value))
      std::snprintf(num, sizeof num, "%.9g", static_cast<double>(v.value));
    else
      std::strcpy(num, "null");
    char wall[64];
    std::snprintf(wall, sizeof wall, "%.6f", e.wallTime);
    lines += "{\"step\":" + std::to_string(step) + ",\"wall_time\":" + wall +
             ",\"tag\":" + jsonString(v.tag) + ",\"value\":" + num + "}\n";
  }
  // One write per summary: with O_APPEND, lines of concurrent writers
  // never interleave.
  size_t done = 0;
  while (done < lines.size()) {
    ssize_t got = ::write(metricsFd_, lines.data() + done, lines.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return fileError(metricsPath_, errno);
    done += static_cast<size_t>(got);
  }
  return Status::ok();
}

Status SummaryFileWriter::close() {
  Status s = events_.close();
  if (metricsFd_ >= 0) {
    if (::close(metricsFd_) != 0 && s.isOk())
      s = fileError(metricsPath_, errno);
    metricsFd_ = -1;
  }
  return s;
}

} // namespace sluice::backend::io
