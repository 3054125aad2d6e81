#include "kube/leader_term.hpp"

namespace hami::kube {

void LeaderTerm::change(bool leading) {
  std::lock_guard guard(mu_);
  ++term_;
  leading_ = leading;
}

uint64_t LeaderTerm::begin_pass() const {
  return current();
}

bool LeaderTerm::complete_pass(uint64_t term) {
  std::lock_guard guard(mu_);
  if (!leading_ || term != term_)
    return false;
  synced_term_ = term;
  return true;
}

uint64_t LeaderTerm::current() const {
  std::lock_guard guard(mu_);
  return term_;
}

bool LeaderTerm::leading() const {
  std::lock_guard guard(mu_);
  return leading_;
}

bool LeaderTerm::synced() const {
  std::lock_guard guard(mu_);
  return leading_ && term_ != 0 && synced_term_ == term_;
}

std::string LeaderTerm::status() const {
  std::lock_guard guard(mu_);
  if (leading_ && term_ != 0 && synced_term_ == term_)
    return {};
  if (!leading_)
    return "not leading (leadership term " + std::to_string(term_) + ")";
  return "registration pass of leadership term " + std::to_string(term_) + " not completed yet";
}

}  // namespace hami::kube
