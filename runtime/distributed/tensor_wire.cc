// runtime/distributed/tensor_wire.cc: protobuf's wire format, by hand, for
// TensorProto entries over gRPC slices (the rest of a message is left to
// protobuf). Field numbers follow worker.proto's TensorProto.
#include "runtime/distributed/tensor_wire.h"

#include <google/protobuf/message_lite.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "runtime/distributed/tensor_codec.h"

namespace sluice::dist {

namespace {

// TensorProto's fields.
constexpr int kDtypeField = 1, kDimsField = 2, kDataField = 3, kStringsField = 4;
// Protobuf's wire types.
constexpr int kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5;
// Data at least this big travels as a slice of the tensor's own buffer;
// smaller data is cheaper to copy than to reference.
constexpr size_t kBorrowBytes = 4096;

size_t varintSize(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7)
    ++n;
  return n;
}

uint64_t tag(int field, int wireType) { return uint64_t(field) << 3 | uint64_t(wireType); }

// Appends bytes to a message, copying small pieces into a pending buffer
// and referencing big tensor data in place.
class SliceWriter {
public:
  void varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7)
      pending_.push_back(static_cast<char>(v | 0x80));
    pending_.push_back(static_cast<char>(v));
  }
  void bytes(const void *p, size_t n) { pending_.append(static_cast<const char *>(p), n); }
  void data(const ir::Tensor &t) {
    if (t.byteSize() < kBorrowBytes)
      return bytes(t.rawData(), t.byteSize());
    flush();
    // The slice holds a reference to the buffer until gRPC has sent it.
    auto *held = new ir::Tensor(t);
    slices_.emplace_back(const_cast<void *>(held->rawData()), held->byteSize(),
                         [](void *p) { delete static_cast<ir::Tensor *>(p); }, held);
  }
  grpc::ByteBuffer finish() {
    flush();
    return grpc::ByteBuffer(slices_.data(), slices_.size());
  }

private:
  void flush() {
    if (!pending_.empty())
      slices_.emplace_back(pending_);
    pending_.clear();
  }
  std::vector<grpc::Slice> slices_;
  std::string pending_;
};

size_t tensorBodySize(const ir::Tensor &t) {
  size_t n = 1 + varintSize(static_cast<uint64_t>(t.dtype()));
  size_t dims = 0;
  for (int64_t d : t.dims())
    dims += varintSize(static_cast<uint64_t>(d));
  if (dims)
    n += 1 + varintSize(dims) + dims;
  if (t.dtype() == ir::DType::kString) {
    for (int64_t i = 0; i < t.numElements(); ++i)
      n += 1 + varintSize(t.strings()[i].size()) + t.strings()[i].size();
  } else {
    n += 1 + varintSize(t.byteSize()) + t.byteSize();
  }
  return n;
}

void writeTensor(SliceWriter &w, int field, const ir::Tensor &t) {
  w.varint(tag(field, kLengthDelimited));
  w.varint(tensorBodySize(t));
  w.varint(tag(kDtypeField, kVarint));
  w.varint(static_cast<uint64_t>(t.dtype()));
  size_t dims = 0;
  for (int64_t d : t.dims())
    dims += varintSize(static_cast<uint64_t>(d));
  if (dims) {
    w.varint(tag(kDimsField, kLengthDelimited));
    w.varint(dims);
    for (int64_t d : t.dims())
      w.varint(static_cast<uint64_t>(d));
  }
  if (t.dtype() == ir::DType::kString) {
    for (int64_t i = 0; i < t.numElements(); ++i) {
      const std::string &s = t.strings()[i];
      w.varint(tag(kStringsField, kLengthDelimited));
      w.varint(s.size());
      w.bytes(s.data(), s.size());
    }
    return;
  }
  w.varint(tag(kDataField, kLengthDelimited));
  w.varint(t.byteSize());
  w.data(t);
}

// Reads a message spread over gRPC slices, at any absolute position.
class SliceReader {
public:
  explicit SliceReader(std::vector<grpc::Slice> slices) : slices_(std::move(slices)) {
    for (const grpc::Slice &s : slices_) {
      starts_.push_back(size_);
      size_ += s.size();
    }
  }
  size_t size() const { return size_; }
  size_t pos() const { return pos_; }
  void seek(size_t pos) {
    pos_ = pos;
    slice_ = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), pos) -
                                 starts_.begin());
    slice_ = slice_ ? slice_ - 1 : 0;
    skipEmpty();
  }
  bool byte(uint8_t *b) {
    if (pos_ >= size_)
      return false;
    *b = slices_[slice_].begin()[pos_ - starts_[slice_]];
    advance(1);
    return true;
  }
  bool varint(uint64_t *v) {
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      uint8_t b;
      if (!byte(&b))
        return false;
      *v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }
  bool copy(void *dst, size_t n) {
    if (n > size_ - pos_)
      return false;
    auto *out = static_cast<uint8_t *>(dst);
    while (n) {
      size_t off = pos_ - starts_[slice_];
      size_t k = std::min(n, slices_[slice_].size() - off);
      std::memcpy(out, slices_[slice_].begin() + off, k);
      out += k;
      n -= k;
      advance(k);
    }
    return true;
  }
  bool skip(size_t n) {
    if (n > size_ - pos_)
      return false;
    seek(pos_ + n);
    return true;
  }

private:
  void advance(size_t n) {
    pos_ += n;
    while (slice_ < slices_.size() && pos_ >= starts_[slice_] + slices_[slice_].size())
      ++slice_;
  }
  void skipEmpty() {
    while (slice_ < slices_.size() && pos_ >= starts_[slice_] + slices_[slice_].size())
      ++slice_;
  }
  std::vector<grpc::Slice> slices_;
  std::vector<size_t> starts_;
  size_t size_ = 0, pos_ = 0, slice_ = 0;
};

// A big tensor's fresh pages are faulted in as they are first written:
// with 4 KiB pages that costs more than the copy itself (shared/peers'
// `raw touch`: 0.34 GB/s against 11 GB/s with huge pages), so the pages
// of a decoded tensor the copy is about to fill ask to be huge.
void preferHugePages(ir::Tensor &t) {
  constexpr uintptr_t kHuge = 2 << 20;
  if (t.byteSize() < 2 * kHuge)
    return;
  auto begin = reinterpret_cast<uintptr_t>(t.rawData());
  uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  uintptr_t last = (begin + t.byteSize()) & ~(kHuge - 1);
  if (last > first)
    ::madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
}

Status malformed() { return invalidArgument("a message from another task is malformed"); }

// Skips the payload of a field of `wireType` whose tag was just read.
bool skipPayload(SliceReader &r, int wireType) {
  uint64_t v;
  switch (wireType) {
  case kVarint:
    return r.varint(&v);
  case kFixed64:
    return r.skip(8);
  case kFixed32:
    return r.skip(4);
  case kLengthDelimited:
    return r.varint(&v) && r.skip(v);
  default: // groups: not in worker.proto
    return false;
  }
}

// A TensorProto in [r.pos(), end). Its data is found first and copied
// last, once the dtype and dims (in any order) say what it fills.
Expected<ir::Tensor> readTensor(SliceReader &r, size_t end) {
  int64_t dtype = 0;
  std::vector<int64_t> dims;
  std::vector<std::string> strings;
  size_t dataPos = 0, dataLen = 0;
  while (r.pos() < end) {
    uint64_t t, v;
    if (!r.varint(&t))
      return malformed();
    int field = static_cast<int>(t >> 3), wireType = static_cast<int>(t & 7);
    if (field == kDtypeField && wireType == kVarint) {
      if (!r.varint(&v))
        return malformed();
      dtype = static_cast<int64_t>(v);
    } else if (field == kDimsField && wireType == kVarint) {
      if (!r.varint(&v))
        return malformed();
      dims.push_back(static_cast<int64_t>(v));
    } else if (field == kDimsField && wireType == kLengthDelimited) {
      if (!r.varint(&v) || v > end - r.pos())
        return malformed();
      for (size_t packedEnd = r.pos() + v; r.pos() < packedEnd;) {
        uint64_t d;
        if (!r.varint(&d) || r.pos() > packedEnd)
          return malformed();
        dims.push_back(static_cast<int64_t>(d));
      }
    } else if ((field == kDataField || field == kStringsField) && wireType == kLengthDelimited) {
      if (!r.varint(&v) || v > end - r.pos())
        return malformed();
      if (field == kDataField) { // the last one counts, as in protobuf
        dataPos = r.pos();
        dataLen = v;
        r.skip(v);
      } else {
        std::string s(v, '\0');
        r.copy(s.data(), v);
        strings.push_back(std::move(s));
      }
    } else if (!skipPayload(r, wireType)) {
      return malformed();
    }
    if (r.pos() > end)
      return malformed();
  }
  if (dtype < 0 || dtype > 0xffff)
    return invalidArgument("a tensor message has an unsupported dtype " + std::to_string(dtype));
  bool isString = dtype == static_cast<int64_t>(ir::DType::kString);
  SLUICE_ASSIGN_OR_RETURN(ir::Tensor out, tensorShell(static_cast<int>(dtype), dims,
                                                      isString ? strings.size() : dataLen));
  if (out.dtype() == ir::DType::kString) {
    for (size_t i = 0; i < strings.size(); ++i)
      out.strings()[i] = std::move(strings[i]);
    return out;
  }
  preferHugePages(out);
  r.seek(dataPos);
  r.copy(out.rawData(), dataLen);
  r.seek(end);
  return out;
}

} // namespace

grpc::ByteBuffer encodeWithTensors(const google::protobuf::MessageLite &rest, int tensorField,
                                   const std::vector<ir::Tensor> &tensors) {
  SliceWriter w;
  std::string head = rest.SerializeAsString();
  w.bytes(head.data(), head.size());
  for (const ir::Tensor &t : tensors)
    writeTensor(w, tensorField, t);
  return w.finish();
}

Status decodeWithTensors(const grpc::ByteBuffer &buf, google::protobuf::MessageLite *rest,
                         int tensorField, std::vector<ir::Tensor> *tensors) {
  std::vector<grpc::Slice> slices;
  if (!buf.Dump(&slices).ok())
    return malformed();
  SliceReader r(std::move(slices));
  std::string others; // the fields protobuf parses, in their order
  while (r.pos() < r.size()) {
    size_t start = r.pos();
    uint64_t t;
    if (!r.varint(&t))
      return malformed();
    int field = static_cast<int>(t >> 3), wireType = static_cast<int>(t & 7);
    if (tensorField > 0 && field == tensorField && wireType == kLengthDelimited) {
      uint64_t len;
      if (!r.varint(&len) || len > r.size() - r.pos())
        return malformed();
      SLUICE_ASSIGN_OR_RETURN(ir::Tensor v, readTensor(r, r.pos() + len));
      tensors->push_back(std::move(v));
      continue;
    }
    if (!skipPayload(r, wireType))
      return malformed();
    size_t end = r.pos();
    others.resize(others.size() + (end - start));
    r.seek(start);
    r.copy(others.data() + others.size() - (end - start), end - start);
  }
  if (!rest->ParseFromString(others))
    return malformed();
  return Status::ok();
}

} // namespace sluice::dist
