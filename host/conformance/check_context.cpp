#include "conformance/check_context.hpp"

namespace hami::conformance {

bool CheckContext::expect(bool ok, std::string_view problem) {
  if (!ok) {
    problems_.emplace_back(problem);
  }
  return ok;
}

void CheckContext::fail(std::string problem) {
  problems_.push_back(std::move(problem));
}

void CheckContext::skip(std::string reason) {
  skip_reason_ = std::move(reason);
}

std::span<const Check> all_checks() {
  static const std::vector<Check> checks = [] {
    std::vector<Check> all(generic_checks().begin(), generic_checks().end());
    all.insert(all.end(), device_checks().begin(), device_checks().end());
    all.insert(all.end(), device_1_1_checks().begin(), device_1_1_checks().end());
    all.insert(all.end(), device_1_2_checks().begin(), device_1_2_checks().end());
    return all;
  }();
  return checks;
}

std::vector<const Check*> checks_for(uint32_t kind) {
  std::vector<const Check*> out;
  for (const Check& check : all_checks()) {
    if (check.kind == 0 || check.kind == kind) {
      out.push_back(&check);
    }
  }
  return out;
}

}  // namespace hami::conformance
