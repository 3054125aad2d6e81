// Readiness: a set of named conditions that must all be met before /readyz
// answers 200. Parts of the host register their own condition ("plugins",
// later "cluster") and flip it as their state changes. Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hami::server {

class Readiness {
 public:
  struct Condition {
    std::string name;
    bool met = false;
    std::string detail;  // why it is not met (or a note when it is)
  };

  // Registers a condition, initially not met. Registering a name twice
  // throws std::invalid_argument.
  void add(std::string name, std::string detail = "not yet checked");

  // Updates a registered condition; an unknown name throws
  // std::invalid_argument (a wiring bug, not a runtime state).
  void set(std::string_view name, bool met, std::string detail = {});

  // True when every condition is met (and trivially when there are none).
  bool ready() const;

  // The conditions not met, in registration order.
  std::vector<Condition> unmet() const;

 private:
  mutable std::mutex mutex_;
  std::vector<Condition> conditions_;
};

}  // namespace hami::server
