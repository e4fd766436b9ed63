// backend/io/crc32c.h: CRC-32C (Castagnoli) and TFRecord's masking of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sluice::backend::io {

/// CRC-32C of `data` continuing from `crc` (0 for a fresh checksum). Uses
/// the SSE4.2 instruction when the CPU has it, else a slicing-by-8 table.
uint32_t crc32cExtend(uint32_t crc, const void *data, size_t n);
inline uint32_t crc32c(const void *data, size_t n) { return crc32cExtend(0, data, n); }

/// TFRecord stores masked checksums so that a CRC of data holding CRCs
/// stays well distributed (TF's crc32c::Mask).
inline uint32_t maskCrc(uint32_t crc) {
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}
inline uint32_t unmaskCrc(uint32_t masked) {
  uint32_t rot = masked - 0xa282ead8u;
  return (rot >> 17) | (rot << 15);
}

} // namespace sluice::backend::io
