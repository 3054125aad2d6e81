#include "extender/allocations_report.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "scheduling/allocation.hpp"

namespace hami::extender {

namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void str(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

struct PodLine {
  std::string namespace_, name, uid, node;
  bool reservation = false;
};

}  // namespace

std::string allocations_report(const scheduling::Scheduler& scheduler) {
  rapidjson::StringBuffer buffer;
  Writer w(buffer);
  std::vector<PodLine> pods;
  w.StartObject();
  w.Key("nodes");
  w.StartArray();
  {
    const auto snapshot = scheduler.ledger().read();
    std::map<std::string_view, const scheduling::NodeEntry*> nodes;
    for (const auto& [name, entry] : snapshot->nodes()) {
      if (entry.devices)
        nodes.emplace(name, &entry);
    }
    for (const auto& [name, entry] : nodes) {
      w.StartObject();
      w.Key("name");
      str(w, name);
      w.Key("devices");
      w.StartArray();
      const auto& vendors = entry->devices->vendors();
      for (size_t v = 0; v < vendors.size(); ++v) {
        for (size_t k = 0; k < vendors[v].size(); ++k) {
          const hami_device& r = vendors[v].abi[k];
          const scheduling::DeviceUse use = v < entry->use.size() && k < entry->use[v].size()
                                                ? entry->use[v][k]
                                                : scheduling::DeviceUse{};
          w.StartObject();
          w.Key("id");
          str(w, vendors[v].id(k));
          w.Key("type");
          str(w, vendors[v].type(k));
          w.Key("vendor");
          str(w, scheduler.devices()[v].name());
          w.Key("healthy");
          w.Bool((r.flags & HAMI_DEVICE_HEALTHY) != 0 &&
                 (v >= entry->healthy.size() || entry->healthy[v]));
          w.Key("slots");
          w.Int(r.count);
          w.Key("usedSlots");
          w.Int(use.used);
          w.Key("memoryMiB");
          w.Int64(r.memory_mib);
          w.Key("usedMemoryMiB");
          w.Int64(use.memory_mib);
          w.Key("cores");
          w.Int(r.cores);
          w.Key("usedCores");
          w.Int64(use.cores);
          w.EndObject();
        }
      }
      w.EndArray();
      w.EndObject();
      for (const std::string& uid : entry->pods) {
        if (const scheduling::PodCharge* c = snapshot->pod(uid)) {
          pods.push_back({c->namespace_, c->name, c->uid, c->node, c->reservation});
        }
      }
    }
  }
  w.EndArray();

  // Annotations are read after the ledger lock is released.
  std::sort(pods.begin(), pods.end(), [](const PodLine& a, const PodLine& b) {
    return std::tie(a.namespace_, a.name) < std::tie(b.namespace_, b.name);
  });
  std::vector<std::string> keys = {std::string(scheduling::kAssignedNodeAnnotation),
                                   std::string(scheduling::kBindPhaseAnnotation)};
  for (const auto& plugin : scheduler.devices()) {
    if (!plugin.description().allocated_annotation.empty()) {
      keys.push_back(plugin.description().allocated_annotation);
    }
    for (const std::string& key : plugin.description().allocation_annotations)
      keys.push_back(key);
  }
  w.Key("pods");
  w.StartArray();
  for (const PodLine& p : pods) {
    w.StartObject();
    w.Key("namespace");
    str(w, p.namespace_);
    w.Key("name");
    str(w, p.name);
    w.Key("uid");
    str(w, p.uid);
    w.Key("node");
    str(w, p.node);
    w.Key("reservation");
    w.Bool(p.reservation);
    w.Key("annotations");
    w.StartObject();
    if (const auto record = scheduler.cluster().pod(p.namespace_, p.name)) {
      for (const std::string& key : keys) {
        if (const auto value = record->annotation(key)) {
          str(w, key);
          str(w, *value);
        }
      }
    }
    w.EndObject();
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace hami::extender
