// ir/buffer_pool.h: recycled storage for large tensors. Memory fresh from
// the system costs a page fault and a zeroing per page on first touch,
// which for an elementwise kernel over a big tensor is more than the work
// itself (TF's BFC allocator keeps its memory for the same reason).
#pragma once

#include <cstddef>

namespace sluice::ir {

/// Buffers of at least this many bytes go through the pool.
constexpr size_t kPooledBufferBytes = size_t(1) << 20;

/// A buffer of at least `bytes` (64-byte aligned; large ones 2 MiB aligned
/// and asked to be backed by huge pages); `*capacity` is what to pass back
/// to releaseBuffer. Null when out of memory.
void *allocateBuffer(size_t bytes, size_t *capacity);
/// Returns a buffer: kept for reuse while the pool holds under its limit
/// (1 GiB), else freed.
void releaseBuffer(void *data, size_t capacity);

} // namespace sluice::ir
