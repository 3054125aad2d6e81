#include "biren_node.hpp"

#include "biren_names.hpp"
#include "text.hpp"

namespace hami::devices::biren {

std::string reported_type(std::string_view registered_type) {
  if (icontains(registered_type, kVendor))
    return std::string(registered_type);
  std::string out(kVendor);
  if (!registered_type.empty()) {
    out += ' ';
    out += registered_type;
  }
  return out;
}

}  // namespace hami::devices::biren
