#include "k8s/string_arena.hpp"

#include <cstring>

namespace hami::k8s {

char* StringArena::new_block(size_t bytes) {
  blocks_.push_back(std::make_unique_for_overwrite<char[]>(bytes));
  capacity_ += bytes;
  return blocks_.back().get();
}

void StringArena::reserve(size_t bytes) {
  if (bytes <= left_)
    return;
  cursor_ = new_block(bytes);
  left_ = bytes;
}

std::string_view StringArena::store(std::string_view text) {
  if (text.empty())
    return {};
  if (text.size() > left_) {
    // A string larger than a block gets a block of its own; the current
    // block stays open for later small strings.
    if (text.size() > kBlockSize / 2) {
      char* const block = new_block(text.size());
      std::memcpy(block, text.data(), text.size());
      return {block, text.size()};
    }
    cursor_ = new_block(kBlockSize);
    left_ = kBlockSize;
  }
  char* const out = cursor_;
  std::memcpy(out, text.data(), text.size());
  cursor_ += text.size();
  left_ -= text.size();
  return {out, text.size()};
}

}  // namespace hami::k8s
