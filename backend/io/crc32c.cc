// backend/io/crc32c.cc: CRC-32C, hardware (SSE4.2) or slicing-by-8.
#include "backend/io/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <nmmintrin.h>
#define SLUICE_CRC_X86 1
#endif

namespace sluice::backend::io {

namespace {

constexpr uint32_t kPoly = 0x82f63b78u; // reflected Castagnoli polynomial

using Tables = std::array<std::array<uint32_t, 256>, 8>;

const Tables &tables() {
  static const Tables t = [] {
    Tables r{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k)
        c = (c & 1) ? (c >> 1) ^ kPoly : c >> 1;
      r[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s)
        r[s][i] = (r[s - 1][i] >> 8) ^ r[0][r[s - 1][i] & 0xff];
    return r;
  }();
  return t;
}

uint32_t softwareCrc(uint32_t crc, const unsigned char *p, size_t n) {
  const Tables &t = tables();
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8); // little-endian hosts only, as TF's own fallback
    w ^= crc;
    crc = t[7][w & 0xff] ^ t[6][(w >> 8) & 0xff] ^ t[5][(w >> 16) & 0xff] ^
          t[4][(w >> 24) & 0xff] ^ t[3][(w >> 32) & 0xff] ^
          t[2][(w >> 40) & 0xff] ^ t[1][(w >> 48) & 0xff] ^ t[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--)
    crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

#ifdef SLUICE_CRC_X86
__attribute__((target("sse4.2"))) uint32_t hardwareCrc(uint32_t crc,
                                                       const unsigned char *p,
                                                       size_t n) {
  uint64_t c = crc;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = _mm_crc32_u64(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--)
    c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}

bool haveSse42() {
  static const bool have = __builtin_cpu_supports("sse4.2");
  return have;
}
#endif

} // namespace

uint32_t crc32cExtend(uint32_t crc, const void *data, size_t n) {
  const auto *p = static_cast<const unsigned char *>(data);
  crc = ~crc;
#ifdef SLUICE_CRC_X86
  if (haveSse42())
    return ~hardwareCrc(crc, p, n);
#endif
  return ~softwareCrc(crc, p, n);
}

} // namespace sluice::backend::io
