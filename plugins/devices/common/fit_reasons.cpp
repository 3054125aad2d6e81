#include "fit_reasons.hpp"

#include <algorithm>
#include <vector>

namespace hami::devices {

std::string_view reason_name(FitReason r) noexcept {
  switch (r) {
    case FitReason::CardNotHealth:
      return "CardNotHealth";
    case FitReason::CardCordoned:
      return "CardCordoned";
    case FitReason::CardTypeMismatch:
      return "CardTypeMismatch";
    case FitReason::NumaNotFit:
      return "NumaNotFit";
    case FitReason::CardUuidMismatch:
      return "CardUuidMismatch";
    case FitReason::CardTimeSlicingExhausted:
      return "CardTimeSlicingExhausted";
    case FitReason::ExclusiveDeviceAllocateConflict:
      return "ExclusiveDeviceAllocateConflict";
    case FitReason::ResourceQuotaNotFit:
      return "ResourceQuotaNotFit";
    case FitReason::CardInsufficientMemory:
      return "CardInsufficientMemory";
    case FitReason::CardInsufficientCore:
      return "CardInsufficientCore";
    case FitReason::CardComputeUnitsExhausted:
      return "CardComputeUnitsExhausted";
    case FitReason::CardMigTopologyInfeasible:
      return "CardMigTopologyInfeasible";
    case FitReason::AllocatedCardsInsufficientRequest:
      return "AllocatedCardsInsufficientRequest";
    case FitReason::kCount:
      break;
  }
  return "Unknown";
}

std::string ReasonTally::render(std::size_t devices) const {
  std::vector<std::string> entries;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0)
      continue;
    std::string e = std::to_string(counts_[i]);
    e += '/';
    e += std::to_string(devices);
    e += ' ';
    e += reason_name(static_cast<FitReason>(i));
    entries.push_back(std::move(e));
  }
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& e : entries) {
    if (!out.empty())
      out += ", ";
    out += e;
  }
  return out;
}

}  // namespace hami::devices
