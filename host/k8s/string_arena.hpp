// StringArena: owns copies of strings in a few large blocks, so the views an
// object model hands to plugins (hami_str) stay valid for the model's
// lifetime without one allocation per string. Never frees before the arena
// dies; moving the arena keeps every stored string where it is.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

namespace hami::k8s {

class StringArena {
 public:
  StringArena() = default;
  StringArena(StringArena&&) noexcept = default;
  StringArena& operator=(StringArena&&) noexcept = default;
  StringArena(const StringArena&) = delete;
  StringArena& operator=(const StringArena&) = delete;

  // A stable copy of `text`. Empty input yields an empty view.
  std::string_view store(std::string_view text);

  // Makes room for `bytes` more in one block of exactly that size, so that
  // strings stored next, up to that total, take no further allocation and
  // leave nothing unused: for a caller that knows what it will store (a
  // node model kept for long, a thousand of them at once). What was left
  // of the current block is given up.
  void reserve(size_t bytes);

  // Bytes allocated for strings, used or not.
  size_t capacity() const { return capacity_; }

 private:
  static constexpr size_t kBlockSize = 2048;
  char* new_block(size_t bytes);

  std::vector<std::unique_ptr<char[]>> blocks_;
  char* cursor_ = nullptr;
  size_t left_ = 0;
  size_t capacity_ = 0;
};

}  // namespace hami::k8s
