// backend/io/checkpoint.cc: the checkpoint byte format (see checkpoint.h
// and docs/internals/checkpoint-format.md), its reader and durable writer.
//
// P.index: "SLUICKPT", u32 version, u32 num_shards, u64 checkpoint id,
//   u64 index bytes, u64 entry count, the entries sorted by name (u32 name
//   length, name, u8 dtype code, u32 rank, i64 dims, u32 shard, u64
//   offset, u64 size, u32 masked CRC32C of the payload), and a masked
//   CRC32C of everything before it. Little-endian throughout.
// P.data-k-of-N: a 48-byte header ("SLUICDAT", u32 version, u32 shard,
//   u32 num_shards, u32 zero, u64 checkpoint id, u64 file bytes, u32
//   masked CRC32C of the 40 bytes before it, u32 zero), then payloads at
//   8-aligned offsets: raw elements, or for strings u64 length + bytes per
//   element.
#include "backend/io/checkpoint.h"

#include <algorithm>
#include <cassert>
#include <bit>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <random>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/io/buffered_file.h"
#include "backend/io/crc32c.h"

namespace sluice::backend::io {

static_assert(std::endian::native == std::endian::little,
              "the checkpoint format is written with the host's byte order");

namespace {

constexpr char kIndexMagic[8] = {'S', 'L', 'U', 'I', 'C', 'K', 'P', 'T'};
constexpr char kDataMagic[8] = {'S', 'L', 'U', 'I', 'C', 'D', 'A', 'T'};
constexpr size_t kIndexHeaderBytes = 40;
constexpr size_t kDataHeaderBytes = 48;
constexpr uint32_t kMaxRank = 64;

// Dtype codes are the format's own, so reordering ir::DType never changes
// what a file means.
struct DTypeCode {
  ir::DType dtype;
  uint8_t code;
};
constexpr DTypeCode kDTypeCodes[] = {
    {ir::DType::kF16, 1}, {ir::DType::kF32, 2}, {ir::DType::kF64, 3},
    {ir::DType::kI8, 4},  {ir::DType::kI16, 5}, {ir::DType::kI32, 6},
    {ir::DType::kI64, 7}, {ir::DType::kU8, 8},  {ir::DType::kBool, 9},
    {ir::DType::kString, 10},
};

std::optional<uint8_t> codeOf(ir::DType t) {
  for (const DTypeCode &c : kDTypeCodes)
    if (c.dtype == t)
      return c.code;
  return std::nullopt;
}
std::optional<ir::DType> dtypeOfCode(uint8_t code) {
  for (const DTypeCode &c : kDTypeCodes)
    if (c.code == code)
      return c.dtype;
  return std::nullopt;
}

template <typename T> void put(std::string &out, T v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}

/// A bounds-checked cursor over bytes read from a file.
class Cursor {
public:
  Cursor(std::string_view bytes) : bytes_(bytes) {}
  template <typename T> bool get(T *v) {
    if (bytes_.size() - pos_ < sizeof(T))
      return false;
    std::memcpy(v, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }
  bool getBytes(size_t n, std::string *out) {
    if (bytes_.size() - pos_ < n)
      return false;
    out->assign(bytes_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  size_t pos() const { return pos_; }

private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

uint64_t randomId() {
  std::random_device rd;
  uint64_t id = (uint64_t(rd()) << 32) ^ rd();
  return id ^ (uint64_t(::getpid()) << 16);
}

std::string dirOf(const std::string &path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos)
    return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
std::string baseOf(const std::string &path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Status fsyncDir(const std::string &dir) {
  int fd = openFile(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return fileError(dir, errno);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  // Some file systems cannot fsync a directory; the rename still happened.
  if (rc != 0 && err != EINVAL && err != EROFS)
    return fileError(dir, err);
  return Status::ok();
}

/// Writes `bytes` to a new temporary beside `path` and fsyncs it; returns
/// the temporary's path.
Expected<std::string> writeTemporary(const std::string &path, std::string_view bytes) {
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".tmp-%016llx",
                static_cast<unsigned long long>(randomId()));
  std::string tmp = path + suffix;
  int fd = openFile(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return fileError(tmp, errno);
  Status s = writeAll(fd, tmp, bytes);
  if (s.isOk() && ::fsync(fd) != 0)
    s = fileError(tmp, errno);
  if (::close(fd) != 0 && s.isOk())
    s = fileError(tmp, errno);
  if (!s.isOk()) {
    ::unlink(tmp.c_str());
    return s;
  }
  return tmp;
}

Status renameInto(const std::string &tmp, const std::string &path) {
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fileError(path, errno);
  return Status::ok();
}

/// An index is a few bytes per tensor; a huge file is damage, not one to
/// read into memory.
constexpr int64_t kMaxIndexBytes = int64_t(1) << 30;

Expected<std::string> readWholeFile(const std::string &path) {
  BufferedFile f;
  SLUICE_TRY(f.open(path));
  if (f.size() > kMaxIndexBytes)
    return Status(Code::kDataLoss, path + " is corrupt (" + std::to_string(f.size()) +
                                       " bytes is too large for an index)");
  std::string bytes(static_cast<size_t>(f.size()), '\0');
  SLUICE_ASSIGN_OR_RETURN(size_t got, f.readAt(0, bytes.size(), bytes.data()));
  bytes.resize(got);
  return bytes;
}

Status dataLoss(std::string msg) { return Status(Code::kDataLoss, std::move(msg)); }

/// The payload bytes of `t`.
std::string encodePayload(const ir::Tensor &t) {
  if (t.dtype() != ir::DType::kString)
    return std::string(static_cast<const char *>(t.rawData()), t.byteSize());
  std::string out;
  for (int64_t i = 0; i < t.numElements(); ++i) {
    const std::string &s = t.strings()[i];
    put<uint64_t>(out, s.size());
    out += s;
  }
  return out;
}

} // namespace

std::string checkpointIndexPath(const std::string &prefix) { return prefix + ".index"; }
std::string checkpointMetaPath(const std::string &prefix) { return prefix + ".meta"; }
std::string checkpointDataPath(const std::string &prefix, int shard, int numShards) {
  char buf[40];
  std::snprintf(buf, sizeof buf, ".data-%05d-of-%05d", shard, numShards);
  return prefix + buf;
}

bool checkpointExists(const std::string &prefix) {
  struct stat st;
  return ::stat(checkpointIndexPath(prefix).c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

namespace {

/// Where a write to `path` lands: `path` itself, or the file its chain of
/// symbolic links ends at (which may not exist yet).
Expected<std::string> followLinks(const std::string &path) {
  std::string at = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(at.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
      return at;
    if (hops == 40)
      return invalidArgument(path + ": too many levels of symbolic links");
    std::string link(4096, '\0');
    ssize_t n = ::readlink(at.c_str(), link.data(), link.size());
    if (n < 0)
      return fileError(at, errno);
    link.resize(static_cast<size_t>(n));
    at = link.empty() || link[0] == '/' ? link : dirOf(at) + "/" + link;
  }
}

/// Writes into an existing file that is not a regular one (a device, a
/// FIFO) in place: renaming over it would replace it.
Status writeInPlace(const std::string &path, std::string_view bytes) {
  int fd = openFile(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return fileError(path, errno);
  Status s = writeAll(fd, path, bytes);
  if (::close(fd) != 0 && s.isOk())
    s = fileError(path, errno);
  return s;
}

} // namespace

Status writeFileAtomically(const std::string &path, std::string_view bytes) {
  // What the user named decides how it is written: a regular file (or a
  // new one) is replaced atomically, a symbolic link's target is (the link
  // stays), and a device or FIFO is written in place, never turned into a
  // regular file.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode))
      return fileError(path, EISDIR);
    // open() follows the links, /proc's too (/dev/stdout to a pipe).
    return writeInPlace(path, bytes);
  }
  SLUICE_ASSIGN_OR_RETURN(std::string target, followLinks(path));
  SLUICE_ASSIGN_OR_RETURN(std::string tmp, writeTemporary(target, bytes));
  if (Status s = renameInto(tmp, target); !s) {
    ::unlink(tmp.c_str());
    return s;
  }
  return fsyncDir(dirOf(target));
}

Status writeCheckpoint(const std::string &prefix, const std::vector<SaveEntry> &entries,
                       const CheckpointWriteOptions &opts) {
  const int numShards = opts.numShards;
  if (numShards < 1)
    return invalidArgument("a checkpoint needs at least one shard, got " +
                           std::to_string(numShards));
  std::vector<const SaveEntry *> sorted;
  std::set<std::string> names;
  for (const SaveEntry &e : entries) {
    if (e.name.empty())
      return invalidArgument("cannot save a tensor with an empty name");
    if (!names.insert(e.name).second)
      return invalidArgument("tensor name '" + e.name + "' is saved twice");
    if (e.shard < 0 || e.shard >= numShards)
      return invalidArgument("tensor '" + e.name + "' is in shard " +
                             std::to_string(e.shard) + " of " + std::to_string(numShards));
    if (!codeOf(e.value.dtype()))
      return invalidArgument("cannot save tensor '" + e.name + "' of dtype " +
                             std::string(ir::dtypeName(e.value.dtype())));
    sorted.push_back(&e);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const SaveEntry *a, const SaveEntry *b) { return a->name < b->name; });

  const uint64_t id = randomId();
  // Data files: header, then each payload at an 8-aligned offset.
  std::vector<std::string> data(numShards);
  std::string entryBytes;
  for (int k = 0; k < numShards; ++k)
    data[k].assign(kDataHeaderBytes, '\0');
  for (const SaveEntry *e : sorted) {
    std::string &file = data[e->shard];
    file.resize((file.size() + 7) & ~size_t(7), '\0');
    uint64_t offset = file.size();
    std::string payload = encodePayload(e->value);
    file += payload;
    put<uint32_t>(entryBytes, static_cast<uint32_t>(e->name.size()));
    entryBytes += e->name;
    put<uint8_t>(entryBytes, *codeOf(e->value.dtype()));
    put<uint32_t>(entryBytes, static_cast<uint32_t>(e->value.rank()));
    for (int64_t d : e->value.dims())
      put<int64_t>(entryBytes, d);
    put<uint32_t>(entryBytes, static_cast<uint32_t>(e->shard));
    put<uint64_t>(entryBytes, offset);
    put<uint64_t>(entryBytes, payload.size());
    put<uint32_t>(entryBytes, maskCrc(crc32c(payload.data(), payload.size())));
  }
  for (int k = 0; k < numShards; ++k) {
    std::string header(kDataMagic, 8);
    put<uint32_t>(header, kCheckpointVersion);
    put<uint32_t>(header, static_cast<uint32_t>(k));
    put<uint32_t>(header, static_cast<uint32_t>(numShards));
    put<uint32_t>(header, 0);
    put<uint64_t>(header, id);
    put<uint64_t>(header, data[k].size());
    put<uint32_t>(header, maskCrc(crc32c(header.data(), header.size())));
    put<uint32_t>(header, 0);
    std::memcpy(data[k].data(), header.data(), kDataHeaderBytes);
  }
  std::string index(kIndexMagic, 8);
  put<uint32_t>(index, kCheckpointVersion);
  put<uint32_t>(index, static_cast<uint32_t>(numShards));
  put<uint64_t>(index, id);
  put<uint64_t>(index, kIndexHeaderBytes + entryBytes.size() + 4);
  put<uint64_t>(index, sorted.size());
  index += entryBytes;
  put<uint32_t>(index, maskCrc(crc32c(index.data(), index.size())));

  auto step = [&](std::string_view name) {
    if (opts.onStep)
      opts.onStep(name);
  };
  std::vector<std::string> temps;
  auto cleanup = [&](Status s) {
    for (const std::string &t : temps)
      ::unlink(t.c_str());
    return s;
  };
  for (int k = 0; k < numShards; ++k) {
    auto tmp = writeTemporary(checkpointDataPath(prefix, k, numShards), data[k]);
    if (!tmp.hasValue())
      return cleanup(tmp.takeStatus());
    temps.push_back(*tmp);
  }
  step("data-synced");
  auto indexTmp = writeTemporary(checkpointIndexPath(prefix), index);
  if (!indexTmp.hasValue())
    return cleanup(indexTmp.takeStatus());
  temps.push_back(*indexTmp);
  step("index-synced");
  const std::string dir = dirOf(prefix);
  // Rewriting P: its old index goes first, so that no moment pairs an
  // index with data files of another write.
  if (checkpointExists(prefix)) {
    if (::unlink(checkpointIndexPath(prefix).c_str()) != 0 && errno != ENOENT)
      return cleanup(fileError(checkpointIndexPath(prefix), errno));
    if (Status s = fsyncDir(dir); !s)
      return cleanup(s);
    step("old-index-removed");
  }
  for (int k = 0; k < numShards; ++k)
    if (Status s = renameInto(temps[k], checkpointDataPath(prefix, k, numShards)); !s)
      return cleanup(s);
  if (Status s = fsyncDir(dir); !s)
    return cleanup(s);
  step("data-renamed");
  if (Status s = renameInto(temps.back(), checkpointIndexPath(prefix)); !s)
    return cleanup(s);
  temps.clear();
  SLUICE_TRY(fsyncDir(dir));
  step("index-renamed");
  return Status::ok();
}

CheckpointReader::~CheckpointReader() {
  for (auto &[shard, fd] : shardFds_)
    ::close(fd);
}

Expected<std::unique_ptr<CheckpointReader>> CheckpointReader::open(const std::string &prefix) {
  const std::string path = checkpointIndexPath(prefix);
  auto bytesOr = readWholeFile(path);
  if (!bytesOr.hasValue()) {
    Status s = bytesOr.takeStatus();
    if (s.code() == Code::kNotFound)
      return notFound("no checkpoint at " + prefix + ": " + path + " does not exist");
    return s;
  }
  const std::string &bytes = *bytesOr;
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kIndexMagic, 8) != 0)
    return dataLoss(path + " is not a Sluice checkpoint index (bad magic)");
  if (bytes.size() < kIndexHeaderBytes + 4)
    return dataLoss(path + " is truncated (" + std::to_string(bytes.size()) + " bytes)");
  uint64_t declared;
  std::memcpy(&declared, bytes.data() + 24, 8);
  if (declared != bytes.size())
    return dataLoss(path + " is " +
                    (bytes.size() < declared ? std::string("truncated")
                                             : std::string("corrupt")) +
                    " (" + std::to_string(bytes.size()) + " bytes, the header says " +
                    std::to_string(declared) + ")");
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  if (unmaskCrc(stored) != crc32c(bytes.data(), bytes.size() - 4))
    return dataLoss(path + " is corrupt (checksum mismatch)");

  auto reader = std::unique_ptr<CheckpointReader>(new CheckpointReader());
  reader->prefix_ = prefix;
  Cursor c(std::string_view(bytes).substr(0, bytes.size() - 4));
  // The header's 40 bytes are there (checked above).
  char magic[8];
  uint32_t version = 0, numShards = 0;
  uint64_t total = 0, count = 0;
  bool header = c.get(&magic) && c.get(&version) && c.get(&numShards) &&
                c.get(&reader->id_) && c.get(&total) && c.get(&count);
  assert(header && "index header size was checked");
  (void)header;
  if (version > kCheckpointVersion || version == 0)
    return dataLoss(path + " has format version " + std::to_string(version) +
                    "; this build reads version " + std::to_string(kCheckpointVersion));
  if (numShards == 0 || numShards > 100000)
    return dataLoss(path + " is corrupt (" + std::to_string(numShards) + " shards)");
  reader->numShards_ = static_cast<int>(numShards);
  auto bad = [&](const std::string &what) {
    return dataLoss(path + " is corrupt (" + what + ")");
  };
  // Each entry takes at least 33 bytes: a count beyond that is a lie.
  if (count > bytes.size() / 33)
    return bad("entry count " + std::to_string(count));
  std::set<std::string> seen;
  for (uint64_t i = 0; i < count; ++i) {
    CheckpointEntry e;
    uint32_t nameLen, rank, shard;
    uint8_t code;
    if (!c.get(&nameLen) || !c.getBytes(nameLen, &e.name) || !c.get(&code) || !c.get(&rank))
      return bad("entry " + std::to_string(i) + " is cut short");
    auto dtype = dtypeOfCode(code);
    if (!dtype)
      return bad("tensor '" + e.name + "' has unknown dtype code " + std::to_string(code));
    e.dtype = *dtype;
    if (rank > kMaxRank)
      return bad("tensor '" + e.name + "' has rank " + std::to_string(rank));
    uint64_t elements = 1;
    for (uint32_t d = 0; d < rank; ++d) {
      int64_t dim;
      if (!c.get(&dim))
        return bad("entry '" + e.name + "' is cut short");
      if (dim < 0 || (dim > 0 && elements > (uint64_t(1) << 62) / uint64_t(dim)))
        return bad("tensor '" + e.name + "' has dimension " + std::to_string(dim));
      elements *= static_cast<uint64_t>(dim);
      e.dims.push_back(dim);
    }
    uint32_t crc;
    if (!c.get(&shard) || !c.get(&e.offset) || !c.get(&e.size) || !c.get(&crc))
      return bad("entry '" + e.name + "' is cut short");
    e.crc = unmaskCrc(crc);
    if (shard >= numShards)
      return bad("tensor '" + e.name + "' is in shard " + std::to_string(shard) + " of " +
                 std::to_string(numShards));
    e.shard = static_cast<int>(shard);
    size_t width = ir::dtypeSize(e.dtype);
    if (e.dtype != ir::DType::kString && e.size != elements * width)
      return bad("tensor '" + e.name + "' has " + std::to_string(e.size) + " bytes for " +
                 std::to_string(elements) + " elements");
    if (e.dtype == ir::DType::kString && e.size < elements * 8)
      return bad("tensor '" + e.name + "' is too short for its strings");
    if (e.offset < kDataHeaderBytes || e.offset > (uint64_t(1) << 62) ||
        e.size > (uint64_t(1) << 62))
      return bad("tensor '" + e.name + "' has offset " + std::to_string(e.offset));
    if (!seen.insert(e.name).second)
      return bad("tensor '" + e.name + "' is listed twice");
    reader->entries_.push_back(std::move(e));
  }
  if (c.pos() != bytes.size() - 4)
    return bad("bytes after the last entry");
  std::sort(reader->entries_.begin(), reader->entries_.end(),
            [](const CheckpointEntry &a, const CheckpointEntry &b) { return a.name < b.name; });
  return reader;
}

const CheckpointEntry *CheckpointReader::find(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const CheckpointEntry &e, std::string_view n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

Status CheckpointReader::openShard(int shard) {
  if (shardFds_.count(shard))
    return Status::ok();
  const std::string path = checkpointDataPath(prefix_, shard, numShards_);
  int fd = openFile(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    Status s = fileError(path, errno);
    if (s.code() == Code::kNotFound)
      return dataLoss("checkpoint " + prefix_ + " is incomplete: " + path + " is missing");
    return s;
  }
  struct stat st;
  char header[kDataHeaderBytes];
  ssize_t got = ::fstat(fd, &st) == 0 ? ::pread(fd, header, sizeof header, 0) : -1;
  if (got < 0) {
    Status s = fileError(path, errno);
    ::close(fd);
    return s;
  }
  auto fail = [&](const std::string &what) {
    ::close(fd);
    return dataLoss(path + " " + what);
  };
  if (got < 8 || std::memcmp(header, kDataMagic, 8) != 0)
    return fail("is not a Sluice checkpoint data file (bad magic)");
  if (static_cast<size_t>(got) < kDataHeaderBytes)
    return fail("is truncated (" + std::to_string(got) + " bytes)");
  uint32_t version, fileShard, fileShards, crc;
  uint64_t id, declared;
  std::memcpy(&version, header + 8, 4);
  std::memcpy(&fileShard, header + 12, 4);
  std::memcpy(&fileShards, header + 16, 4);
  std::memcpy(&id, header + 24, 8);
  std::memcpy(&declared, header + 32, 8);
  std::memcpy(&crc, header + 40, 4);
  if (unmaskCrc(crc) != crc32c(header, 40))
    return fail("is corrupt (header checksum mismatch)");
  if (static_cast<uint64_t>(st.st_size) < declared)
    return fail("is truncated (" + std::to_string(st.st_size) + " of " +
                std::to_string(declared) + " bytes)");
  if (static_cast<uint64_t>(st.st_size) > declared)
    return fail("is corrupt (" + std::to_string(st.st_size) + " bytes, the header says " +
                std::to_string(declared) + ")");
  if (version != kCheckpointVersion)
    return fail("has format version " + std::to_string(version));
  if (fileShard != static_cast<uint32_t>(shard) ||
      fileShards != static_cast<uint32_t>(numShards_) || id != id_)
    return fail("belongs to another checkpoint than " + checkpointIndexPath(prefix_));
  shardFds_[shard] = fd;
  return Status::ok();
}

Expected<ir::Tensor> CheckpointReader::read(const CheckpointEntry &e) {
  SLUICE_TRY(openShard(e.shard));
  int fd = shardFds_[e.shard];
  const std::string path = checkpointDataPath(prefix_, e.shard, numShards_);
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return fileError(path, errno);
  if (e.offset + e.size > static_cast<uint64_t>(st.st_size))
    return dataLoss("checkpoint " + prefix_ + ": tensor '" + e.name + "' lies past the end of " +
                    path + " (truncated)");
  std::string payload(static_cast<size_t>(e.size), '\0');
  size_t done = 0;
  while (done < payload.size()) {
    ssize_t got = ::pread(fd, payload.data() + done, payload.size() - done,
                          static_cast<off_t>(e.offset + done));
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return fileError(path, errno);
    if (got == 0)
      return dataLoss("checkpoint " + prefix_ + ": tensor '" + e.name + "' in " + path +
                      " is truncated");
    done += static_cast<size_t>(got);
  }
  if (crc32c(payload.data(), payload.size()) != e.crc)
    return dataLoss("checkpoint " + prefix_ + ": tensor '" + e.name + "' in " + path +
                    " is corrupt (checksum mismatch)");
  ir::Tensor t = ir::Tensor::uninitialized(e.dtype, e.dims);
  if (e.dtype != ir::DType::kString) {
    std::memcpy(t.rawData(), payload.data(), payload.size());
    if (e.dtype == ir::DType::kBool) // a bool is 0 or 1, whatever the byte said
      for (int64_t i = 0; i < t.numElements(); ++i)
        t.data<bool>()[i] = reinterpret_cast<const unsigned char *>(payload.data())[i] != 0;
    return t;
  }
  Cursor c(payload);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    uint64_t len;
    if (!c.get(&len) || len > payload.size() || !c.getBytes(static_cast<size_t>(len), &t.strings()[i]))
      return dataLoss("checkpoint " + prefix_ + ": tensor '" + e.name + "' in " + path +
                      " is corrupt (bad string lengths)");
  }
  if (c.pos() != payload.size())
    return dataLoss("checkpoint " + prefix_ + ": tensor '" + e.name + "' in " + path +
                    " is corrupt (bytes after its strings)");
  return t;
}

Status deleteCheckpoint(const std::string &prefix) {
  auto remove = [](const std::string &p) -> Status {
    if (::unlink(p.c_str()) != 0 && errno != ENOENT)
      return fileError(p, errno);
    return Status::ok();
  };
  SLUICE_TRY(remove(checkpointIndexPath(prefix)));
  const std::string dir = dirOf(prefix);
  const std::string dataPrefix = baseOf(prefix) + ".data-";
  std::vector<std::string> doomed;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *ent = ::readdir(d)) {
      std::string name = ent->d_name;
      if (name.compare(0, dataPrefix.size(), dataPrefix) == 0 &&
          name.find(".tmp-") == std::string::npos)
        doomed.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  for (const std::string &p : doomed)
    SLUICE_TRY(remove(p));
  return remove(checkpointMetaPath(prefix));
}

int removeStaleTemporaries(const std::string &dir, const std::string &namePrefix) {
  int removed = 0;
  std::vector<std::string> doomed;
  if (DIR *d = ::opendir(dir.c_str())) {
    while (dirent *ent = ::readdir(d)) {
      std::string name = ent->d_name;
      if (name.compare(0, namePrefix.size(), namePrefix) == 0 &&
          name.find(".tmp-") != std::string::npos)
        doomed.push_back(dir + "/" + name);
    }
    ::closedir(d);
  }
  for (const std::string &p : doomed)
    if (::unlink(p.c_str()) == 0)
      ++removed;
  return removed;
}

} // namespace sluice::backend::io
