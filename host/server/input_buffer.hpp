// InputBuffer: bytes read from a connection and not yet consumed. Reads go
// into its free space directly; the storage is zero-filled only when it
// grows, never per read, and consumed bytes are reclaimed by moving the
// unread rest to the front when space runs out.
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>

namespace hami::server {

class InputBuffer {
 public:
  std::string_view unread() const { return {data_.data() + begin_, end_ - begin_}; }
  bool empty() const { return begin_ == end_; }

  void consume(std::size_t n) {
    begin_ += n;
    if (begin_ == end_)
      begin_ = end_ = 0;
  }

  // At least `size` writable bytes after the unread ones; fill them, then
  // commit() what was written.
  char* space(std::size_t size) {
    if (data_.size() - end_ < size && begin_ > 0) {
      std::memmove(data_.data(), data_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    if (data_.size() - end_ < size)
      data_.resize(end_ + size);
    return data_.data() + end_;
  }
  void commit(std::size_t n) { end_ += n; }

  // Gives storage grown past `keep` bytes back once nothing is unread.
  void shrink(std::size_t keep) {
    if (empty() && data_.size() > keep)
      std::string().swap(data_);
  }

 private:
  std::string data_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

}  // namespace hami::server
