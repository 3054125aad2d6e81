#include "server/readiness.hpp"

#include <algorithm>
#include <stdexcept>

namespace hami::server {

void Readiness::add(std::string name, std::string detail) {
  const std::lock_guard lock(mutex_);
  const bool exists = std::any_of(conditions_.begin(), conditions_.end(),
                                  [&](const Condition& c) { return c.name == name; });
  if (exists)
    throw std::invalid_argument("readiness condition registered twice: " + name);
  conditions_.push_back(Condition{std::move(name), false, std::move(detail)});
}

void Readiness::set(std::string_view name, bool met, std::string detail) {
  const std::lock_guard lock(mutex_);
  for (auto& c : conditions_) {
    if (c.name == name) {
      c.met = met;
      c.detail = std::move(detail);
      return;
    }
  }
  throw std::invalid_argument("unknown readiness condition: " + std::string(name));
}

bool Readiness::ready() const {
  const std::lock_guard lock(mutex_);
  return std::all_of(conditions_.begin(), conditions_.end(),
                     [](const Condition& c) { return c.met; });
}

std::vector<Readiness::Condition> Readiness::unmet() const {
  const std::lock_guard lock(mutex_);
  std::vector<Condition> out;
  for (const auto& c : conditions_) {
    if (!c.met)
      out.push_back(c);
  }
  return out;
}

}  // namespace hami::server
