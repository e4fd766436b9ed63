// backend/jit/object_cache.cc: the on-disk object cache.
//
// File layout: "SLUICE-JIT-OBJ 1\n", u64 key length, key bytes, u64 object
// length, u64 FNV-1a of the object, object bytes (integers little-endian).
// The whole key is stored, so a hash collision reads as a mismatch.
#include "backend/jit/object_cache.h"
#include "support/settings.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <vector>

namespace sluice::backend::jit {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[] = "SLUICE-JIT-OBJ 1\n";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;

void putU64(std::string &out, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool getU64(const std::string &in, size_t &pos, uint64_t &v) {
  if (in.size() - pos < 8 || pos > in.size())
    return false;
  v = 0;
  for (int i = 0; i < 8; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(in[pos + i])) << (8 * i);
  pos += 8;
  return true;
}

std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

} // namespace

uint64_t fnv1a64(const std::string &bytes) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string ObjectCache::defaultDirectory() {
  auto s = settings();
  if (s->jitCacheDir)
    return *s->jitCacheDir == "off" ? std::string() : *s->jitCacheDir;
  if (!s->cacheHome.empty())
    return (fs::path(s->cacheHome) / "sluice" / "jit").string();
  return std::string();
}

uint64_t ObjectCache::defaultMaxBytes() {
  constexpr uint64_t kDefaultMiB = 256;
  const std::string text = settings()->jitCacheMaxMb;
  if (text.empty())
    return kDefaultMiB << 20;
  const char *v = text.c_str();
  char *end = nullptr;
  unsigned long long mib = std::strtoull(v, &end, 10);
  if (*end != '\0' || mib == 0 || mib > (uint64_t{1} << 40))
    return kDefaultMiB << 20;
  return static_cast<uint64_t>(mib) << 20;
}

std::string ObjectCache::pathFor(const std::string &key) const {
  return (fs::path(dir_) / (hex(fnv1a64(key)) + ".o")).string();
}

ObjectCache::Result ObjectCache::load(const std::string &key, std::string &object,
                                      std::string &why) const {
  if (!enabled())
    return Result::kMissing;
  std::ifstream in(pathFor(key), std::ios::binary);
  if (!in)
    return Result::kMissing;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string data = ss.str();
  if (data.compare(0, kMagicLen, kMagic) != 0 || data.size() < kMagicLen) {
    why = "bad header";
    return Result::kCorrupt;
  }
  size_t pos = kMagicLen;
  uint64_t keyLen = 0, objLen = 0, sum = 0;
  if (!getU64(data, pos, keyLen) || keyLen > data.size() - pos) {
    why = "truncated key";
    return Result::kCorrupt;
  }
  if (data.compare(pos, keyLen, key) != 0 || keyLen != key.size()) {
    why = "the key differs (another cluster, LLVM or CPU)";
    return Result::kCorrupt;
  }
  pos += keyLen;
  if (!getU64(data, pos, objLen) || !getU64(data, pos, sum)) {
    why = "truncated header";
    return Result::kCorrupt;
  }
  if (objLen != data.size() - pos) {
    why = "object is " + std::to_string(data.size() - pos) + " bytes, header says " +
          std::to_string(objLen);
    return Result::kCorrupt;
  }
  object = data.substr(pos);
  if (fnv1a64(object) != sum) {
    why = "checksum mismatch";
    return Result::kCorrupt;
  }
  // The file's time is its last use, for trim(); a read-only cache keeps
  // working without it.
  std::error_code ec;
  fs::last_write_time(pathFor(key), fs::file_time_type::clock::now(), ec);
  return Result::kHit;
}

bool ObjectCache::store(const std::string &key, const std::string &object,
                        std::string &why) const {
  if (!enabled())
    return false;
  std::error_code ec;
  fs::create_directories(dir_, ec);
  std::string data(kMagic, kMagicLen);
  putU64(data, key.size());
  data += key;
  putU64(data, object.size());
  putU64(data, fnv1a64(object));
  data += object;
  std::string path = pathFor(key);
  std::random_device rd;
  std::string tmp = path + ".tmp-" + hex((uint64_t(rd()) << 32) | rd());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      why = "cannot write " + tmp;
      fs::remove(tmp, ec);
      return false;
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    why = "cannot rename " + tmp + ": " + ec.message();
    fs::remove(tmp, ec);
    return false;
  }
  return true;
}

ObjectCache::Trimmed ObjectCache::trim(const std::string &keep) const {
  Trimmed out;
  if (!enabled())
    return out;
  struct Entry {
    fs::file_time_type used;
    uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  const auto staleBefore = fs::file_time_type::clock::now() - std::chrono::hours(1);
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e;
    if (!it->is_regular_file(e))
      continue;
    const fs::path &p = it->path();
    std::string name = p.filename().string();
    fs::file_time_type used = it->last_write_time(e);
    uint64_t size = it->file_size(e);
    if (e)
      continue; // removed by another process meanwhile
    if (name.find(".o.tmp-") != std::string::npos) {
      if (used < staleBefore && fs::remove(p, e)) {
        ++out.files;
        out.bytes += size;
      }
      continue;
    }
    if (p.extension() != ".o")
      continue; // not ours: never removed
    total += size;
    if (p.string() != keep)
      entries.push_back({used, size, p});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry &a, const Entry &b) { return a.used < b.used; });
  for (const Entry &e : entries) {
    if (total <= maxBytes_)
      break;
    std::error_code rm;
    // Another process may trim at the same time: a file already gone
    // counts as freed, not removed by us.
    bool removed = fs::remove(e.path, rm);
    total -= e.size;
    if (removed) {
      ++out.files;
      out.bytes += e.size;
    }
  }
  return out;
}

} // namespace sluice::backend::jit
