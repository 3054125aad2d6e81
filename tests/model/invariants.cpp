#include "invariants.hpp"

#include <algorithm>
#include <set>

#include "cluster/node_lock.hpp"
#include "scheduling/pod_charge.hpp"

namespace hami::model {

namespace {

std::string totals_text(const DeviceTotals& t) {
  std::string out = "mem " + std::to_string(t.memory) + " cores " + std::to_string(t.cores) +
                    " slots " + std::to_string(t.slots);
  if (!t.holds.empty()) {
    out += " holds [";
    for (size_t i = 0; i < t.holds.size(); ++i)
      out += (i > 0 ? " " : "") + t.holds[i];
    out += "]";
  }
  return out;
}

// The reservations in holds as the ledger keeps them: one hold per
// allocation entry, "" for none, several joined by ';' (docs/mig.md).
std::vector<std::string> reservations(const std::vector<std::string>& holds) {
  std::vector<std::string> out;
  for (const std::string& h : holds) {
    size_t start = 0;
    while (start <= h.size()) {
      const size_t end = std::min(h.find(';', start), h.size());
      if (end > start)
        out.push_back(h.substr(start, end - start));
      start = end + 1;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

DeviceMap ledger_devices(const scheduling::PodCharge& charge, std::string_view node) {
  DeviceMap out;
  scheduling::for_each_charged(charge, node, [&](const scheduling::DeviceCharge& d) {
    add(out[d.device_id], DeviceTotals{d.memory_mib, d.cores, d.slots, reservations(d.holds)});
  });
  return out;
}

bool covers(const DeviceMap& big, const DeviceMap& small) {
  for (const auto& [id, t] : small) {
    const auto it = big.find(id);
    if (it == big.end() || it->second.memory < t.memory || it->second.cores < t.cores ||
        it->second.slots < t.slots ||
        !std::includes(it->second.holds.begin(), it->second.holds.end(), t.holds.begin(),
                       t.holds.end()))
      return false;
  }
  return true;
}

std::string map_text(const DeviceMap& m) {
  std::string out = "{";
  for (const auto& [id, t] : m)
    out += (out.size() > 1 ? "; " : "") + id + ": " + totals_text(t);
  return out + "}";
}

}  // namespace

void check_capacity(const CheckInput& in, std::vector<std::string>& out) {
  std::vector<std::string> errors;
  const auto charges = expected_charges(*in.stored, errors);
  for (auto& e : errors)
    out.push_back("annotation: " + e);
  const DeviceMap totals = device_totals(charges);
  for (const StoredNode& node : in.stored->nodes) {
    for (const StoredDevice& d : node.devices) {
      const auto it = totals.find(d.id);
      if (it == totals.end())
        continue;
      const DeviceTotals& t = it->second;
      if (t.memory > d.memory || t.cores > d.cores || t.slots > d.slots) {
        out.push_back("capacity: device " + d.id + " carries " + totals_text(t) + " of mem " +
                      std::to_string(d.memory) + " cores " + std::to_string(d.cores) + " slots " +
                      std::to_string(d.slots));
      }
    }
  }
}

void check_ledger(const CheckInput& in, std::vector<std::string>& out) {
  std::vector<std::string> errors;
  const auto charges = expected_charges(*in.stored, errors);
  const auto& ledger = *in.ledger;
  const auto& unconfirmed = in.allowances->unconfirmed;

  // Every uid the ledger charges, by the nodes' lists.
  std::set<std::string> charged;
  for (const auto& [name, entry] : ledger.nodes())
    charged.insert(entry.pods.begin(), entry.pods.end());

  for (const std::string& uid : charged) {
    const scheduling::PodCharge* charge = ledger.pod(uid);
    if (charge == nullptr) {
      out.push_back("ledger: a node lists pod " + uid + " that has no charge");
      continue;
    }
    const auto expected = charges.find(uid);
    if (unconfirmed.contains(uid)) {
      if (expected != charges.end() &&
          !covers(ledger_devices(*charge, expected->second.node), expected->second.devices)) {
        out.push_back("ledger: unconfirmed charge of " + charge->name + " (" + uid +
                      ") does not cover its annotations " + map_text(expected->second.devices));
      }
      continue;
    }
    if (expected == charges.end()) {
      out.push_back("ledger: pod " + charge->name + " (" + uid + ") is charged " +
                    map_text(ledger_devices(*charge, charge->node)) + " on " + charge->node +
                    (charge->reservation ? " (reservation)" : "") + " but carries no allocation");
      continue;
    }
    if (charge->reservation)
      out.push_back("ledger: pod " + charge->name + " (" + uid + ") holds a reservation");
    if (!charge->held_node.empty())
      out.push_back("ledger: pod " + charge->name + " (" + uid + ") holds a charge on " +
                    charge->held_node);
    const DeviceMap got = ledger_devices(*charge, expected->second.node);
    if (charge->node != expected->second.node || got != expected->second.devices) {
      out.push_back("ledger: pod " + charge->name + " (" + uid + ") charged " + map_text(got) +
                    " on " + charge->node + ", annotations say " +
                    map_text(expected->second.devices) + " on " + expected->second.node);
    }
  }
  for (const auto& [uid, expected] : charges) {
    if (!charged.contains(uid) && ledger.pod(uid) == nullptr) {
      out.push_back("ledger: pod " + expected.name + " (" + uid + ") carries " +
                    map_text(expected.devices) + " on " + expected.node + " but is not charged");
    }
  }

  // Device use: the model's confirmed charges plus the ledger's own
  // charges of the unconfirmed pods.
  DeviceMap want;
  for (const auto& [uid, expected] : charges) {
    if (unconfirmed.contains(uid) && ledger.pod(uid) != nullptr)
      continue;
    for (const auto& [id, t] : expected.devices)
      add(want[id], t);
  }
  for (const auto& [name, entry] : ledger.nodes()) {
    for (const std::string& uid : entry.pods) {
      if (!unconfirmed.contains(uid))
        continue;
      if (const auto* charge = ledger.pod(uid)) {
        for (const auto& [id, t] : ledger_devices(*charge, name))
          add(want[id], t);
      }
    }
  }
  for (const auto& [name, entry] : ledger.nodes()) {
    if (!entry.devices)
      continue;
    const auto& vendors = entry.devices->vendors();
    for (size_t v = 0; v < vendors.size() && v < entry.use.size(); ++v) {
      for (size_t k = 0; k < vendors[v].size() && k < entry.use[v].size(); ++k) {
        const std::string id(vendors[v].id(k));
        const auto& use = entry.use[v][k];
        const auto* holds = scheduling::holds_on(entry.holds, static_cast<uint32_t>(v), k);
        const DeviceTotals got{use.memory_mib, use.cores, use.used,
                               holds ? reservations(*holds) : std::vector<std::string>{}};
        const auto it = want.find(id);
        const DeviceTotals expected = it == want.end() ? DeviceTotals{} : it->second;
        if (got != expected) {
          out.push_back("ledger: device " + id + " on " + name + " uses " + totals_text(got) +
                        ", model says " + totals_text(expected));
        }
      }
    }
  }
}

void check_bound_pods(const CheckInput& in, std::vector<std::string>& out) {
  for (const StoredPod& pod : in.stored->pods) {
    if (!pod.managed || pod.node_name.empty() || pod.phase == "Succeeded" || pod.phase == "Failed")
      continue;
    const auto allocated = pod.annotation(kAllocated);
    const auto node = pod.annotation(kAssignedNode);
    if (!allocated) {
      out.push_back("bound: pod " + pod.name + " (" + pod.uid + ") bound to " + pod.node_name +
                    " has no " + std::string(kAllocated));
    } else if (!node || *node != pod.node_name) {
      out.push_back("bound: pod " + pod.name + " (" + pod.uid + ") bound to " + pod.node_name +
                    " has " + std::string(kAssignedNode) + "=" + node.value_or("<none>"));
    }
  }
}

void check_locks(const CheckInput& in, std::vector<std::string>& out) {
  for (const StoredNode& node : in.stored->nodes) {
    if (!node.lock)
      continue;
    const std::string& value = *node.lock;
    const size_t c1 = value.find(',');
    const size_t c2 = c1 == std::string::npos ? c1 : value.find(',', c1 + 1);
    const auto taken = cluster::parse_rfc3339(value.substr(0, c1));
    if (!taken || c2 == std::string::npos) {
      out.push_back("lock: node " + node.name + " has a malformed lock \"" + value + "\"");
      continue;
    }
    if (*taken + in.lock_expiry < in.now)
      continue;  // expired: anyone may take it over
    if (in.allowances->exempt_locks.contains(value))
      continue;
    const std::string ns = value.substr(c1 + 1, c2 - c1 - 1);
    const std::string name = value.substr(c2 + 1);
    const StoredPod* holder = in.stored->pod(ns, name);
    if (holder == nullptr) {
      out.push_back("lock: node " + node.name + " is locked for " + ns + "/" + name +
                    ", which does not exist");
    } else if (holder->annotation(kBindPhase) != "allocating") {
      out.push_back("lock: node " + node.name + " is locked for " + ns + "/" + name + " (" +
                    holder->uid + ") whose bind-phase is " +
                    holder->annotation(kBindPhase).value_or("<none>"));
    }
  }
}

std::vector<std::string> check_all(const CheckInput& in) {
  std::vector<std::string> out;
  check_capacity(in, out);
  check_ledger(in, out);
  check_bound_pods(in, out);
  check_locks(in, out);
  check_mig(in, out);
  return out;
}

}  // namespace hami::model
