// LeaderTerm: readiness tied to a leadership term. Every flip of leadership
// (gained or lost) starts a new term, and nothing is synced in a new term
// until a registration pass that began in it completes. A pass captures
// the term when it starts (begin_pass) and offers it back when it is done
// (complete_pass): a pass from an earlier term — one that began before a
// failover A → B → A and finished after it — does not mark the current term
// synced, so the scheduler never acts on the view it had before B led.
// HAMi (reference §1.8, §3.4) set one `synced` flag from any pass that
// finished, whatever term it began in.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

namespace hami::kube {

class LeaderTerm {
 public:
  // Leadership flipped: a new term begins, not synced.
  void change(bool leading);

  // The term a pass starting now belongs to.
  uint64_t begin_pass() const;
  // A pass that began in `term` completed: marks the term synced when it is
  // still the current one and we lead. Returns whether it did.
  bool complete_pass(uint64_t term);

  uint64_t current() const;
  bool leading() const;
  // Leading, and a pass of the current term completed.
  bool synced() const;
  // "" when synced(), else why not (for the scheduler's gate), e.g.
  // "registration pass of leadership term 3 not completed yet".
  std::string status() const;

 private:
  mutable std::mutex mu_;
  uint64_t term_ = 0;
  uint64_t synced_term_ = 0;  // 0: none
  bool leading_ = false;
};

}  // namespace hami::kube
