// Fuzz target: the ExtenderPreemptionArgs decoder (POST /preemption). Any
// input must either decode or throw DecodeError — never crash, hang or read
// out of bounds. A decoded request written back in the meta form must
// decode to the same nodes, victims and PDB counts, and its result encoding
// must be valid JSON that names the same nodes.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "extender/preemption_args.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"

namespace {

using hami::scheduling::PreemptionCandidate;

std::string meta_form(const std::vector<PreemptionCandidate>& candidates) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](const std::string& s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("Pod");
  w.Null();
  w.Key("NodeNameToVictims");
  w.Null();
  w.Key("NodeNameToMetaVictims");
  w.StartObject();
  for (const PreemptionCandidate& c : candidates) {
    string(c.node);
    w.StartObject();
    w.Key("Pods");
    w.StartArray();
    for (const auto& v : c.victims) {
      w.StartObject();
      w.Key("UID");
      string(v.uid);
      w.EndObject();
    }
    w.EndArray();
    w.Key("NumPDBViolations");
    w.Int64(c.pdb_violations);
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

bool same(const std::vector<PreemptionCandidate>& a, const std::vector<PreemptionCandidate>& b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].node != b[i].node || a[i].pdb_violations != b[i].pdb_violations ||
        a[i].victims.size() != b[i].victims.size())
      return false;
    for (size_t k = 0; k < a[i].victims.size(); ++k) {
      if (a[i].victims[k].uid != b[i].victims[k].uid || b[i].victims[k].rank.has_value())
        return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  hami::extender::ExtenderPreemptionArgs args;
  try {
    args = hami::extender::decode_preemption_args(body);
  } catch (const hami::extender::DecodeError&) {
    return 0;
  }
  if (args.pod != nullptr) {
    try {
      const hami::k8s::PodModel pod(*args.pod);
      (void)pod.priority();
    } catch (const hami::k8s::ObjectError&) {
    }
  }
  const auto again = hami::extender::decode_preemption_args(meta_form(args.candidates));
  if (!again.meta && !args.candidates.empty())
    std::abort();
  if (!same(args.candidates, again.candidates))
    std::abort();
  std::vector<hami::scheduling::NodeVictims> nodes;
  for (const PreemptionCandidate& c : args.candidates) {
    hami::scheduling::NodeVictims n{c.node, {}, c.pdb_violations};
    for (const auto& v : c.victims)
      n.uids.push_back(v.uid);
    nodes.push_back(std::move(n));
  }
  const std::string result = hami::extender::encode_preemption_result(nodes);
  rapidjson::Document doc;
  doc.Parse(result.data(), result.size());
  if (doc.HasParseError() || !doc.IsObject() ||
      doc["NodeNameToMetaVictims"].MemberCount() != nodes.size())
    std::abort();
  return 0;
}
