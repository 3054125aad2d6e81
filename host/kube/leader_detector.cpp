#include "kube/leader_detector.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>

namespace hami::kube {

bool LeaderDetector::is_leader() const {
  std::lock_guard guard(mu_);
  return leader_;
}

std::string LeaderDetector::holder() const {
  std::lock_guard guard(mu_);
  return holder_;
}

std::string LeaderDetector::detail() const {
  std::lock_guard guard(mu_);
  return detail_;
}

std::string LeaderDetector::gate() const {
  std::lock_guard guard(mu_);
  return leader_ ? std::string() : detail_;
}

void LeaderDetector::on_change(Listener listener) {
  std::lock_guard guard(listeners_mu_);
  listeners_.push_back(std::move(listener));
}

void LeaderDetector::publish(bool leader, std::string holder, std::string detail) {
  // Listener calls are serialised and happen in publish order, so a
  // listener never sees "lost" before the "gained" that preceded it.
  std::lock_guard listeners_guard(listeners_mu_);
  bool flipped = false;
  std::string text;
  {
    std::lock_guard guard(mu_);
    flipped = leader != leader_;
    leader_ = leader;
    holder_ = std::move(holder);
    detail_ = std::move(detail);
    text = detail_;
  }
  if (!flipped)
    return;
  for (const auto& listener : listeners_)
    listener(leader, text);
}

std::string leader_identity(const std::string& configured) {
  if (!configured.empty())
    return configured;
  if (const char* pod = std::getenv("POD_NAME"); pod != nullptr && *pod != '\0')
    return pod;
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) == 0 && host[0] != '\0')
    return host;
  return "hami-scheduler";
}

std::string lease_ref(const std::string& namespace_, const std::string& name) {
  return namespace_ + "/" + name;
}

}  // namespace hami::kube
