// JSON Pointer (RFC 6901) helpers shared by the object models and the patch
// builder: token escaping, and a stack-allocated path that is turned into
// text only when an error is reported, so the happy path builds no strings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hami::k8s {

// Appends "/" + token to `pointer`, escaping '~' as "~0" and '/' as "~1"
// ('~' first, so "~1" in a key becomes "~01").
void append_pointer_token(std::string& pointer, std::string_view token);

// Appends "/" + decimal index.
void append_pointer_index(std::string& pointer, size_t index);

// One step of a path from an object's root, linked to its parent and living
// on the caller's stack. A node is either a member key or an array index.
class JsonPath {
 public:
  JsonPath() = default;  // the root
  JsonPath(const JsonPath& parent, std::string_view key) : parent_(&parent), key_(key) {}
  JsonPath(const JsonPath& parent, size_t index)
      : parent_(&parent), index_(index), is_index_(true) {}

  // The RFC 6901 pointer of this node ("" for the root).
  std::string pointer() const;

 private:
  const JsonPath* parent_ = nullptr;
  std::string_view key_;
  size_t index_ = 0;
  bool is_index_ = false;
};

}  // namespace hami::k8s
