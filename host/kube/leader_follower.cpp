#include "kube/leader_follower.hpp"

#include "log/logger.hpp"

namespace hami::kube {

LeaseFollower::LeaseFollower(std::shared_ptr<ApiClient> client, LeaseFollowerOptions options)
    : options_(std::move(options)), ref_(lease_ref(options_.namespace_, options_.name)) {
  publish(false, "", "not the leader: lease " + ref_ + " not observed yet");
  ReflectorOptions ro;
  ro.name = "lease " + ref_;
  ro.path = leases_path(options_.namespace_);
  ro.field_selector = "metadata.name=" + options_.name;
  ro.page_size = 10;
  ro.watch_timeout = options_.watch_timeout;
  ro.backoff_initial = options_.backoff_initial;
  ro.backoff_max = options_.backoff_max;
  ro.logger = options_.logger;
  ReflectorHandlers handlers;
  handlers.replace = [this](Relist& relist) {
    const rapidjson::Value* found = nullptr;
    // The field selector leaves at most the one lease.
    for (const auto& item : relist.objects.GetArray()) {
      if (item.IsObject())
        found = &item;
    }
    {
      std::lock_guard guard(mu_);
      listed_ = true;
    }
    observe(found);
  };
  handlers.added = [this](const rapidjson::Value& lease) { observe(&lease); };
  handlers.modified = [this](const rapidjson::Value& lease) { observe(&lease); };
  handlers.deleted = [this](const rapidjson::Value&) { observe(nullptr); };
  handlers.status = [this](const ReflectorStatus& status) {
    {
      std::lock_guard guard(mu_);
      watch_error_ = status.error;
    }
    evaluate();
  };
  reflector_ = std::make_unique<Reflector>(std::move(client), std::move(ro), std::move(handlers));
}

LeaseFollower::~LeaseFollower() {
  stop();
}

void LeaseFollower::start() {
  reflector_->start();
  if (!timer_.joinable())
    timer_ = std::jthread([this](std::stop_token stop) { timer(stop); });
}

void LeaseFollower::stop() {
  reflector_->stop();
  if (timer_.joinable()) {
    timer_.request_stop();
    timer_cv_.notify_all();
    timer_.join();
  }
}

LeaseFollower::TimePoint LeaseFollower::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

void LeaseFollower::observe(const rapidjson::Value* lease) {
  {
    std::lock_guard guard(mu_);
    if (lease == nullptr) {
      record_.reset();
    } else {
      LeaseRecord record = lease_record(*lease);
      // Only a changed record counts as a renewal (client-go's rule).
      if (!record_ || !(*record_ == record)) {
        record_ = std::move(record);
        observed_at_ = now();
      }
    }
  }
  evaluate();
  timer_cv_.notify_all();
}

void LeaseFollower::evaluate() {
  bool leader = false;
  std::string holder;
  std::string detail;
  {
    std::lock_guard guard(mu_);
    if (!listed_) {
      detail = "not the leader: lease " + ref_ + " not observed yet";
      if (!watch_error_.empty())
        detail += ": " + watch_error_;
    } else if (!record_) {
      detail = "not the leader: lease " + ref_ + " not found";
    } else if (record_->holder.empty()) {
      detail = "not the leader: lease " + ref_ + " has no holder";
    } else {
      holder = record_->holder;
      const auto expires = observed_at_ + std::chrono::seconds(record_->duration_seconds);
      if (now() >= expires) {
        detail = "not the leader: lease " + ref_ + " held by " + holder +
                 " was not renewed within " + std::to_string(record_->duration_seconds) + "s";
      } else if (holder_matches(holder, options_.identity)) {
        leader = true;
        detail = "leader: lease " + ref_ + " is held by " + holder;
      } else {
        detail = "not the leader: lease " + ref_ + " is held by " + holder;
      }
    }
  }
  publish(leader, std::move(holder), std::move(detail));
}

void LeaseFollower::timer(std::stop_token stop) {
  // Re-judges at the moment the observed lease would expire, and at least
  // once a second (the observation clock may be a test's manual clock).
  std::mutex wait_mu;
  while (!stop.stop_requested()) {
    std::chrono::milliseconds wait{1000};
    {
      std::lock_guard guard(mu_);
      if (record_ && record_->duration_seconds > 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            observed_at_ + std::chrono::seconds(record_->duration_seconds) - now());
        if (left >= std::chrono::milliseconds::zero() && left < wait)
          wait = left + std::chrono::milliseconds(1);
      }
    }
    std::unique_lock lock(wait_mu);
    timer_cv_.wait_for(lock, stop, wait, [] { return false; });
    if (stop.stop_requested())
      return;
    evaluate();
  }
}

}  // namespace hami::kube
