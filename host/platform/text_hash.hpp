// 64-bit hashes of text for what stays inside the process: change
// detection (has a node's registration changed since it was decoded?) and
// lookup keys. XXH3, inlined from the xxhash header: it reads long texts
// several times faster than std::hash (a thousand 2 KB registrations per
// full-Nodes call), and gives the same value for the same bytes in every
// process. Not a defence against texts chosen to collide: whoever can write
// a node's annotations can write its registration outright.
#pragma once

#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace hami::platform {

// A 128-bit digest of a text under a seed, for telling whether a text is
// one seen before without keeping it (equal texts, equal digests).
struct TextDigest {
  uint64_t low = 0;
  uint64_t high = 0;
  friend bool operator==(const TextDigest&, const TextDigest&) = default;
};

inline TextDigest text_digest(std::string_view text, uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(text.data(), text.size(), seed);
  return {h.low64, h.high64};
}

inline uint64_t text_hash(std::string_view text) {
  return XXH3_64bits(text.data(), text.size());
}

// Folds `text` into `seed`, order-sensitive: a sequence of texts hashes
// differently from the same texts in another order or split elsewhere
// (each text's hash is seeded with everything before it).
inline void hash_append(uint64_t& seed, std::string_view text) {
  seed =
      XXH3_64bits_withSeed(text.data(), text.size(), seed ^ (text.size() * 0x9e3779b97f4a7c15ull));
}

// Folds a hash computed earlier into `seed`, order-sensitive.
inline void hash_append(uint64_t& seed, uint64_t hash) {
  seed = XXH3_64bits_withSeed(&hash, sizeof hash, seed);
}

}  // namespace hami::platform
