#include "k8s_views.hpp"

#include <algorithm>
#include <tuple>

namespace hami::testing {
namespace {

hami_str hs(const std::string& s) {
  return hami_str{s.data(), s.size()};
}

std::vector<hami_kv> to_kv(const Pairs& pairs) {
  std::vector<hami_kv> out;
  out.reserve(pairs.size());
  for (const auto& [k, v] : pairs)
    out.push_back(hami_kv{hs(k), hs(v)});
  return out;
}

void put(Pairs& pairs, std::string key, std::string value) {
  for (auto& [k, v] : pairs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  pairs.emplace_back(std::move(key), std::move(value));
}

}  // namespace

PodFixture& PodFixture::name(std::string ns, std::string pod_name) {
  namespace_ = std::move(ns);
  name_ = std::move(pod_name);
  return *this;
}

PodFixture& PodFixture::annotation(std::string key, std::string value) {
  put(annotations_, std::move(key), std::move(value));
  return *this;
}

PodFixture& PodFixture::runtime_class(std::string name) {
  runtime_class_ = std::move(name);
  return *this;
}

PodFixture& PodFixture::container(ContainerSpec spec) {
  if (spec.init) {
    const auto first_app = std::find_if(containers_.begin(), containers_.end(),
                                        [](const ContainerSpec& c) { return !c.init; });
    containers_.insert(first_app, std::move(spec));
  } else {
    containers_.push_back(std::move(spec));
  }
  return *this;
}

const hami_pod_view& PodFixture::view() {
  kv_storage_.clear();
  annotation_kv_ = to_kv(annotations_);
  container_views_.clear();
  std::size_t init_count = 0;
  for (const ContainerSpec& c : containers_) {
    hami_container_view cv{};
    cv.struct_size = sizeof cv;
    cv.name = hs(c.name);
    cv.is_init = c.init ? 1 : 0;
    const auto& limits = kv_storage_.emplace_back(to_kv(c.limits));
    const auto& requests = kv_storage_.emplace_back(to_kv(c.requests));
    const auto& env = kv_storage_.emplace_back(to_kv(c.env));
    cv.limits = limits.data();
    cv.limits_len = limits.size();
    cv.requests = requests.data();
    cv.requests_len = requests.size();
    cv.env = env.data();
    cv.env_len = env.size();
    container_views_.push_back(cv);
    if (c.init)
      ++init_count;
  }
  view_ = hami_pod_view{};
  view_.struct_size = sizeof view_;
  view_.namespace_ = hs(namespace_);
  view_.name = hs(name_);
  view_.runtime_class_name = hs(runtime_class_);
  view_.annotations = annotation_kv_.data();
  view_.annotations_len = annotation_kv_.size();
  view_.containers = container_views_.data();
  view_.containers_len = container_views_.size();
  view_.init_count = init_count;
  return view_;
}

NodeFixture& NodeFixture::annotation(std::string key, std::string value) {
  put(annotations_, std::move(key), std::move(value));
  return *this;
}
NodeFixture& NodeFixture::allocatable(std::string resource, std::string quantity) {
  put(allocatable_, std::move(resource), std::move(quantity));
  return *this;
}
NodeFixture& NodeFixture::capacity(std::string resource, std::string quantity) {
  put(capacity_, std::move(resource), std::move(quantity));
  return *this;
}

const hami_node_view& NodeFixture::view() {
  a_ = to_kv(annotations_);
  al_ = to_kv(allocatable_);
  c_ = to_kv(capacity_);
  view_ = hami_node_view{};
  view_.struct_size = sizeof view_;
  view_.name = hs(name_);
  view_.annotations = a_.data();
  view_.annotations_len = a_.size();
  view_.allocatable = al_.data();
  view_.allocatable_len = al_.size();
  view_.capacity = c_.data();
  view_.capacity_len = c_.size();
  return view_;
}

FitFixture::FitFixture(std::vector<DeviceState> devices, std::vector<PairScoreSpec> scores)
    : states_(std::move(devices)), score_specs_(std::move(scores)) {
  devices_.reserve(states_.size());
  for (const DeviceState& s : states_) {
    hami_device d{};
    d.struct_size = sizeof d;
    d.id = hs(s.id);
    d.type = hs(s.type);
    d.mode = hs(s.mode);
    d.index = s.index;
    d.count = s.count;
    d.memory_mib = s.memory_mib;
    d.cores = s.cores;
    d.numa = s.numa;
    d.flags = (s.healthy ? HAMI_DEVICE_HEALTHY : 0u) | (s.cordoned ? HAMI_DEVICE_CORDONED : 0u);
    devices_.push_back(d);
  }
  for (std::size_t i = 0; i < states_.size(); ++i) {
    hami_device_usage u{};
    u.struct_size = sizeof u;
    u.device = &devices_[i];
    u.used = states_[i].used;
    u.used_memory_mib = states_[i].used_memory_mib;
    u.used_cores = states_[i].used_cores;
    usage_.push_back(u);
  }
  for (const PairScoreSpec& p : score_specs_) {
    scores_.push_back(hami_pair_score{hs(p.from), hs(p.to), p.score});
  }
}

std::vector<PairScoreSpec> FitFixture::symmetric(
    const std::vector<std::tuple<std::string, std::string, std::int32_t>>& table) {
  std::vector<PairScoreSpec> out;
  for (const auto& [a, b, s] : table) {
    out.push_back({a, b, s});
    out.push_back({b, a, s});
  }
  return out;
}

hami_fit_input FitFixture::input(const hami_pod_view& pod, const hami_device_request& request,
                                 std::uint32_t policy_flags, const hami_quota_hook* quota,
                                 std::size_t container_index) {
  request_ = request;
  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod;
  in.container_index = container_index;
  in.request = &request_;
  in.devices = usage_.data();
  in.devices_len = usage_.size();
  in.pair_scores = scores_.data();
  in.pair_scores_len = scores_.size();
  in.policy_flags = policy_flags;
  in.quota = quota;
  return in;
}

hami_device_request make_request(std::int32_t count, std::int64_t memory_mib,
                                 std::int32_t memory_percent, std::int32_t cores) {
  hami_device_request r{};
  r.struct_size = sizeof r;
  r.count = count;
  r.memory_mib = memory_mib;
  r.memory_percent = memory_percent;
  r.cores = cores;
  return r;
}

}  // namespace hami::testing
