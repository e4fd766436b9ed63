// ir/buffer_pool.cc: a size-keyed free list of large tensor buffers.
#include "ir/buffer_pool.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include <sys/mman.h>

namespace sluice::ir {

namespace {

constexpr size_t kSmallAlign = 64;
constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kPoolLimit = size_t(1) << 30;

struct Pool {
  std::mutex mu;
  std::multimap<size_t, void *> free; // capacity -> buffer
  size_t held = 0;
};

Pool &pool() {
  static Pool *p = new Pool; // never destroyed: tensors in statics outlive it
  return *p;
}

} // namespace

void *allocateBuffer(size_t bytes, size_t *capacity) {
  if (bytes < kPooledBufferBytes) {
    *capacity = (bytes + kSmallAlign - 1) / kSmallAlign * kSmallAlign;
    return std::aligned_alloc(kSmallAlign, *capacity);
  }
  // Rounded to huge pages, so that sizes close together share buffers.
  size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  *capacity = rounded;
  {
    Pool &p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    auto it = p.free.find(rounded);
    if (it != p.free.end()) {
      void *data = it->second;
      p.free.erase(it);
      p.held -= rounded;
      return data;
    }
  }
  void *data = std::aligned_alloc(kHugePage, rounded);
  if (data)
    ::madvise(data, rounded, MADV_HUGEPAGE); // advice only: failure is fine
  return data;
}

void releaseBuffer(void *data, size_t capacity) {
  if (!data)
    return;
  if (capacity >= kPooledBufferBytes) {
    Pool &p = pool();
    std::lock_guard<std::mutex> lock(p.mu);
    if (p.held + capacity <= kPoolLimit) {
      p.free.emplace(capacity, data);
      p.held += capacity;
      return;
    }
  }
  std::free(data);
}

} // namespace sluice::ir
