#include "k8s/label_value.hpp"

namespace hami::k8s {

namespace {

bool alphanumeric(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace

bool is_label_value(std::string_view value) {
  if (value.empty())
    return true;
  if (value.size() > kLabelValueMaxLength || !alphanumeric(value.front()) ||
      !alphanumeric(value.back())) {
    return false;
  }
  for (const char c : value) {
    if (!alphanumeric(c) && c != '-' && c != '_' && c != '.')
      return false;
  }
  return true;
}

}  // namespace hami::k8s
