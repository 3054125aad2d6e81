#include "k8s/json_path.hpp"

#include <charconv>
#include <vector>

namespace hami::k8s {

void append_pointer_token(std::string& pointer, std::string_view token) {
  pointer.push_back('/');
  for (const char c : token) {
    if (c == '~') {
      pointer += "~0";
    } else if (c == '/') {
      pointer += "~1";
    } else {
      pointer.push_back(c);
    }
  }
}

void append_pointer_index(std::string& pointer, size_t index) {
  char digits[24];
  const auto result = std::to_chars(digits, digits + sizeof digits, index);
  pointer.push_back('/');
  pointer.append(digits, result.ptr);
}

std::string JsonPath::pointer() const {
  std::vector<const JsonPath*> chain;
  for (const JsonPath* node = this; node->parent_ != nullptr; node = node->parent_) {
    chain.push_back(node);
  }
  std::string out;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if ((*it)->is_index_) {
      append_pointer_index(out, (*it)->index_);
    } else {
      append_pointer_token(out, (*it)->key_);
    }
  }
  return out;
}

}  // namespace hami::k8s
