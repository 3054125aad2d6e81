// JsonPatch: an RFC 6902 document written operation by operation straight
// into its JSON text. Paths are RFC 6901 pointers the caller has already
// escaped (k8s::append_pointer_token); values are the few shapes the webhook
// writes: a string, an empty object or array, or an object of strings.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace hami::admission {

class JsonPatch {
 public:
  using Members = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  void add(std::string_view path, std::string_view value);
  void replace(std::string_view path, std::string_view value);
  void add_object(std::string_view path, Members members);
  void replace_object(std::string_view path, Members members);
  void add_empty_object(std::string_view path);
  void add_empty_array(std::string_view path);

  bool empty() const noexcept { return count_ == 0; }
  size_t size() const noexcept { return count_; }

  // The document, "[]" when empty.
  std::string json() const;

 private:
  // Writes `{"op":"<name>","path":"<path>","value":`; the caller writes the
  // value and the closing brace.
  void begin(std::string_view name, std::string_view path);
  void append_members(Members members);

  std::string ops_;  // the operations, comma-separated, without brackets
  size_t count_ = 0;
};

}  // namespace hami::admission
