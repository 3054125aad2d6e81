#include "mig_plugin.hpp"

#include <algorithm>
#include <map>

#include "device_under_test.hpp"

namespace hami::testing {
namespace {

hami_str hs(const std::string& s) {
  return hami_str{s.data(), s.size()};
}
std::string str(hami_str s) {
  return s.len == 0 ? std::string() : std::string(s.ptr, s.len);
}

struct ErrBuf {
  char buf[1024] = {};
  hami_errbuf get() { return hami_errbuf{buf, sizeof buf}; }
};

void check(hami_status status, const ErrBuf& err) {
  if (status != HAMI_OK)
    throw RawCallError(status, err.buf);
}

void append_text(void* ctx, const char* bytes, std::size_t len) {
  static_cast<std::string*>(ctx)->append(bytes, len);
}

}  // namespace

std::vector<MigProfileSpec> a100_mig_profiles() {
  return {
      {"1g.5gb", 5120, 14, 1, {{0, 1}, {1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 1}}},
      {"2g.10gb", 10240, 28, 2, {{0, 2}, {2, 2}, {4, 2}}},
      {"3g.20gb", 20480, 42, 3, {{0, 4}, {4, 4}}},
  };
}

std::string mig_register_device(const std::string& id, std::int32_t count, std::int32_t devmem,
                                const std::vector<MigProfileSpec>& profiles,
                                const std::string& mode) {
  std::string out = R"({"id":")" + id + R"(","count":)" + std::to_string(count) + R"(,"devmem":)" +
                    std::to_string(devmem) +
                    R"(,"devcore":100,"type":"NVIDIA-A100-SXM4-40GB","health":true,"mode":")" +
                    mode + R"(","migProfiles":[)";
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const MigProfileSpec& p = profiles[i];
    if (i > 0)
      out += ',';
    out += R"({"name":")" + p.name + R"(","memoryMB":)" + std::to_string(p.memory_mb) +
           R"(,"core":)" + std::to_string(p.core) + R"(,"sliceCount":)" +
           std::to_string(p.slice_count) + R"(,"placements":[)";
    for (std::size_t k = 0; k < p.placements.size(); ++k) {
      if (k > 0)
        out += ',';
      out += R"({"start":)" + std::to_string(p.placements[k].first) + R"(,"size":)" +
             std::to_string(p.placements[k].second) + "}";
    }
    out += "]}";
  }
  out += "]}";
  return out;
}

MigPlugin::MigPlugin(const std::string& config_json)
    : library_(std::make_unique<RawLibrary>(DeviceUnderTest::plugin_dir() + "/nvidia.so")),
      instance_(std::make_unique<RawInstance>(*library_, config_json)) {}

hami_device_description MigPlugin::describe() const {
  hami_device_description d{};
  d.struct_size = sizeof d;
  ErrBuf err;
  check(instance_->vtable().describe(instance_->get(), &d, err.get()), err);
  return d;
}

std::vector<RawDevice> MigPlugin::decode_node(NodeFixture& node) const {
  std::vector<RawDevice> out;
  hami_device_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &out;
  sink.device = [](void* ctx, const hami_device* d) {
    RawDevice r;
    r.id = str(d->id);
    r.type = str(d->type);
    r.mode = str(d->mode);
    r.attributes = str(d->attributes);
    r.index = d->index;
    r.count = d->count;
    r.memory_mib = d->memory_mib;
    r.cores = d->cores;
    r.numa = d->numa;
    r.flags = d->flags;
    static_cast<std::vector<RawDevice>*>(ctx)->push_back(std::move(r));
  };
  sink.pair_score = [](void*, hami_str, hami_str, std::int32_t) {};
  ErrBuf err;
  check(instance_->vtable().decode_node(instance_->get(), &node.view(), &sink, err.get()), err);
  return out;
}

std::vector<RawDevice> MigPlugin::decode_register(const std::string& value) const {
  NodeFixture node("node-mig");
  node.annotation("hami.io/node-nvidia-register", value);
  return decode_node(node);
}

MigFitOutcome MigPlugin::fit(const std::vector<OfferedDevice>& devices, PodFixture& pod,
                             const hami_device_request& request, std::uint32_t policy_flags,
                             const hami_quota_hook* quota, bool record_data,
                             const std::vector<PairScoreSpec>& scores) const {
  std::vector<hami_device> records;
  std::vector<hami_device_usage> usage;
  std::vector<std::vector<hami_str>> hold_items(devices.size());
  std::vector<hami_holds> holds;
  records.reserve(devices.size());
  for (const OfferedDevice& o : devices) {
    hami_device d{};
    d.struct_size = sizeof d;
    d.id = hs(o.device.id);
    d.type = hs(o.device.type);
    d.mode = hs(o.device.mode);
    d.attributes = hs(o.device.attributes);
    d.index = o.device.index;
    d.count = o.device.count;
    d.memory_mib = o.device.memory_mib;
    d.cores = o.device.cores;
    d.numa = o.device.numa;
    d.flags = o.device.flags;
    records.push_back(d);
  }
  for (std::size_t i = 0; i < devices.size(); ++i) {
    hami_device_usage u{};
    u.struct_size = sizeof u;
    u.device = &records[i];
    u.used = devices[i].used;
    u.used_memory_mib = devices[i].used_memory_mib;
    u.used_cores = devices[i].used_cores;
    usage.push_back(u);
    for (const std::string& h : devices[i].holds)
      hold_items[i].push_back(hs(h));
  }
  for (const auto& items : hold_items)
    holds.push_back(hami_holds{items.data(), items.size()});
  std::vector<hami_pair_score> pair_scores;
  for (const PairScoreSpec& s : scores)
    pair_scores.push_back(hami_pair_score{hs(s.from), hs(s.to), s.score});

  hami_fit_input in{};
  in.struct_size = sizeof in;
  in.pod = &pod.view();
  in.request = &request;
  in.devices = usage.data();
  in.devices_len = usage.size();
  in.pair_scores = pair_scores.data();
  in.pair_scores_len = pair_scores.size();
  in.policy_flags = policy_flags;
  in.quota = quota;
  in.device_holds = holds.data();

  MigFitOutcome o;
  std::vector<hami_fit_pick> picks(static_cast<std::size_t>(std::max(request.count, 1)));
  std::map<std::size_t, std::string> data;
  hami_fit_output out{};
  out.struct_size = sizeof out;
  out.picks = picks.data();
  out.picks_cap = picks.size();
  out.reason = hami_sink{&o.reason, &append_text};
  if (record_data) {
    out.pick_data_ctx = &data;
    out.set_pick_data = [](void* ctx, std::size_t pick, hami_str value) {
      (*static_cast<std::map<std::size_t, std::string>*>(ctx))[pick] = str(value);
    };
  }
  ErrBuf err;
  check(instance_->vtable().fit(instance_->get(), &in, &out, err.get()), err);
  o.fits = out.fits != 0;
  picks.resize(out.picks_len);
  o.picks = picks;
  for (std::size_t k = 0; k < picks.size(); ++k) {
    o.ids.push_back(devices.at(picks[k].device).device.id);
    const auto it = data.find(k);
    o.data.push_back(it == data.end() ? std::string() : it->second);
  }
  return o;
}

std::vector<AnnotationOp> MigPlugin::annotate(PodFixture& pod, const PlacedPod& containers) const {
  std::vector<std::vector<hami_placed_device>> devices(containers.size());
  std::vector<hami_placed_container> views;
  for (std::size_t c = 0; c < containers.size(); ++c) {
    for (const Placed& p : containers[c]) {
      devices[c].push_back(
          hami_placed_device{hs(p.id), hs(p.type), p.memory_mib, p.cores, p.index, hs(p.data)});
    }
    views.push_back(hami_placed_container{devices[c].data(), devices[c].size()});
  }
  std::vector<AnnotationOp> ops;
  hami_annotation_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &ops;
  sink.set = [](void* ctx, hami_str key, hami_str value) {
    static_cast<std::vector<AnnotationOp>*>(ctx)->push_back({true, str(key), str(value)});
  };
  sink.remove = [](void* ctx, hami_str key) {
    static_cast<std::vector<AnnotationOp>*>(ctx)->push_back({false, str(key), {}});
  };
  const std::string node = "node-1";
  ErrBuf err;
  check(instance_->vtable().annotate_allocation(instance_->get(), &pod.view(), hs(node),
                                                views.data(), views.size(), 0, &sink, err.get()),
        err);
  return ops;
}

PlacedPod MigPlugin::decode_pod(PodFixture& pod) const {
  PlacedPod out;
  hami_placed_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &out;
  sink.container = [](void* ctx) { static_cast<PlacedPod*>(ctx)->emplace_back(); };
  sink.device = [](void* ctx, const hami_placed_device* d) {
    static_cast<PlacedPod*>(ctx)->back().push_back(
        Placed{str(d->id), str(d->type), d->memory_mib, d->cores, d->index, str(d->data)});
  };
  ErrBuf err;
  check(instance_->vtable().decode_pod_allocation(instance_->get(), &pod.view(), &sink, err.get()),
        err);
  return out;
}

std::vector<Partition> MigPlugin::partitions(PodFixture& pod) const {
  std::vector<Partition> out;
  hami_partition_sink sink{};
  sink.struct_size = sizeof sink;
  sink.ctx = &out;
  sink.partition = [](void* ctx, std::size_t family, hami_str device, const hami_str* values,
                      std::size_t len) {
    Partition p{family, str(device), {}};
    for (std::size_t i = 0; i < len; ++i)
      p.values.push_back(str(values[i]));
    static_cast<std::vector<Partition>*>(ctx)->push_back(std::move(p));
  };
  ErrBuf err;
  check(instance_->vtable().describe_partitions(instance_->get(), &pod.view(), &sink, err.get()),
        err);
  return out;
}

OfferedDevice offered(const MigPlugin& plugin, const std::string& device_json,
                      std::vector<std::string> holds) {
  const std::vector<RawDevice> devices = plugin.decode_register("[" + device_json + "]");
  OfferedDevice o;
  o.device = devices.at(0);
  o.holds = std::move(holds);
  return o;
}

}  // namespace hami::testing
