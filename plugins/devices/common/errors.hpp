// The one exception type the vendor logic throws for bad input (a malformed
// annotation, an unusable resource value, an inconsistent call). The plugin
// binding turns it into HAMI_INVALID_ARGUMENT with the message unchanged;
// anything else escaping the logic is a bug and becomes HAMI_INTERNAL.
#ifndef HAMI_DEVICES_COMMON_ERRORS_HPP
#define HAMI_DEVICES_COMMON_ERRORS_HPP

#include <stdexcept>
#include <string>

namespace hami::devices {

class InvalidInput : public std::runtime_error {
 public:
  explicit InvalidInput(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace hami::devices

#endif  // HAMI_DEVICES_COMMON_ERRORS_HPP
