#include "kube/leader_elector.hpp"

#include <random>

#include "log/logger.hpp"

namespace hami::kube {

namespace {

std::chrono::seconds whole_seconds(std::chrono::milliseconds d) {
  // The Lease carries whole seconds; never round a positive duration to 0.
  return std::max(std::chrono::seconds(1), std::chrono::duration_cast<std::chrono::seconds>(d));
}

std::string seconds_text(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0)
    return std::to_string(d.count() / 1000) + "s";
  return std::to_string(d.count()) + "ms";
}

}  // namespace

LeaseElector::LeaseElector(std::shared_ptr<ApiClient> client, LeaseElectorOptions options)
    : client_(std::move(client)),
      options_(std::move(options)),
      ref_(lease_ref(options_.namespace_, options_.name)),
      path_(leases_path(options_.namespace_) + "/" + options_.name),
      random_state_(std::random_device{}()) {
  publish(false, "", "not the leader: election for lease " + ref_ + " not started");
}

LeaseElector::~LeaseElector() {
  stop();
}

void LeaseElector::start() {
  if (!thread_.joinable())
    thread_ = std::jthread([this](std::stop_token stop) { run(stop); });
}

void LeaseElector::abandon() {
  if (thread_.joinable()) {
    thread_.request_stop();
    wait_cv_.notify_all();
    thread_.join();
  }
}

void LeaseElector::stop() {
  abandon();
  release();
}

LeaseElector::TimePoint LeaseElector::now() const {
  return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

std::string LeaseElector::wall_now() const {
  return micro_time(options_.wall_clock ? options_.wall_clock() : std::chrono::system_clock::now());
}

bool LeaseElector::is_leader() const {
  std::lock_guard guard(mu_);
  return leading_ && now() - last_renew_ < options_.renew_deadline;
}

std::string LeaseElector::gate() const {
  {
    std::lock_guard guard(mu_);
    if (leading_ && now() - last_renew_ >= options_.renew_deadline) {
      return "not the leader: lease " + ref_ + " not renewed within " +
             seconds_text(options_.renew_deadline);
    }
  }
  return LeaderDetector::gate();
}

bool LeaseElector::try_acquire_or_renew(std::string& holder_seen, std::string& error) {
  const std::string stamp = wall_now();
  const int duration = static_cast<int>(whole_seconds(options_.lease_duration).count());
  LeaseRecord current;
  std::string rv;
  try {
    const ApiResponse got = client_->get(path_);
    rapidjson::Document doc;
    doc.Parse(got.body.data(), got.body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
      error = "unreadable lease";
      return false;
    }
    current = lease_record(doc);
    rv = lease_resource_version(doc);
  } catch (const ApiError& e) {
    if (e.status() != 404) {
      error = e.what();
      return false;
    }
    LeaseRecord mine{options_.identity, duration, stamp, stamp, 0};
    try {
      const ApiResponse created =
          client_->post(leases_path(options_.namespace_),
                        lease_body(options_.namespace_, options_.name, mine, ""));
      rapidjson::Document doc;
      doc.Parse(created.body.data(), created.body.size());
      std::lock_guard guard(mu_);
      observed_ = mine;
      observed_at_ = now();
      resource_version_ = doc.IsObject() ? lease_resource_version(doc) : std::string();
      holder_seen = options_.identity;
      return true;
    } catch (const ApiError& create_error) {
      error = create_error.what();
      return false;
    }
  }

  holder_seen = current.holder;
  {
    std::lock_guard guard(mu_);
    if (!observed_ || !(*observed_ == current)) {
      observed_ = current;
      observed_at_ = now();
    }
    resource_version_ = rv;
    const bool other_holder = !current.holder.empty() && current.holder != options_.identity;
    if (other_holder && observed_at_ + std::chrono::seconds(current.duration_seconds) > now()) {
      return false;
    }
  }
  const bool ours = current.holder == options_.identity;
  LeaseRecord next;
  next.holder = options_.identity;
  next.duration_seconds = duration;
  next.renew_time = stamp;
  next.acquire_time = ours && !current.acquire_time.empty() ? current.acquire_time : stamp;
  next.transitions = ours ? current.transitions : current.transitions + 1;
  try {
    const ApiResponse put =
        client_->put(path_, lease_body(options_.namespace_, options_.name, next, rv));
    rapidjson::Document doc;
    doc.Parse(put.body.data(), put.body.size());
    std::lock_guard guard(mu_);
    observed_ = next;
    observed_at_ = now();
    resource_version_ = doc.IsObject() ? lease_resource_version(doc) : std::string();
    holder_seen = options_.identity;
    return true;
  } catch (const ApiError& e) {
    error = e.what();
    return false;
  }
}

bool LeaseElector::step() {
  std::string holder;
  std::string error;
  const bool ok = try_acquire_or_renew(holder, error);
  bool leading = false;
  bool lost = false;
  std::string detail;
  {
    std::lock_guard guard(mu_);
    const TimePoint t = now();
    if (ok) {
      last_renew_ = t;
      leading_ = true;
    } else if (leading_ && t - last_renew_ >= options_.renew_deadline) {
      leading_ = false;
      lost = true;
    }
    leading = leading_;
  }
  if (lost && options_.logger) {
    options_.logger->warn("lease lost", {{"lease", ref_}, {"holder", holder}, {"error", error}});
  }
  if (leading) {
    detail = "leader: lease " + ref_ + " is held by " + options_.identity;
    if (!ok && options_.logger)
      options_.logger->warn("lease renewal failed", {{"lease", ref_}, {"error", error}});
  } else if (lost && !error.empty()) {
    detail = "not the leader: lease " + ref_ + " not renewed within " +
             seconds_text(options_.renew_deadline) + ": " + error;
    holder.clear();
  } else if (!error.empty()) {
    detail = "not the leader: lease " + ref_ + " unavailable: " + error;
  } else if (holder.empty()) {
    detail = "not the leader: lease " + ref_ + " has no holder";
  } else {
    detail = "not the leader: lease " + ref_ + " is held by " + holder;
  }
  publish(leading, leading ? options_.identity : holder, std::move(detail));
  return ok;
}

void LeaseElector::run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    const bool ok = step();
    auto wait = options_.retry_period;
    if (!ok) {
      // Candidates spread their attempts (client-go's jitter), leaders renew
      // on the beat.
      random_state_ = random_state_ * 6364136223846793005ull + 1442695040888963407ull;
      const double r = static_cast<double>(random_state_ >> 11) / 9007199254740992.0;
      wait += std::chrono::milliseconds(
          static_cast<int64_t>(static_cast<double>(options_.retry_period.count()) * 0.2 * r));
    }
    std::unique_lock lock(wait_mu_);
    wait_cv_.wait_for(lock, stop, wait, [] { return false; });
  }
}

void LeaseElector::release() {
  std::string rv;
  LeaseRecord record;
  {
    std::lock_guard guard(mu_);
    if (!leading_)
      return;
    leading_ = false;
    rv = resource_version_;
    record = observed_.value_or(LeaseRecord{});
  }
  const std::string stamp = wall_now();
  record.holder.clear();
  record.duration_seconds = 1;
  record.acquire_time = stamp;
  record.renew_time = stamp;
  std::string outcome = "released";
  try {
    client_->put(path_, lease_body(options_.namespace_, options_.name, record, rv));
  } catch (const std::exception& e) {
    // Someone else already wrote it, or the server is gone: the lease then
    // expires on its own.
    outcome = std::string("not released: ") + e.what();
  }
  if (options_.logger)
    options_.logger->info("leader lease " + outcome, {{"lease", ref_}});
  publish(false, "", "not the leader: stopped (lease " + ref_ + " " + outcome + ")");
}

}  // namespace hami::kube
