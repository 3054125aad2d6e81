// ConfigError: every configuration problem, with a message of the form
//   <file>: <key path>: <what is wrong>
// e.g. `config/dev.yaml: server.maxThreads: expected a positive integer, got "abc"`.
#pragma once

#include <stdexcept>
#include <string>

namespace hami::config {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace hami::config
