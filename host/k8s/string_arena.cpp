#include "k8s/string_arena.hpp"

#include <cstring>

namespace hami::k8s {

std::string_view StringArena::store(std::string_view text) {
  if (text.empty())
    return {};
  if (text.size() > left_) {
    // A string larger than a block gets a block of its own; the current
    // block stays open for later small strings.
    if (text.size() > kBlockSize / 2) {
      blocks_.push_back(std::make_unique_for_overwrite<char[]>(text.size()));
      std::memcpy(blocks_.back().get(), text.data(), text.size());
      return {blocks_.back().get(), text.size()};
    }
    blocks_.push_back(std::make_unique_for_overwrite<char[]>(kBlockSize));
    cursor_ = blocks_.back().get();
    left_ = kBlockSize;
  }
  char* const out = cursor_;
  std::memcpy(out, text.data(), text.size());
  cursor_ += text.size();
  left_ -= text.size();
  return {out, text.size()};
}

}  // namespace hami::k8s
