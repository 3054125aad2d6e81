#include "ops/workload_parser.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <utility>

#include "config/yaml_documents.hpp"
#include "config/yaml_json.hpp"
#include "k8s/json_depth.hpp"
#include "k8s/json_read.hpp"
#include "k8s/object_error.hpp"
#include "k8s/pod.hpp"

namespace hami::ops {

namespace {

using rapidjson::Value;
using Allocator = rapidjson::Document::AllocatorType;
using k8s::json::member;

std::string_view text_of(const Value* v) {
  return v != nullptr && v->IsString() ? k8s::json::view_of(*v) : std::string_view{};
}

class Expander {
 public:
  Expander(std::string_view origin, size_t max_pods, bool pods_only)
      : origin_(origin), max_pods_(max_pods), pods_only_(pods_only) {}

  // One parsed document.
  void document(const Value& doc, size_t index) {
    where_ = origin_ + ": document " + std::to_string(index);
    if (doc.IsArray()) {
      for (const Value& item : doc.GetArray())
        object(item, 0);
    } else {
      object(doc, 0);
    }
  }

  std::vector<WorkloadPod> take() { return std::move(pods_); }

 private:
  [[noreturn]] void fail(const std::string& what, const std::string& problem) const {
    throw WorkloadError(where_ + (what.empty() ? "" : " (" + what + ")") + ": " + problem);
  }

  void object(const Value& o, int depth) {
    if (!o.IsObject())
      fail("", "expected an object, got " + std::string(k8s::json::type_name(o)));
    const std::string kind(text_of(member(o, "kind")));
    const Value* meta = member(o, "metadata");
    if (meta != nullptr && !meta->IsObject()) {
      fail(kind.empty() ? "object" : kind,
           "metadata: expected an object, got " + std::string(k8s::json::type_name(*meta)));
    }
    const std::string name(meta != nullptr ? text_of(member(*meta, "name")) : "");
    std::string ns(meta != nullptr ? text_of(member(*meta, "namespace")) : "");
    if (ns.empty())
      ns = "default";
    const std::string what = (kind.empty() ? "object" : kind) + (name.empty() ? "" : " " + name);
    if (kind == "List" || (kind.size() > 4 && kind.ends_with("List"))) {
      if (depth > 0)
        fail(what, "a list inside a list");
      const Value* items = member(o, "items");
      if (items == nullptr || !items->IsArray())
        fail(what, "items: expected an array");
      for (const Value& item : items->GetArray())
        object(item, depth + 1);
      return;
    }
    if (pods_only_ && kind != "Pod")
      throw NotAPodError(where_ + " (" + what + ")", kind);
    if (kind == "Pod") {
      if (name.empty())
        fail(what, "metadata.name: a pod needs a name");
      add_pod(o, ns, name, what);
      return;
    }
    if (kind != "Deployment" && kind != "Job") {
      fail(what, kind.empty() ? "kind: missing (expected Pod, Deployment, Job or a List)"
                              : "kind: expected Pod, Deployment, Job or a List");
    }
    if (name.empty())
      fail(what, "metadata.name: an owner needs a name (its pods are <name>-<i>)");
    const Value* spec = member(o, "spec");
    if (spec == nullptr || !spec->IsObject())
      fail(what, "spec: expected an object");
    const char* count_key = kind == "Deployment" ? "replicas" : "parallelism";
    int64_t count = 1;
    if (const Value* c = member(*spec, count_key)) {
      if (!c->IsInt64() || c->GetInt64() < 0 ||
          c->GetInt64() > static_cast<int64_t>(kMaxWorkloadPods)) {
        fail(what, std::string("spec.") + count_key + ": expected a whole number from 0 to " +
                       std::to_string(kMaxWorkloadPods));
      }
      count = c->GetInt64();
    }
    const Value* tmpl = member(*spec, "template");
    if (tmpl == nullptr || !tmpl->IsObject())
      fail(what, "spec.template: expected an object");
    for (int64_t i = 0; i < count; ++i)
      add_pod(*tmpl, ns, name + "-" + std::to_string(i), what);
  }

  // `source`: a Pod, or a template (metadata and spec).
  void add_pod(const Value& source, const std::string& ns, const std::string& name,
               const std::string& what) {
    if (pods_.size() >= max_pods_)
      fail(what, "more than " + std::to_string(max_pods_) + " pods in the workload");
    if (!names_.emplace(ns, name).second)
      fail(what, "pod " + ns + "/" + name + " is given twice");
    rapidjson::Document pod(rapidjson::kObjectType);
    Allocator& a = pod.GetAllocator();
    pod.AddMember("apiVersion", "v1", a);
    pod.AddMember("kind", "Pod", a);
    Value meta(rapidjson::kObjectType);
    meta.AddMember("name", Value(name.c_str(), a), a);
    meta.AddMember("namespace", Value(ns.c_str(), a), a);
    if (const Value* m = member(source, "metadata")) {
      if (!m->IsObject())
        fail(what, "metadata: expected an object");
      for (const char* key : {"labels", "annotations"}) {
        if (const Value* v = member(*m, key))
          meta.AddMember(rapidjson::StringRef(key), Value(*v, a), a);
      }
    }
    pod.AddMember("metadata", meta, a);
    if (const Value* spec = member(source, "spec"))
      pod.AddMember("spec", Value(*spec, a), a);
    Value status(rapidjson::kObjectType);
    status.AddMember("phase", "Pending", a);
    pod.AddMember("status", status, a);
    try {
      const k8s::PodModel model(pod);
    } catch (const k8s::ObjectError& e) {
      fail(what, "pod " + ns + "/" + name + ": " + e.what());
    }
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    pod.Accept(writer);
    pods_.push_back({ns, name, std::string(buffer.GetString(), buffer.GetSize())});
  }

  std::string origin_;
  size_t max_pods_;
  bool pods_only_;
  std::string where_;
  std::vector<WorkloadPod> pods_;
  std::set<std::pair<std::string, std::string>> names_;
};

}  // namespace

std::vector<WorkloadPod> parse_workload(std::string_view text, std::string_view origin,
                                        size_t max_pods, bool pods_only) {
  const std::string where(origin);
  if (text.find('\0') != std::string_view::npos)
    throw WorkloadError(where + ": a NUL byte (neither JSON nor YAML text may contain one)");
  std::vector<YAML::Node> docs;
  try {
    docs = config::load_yaml_documents(std::string(text));
  } catch (const YAML::Exception& e) {
    throw WorkloadError(where + ": invalid YAML: " + e.what());
  }
  Expander expander(origin, max_pods, pods_only);
  // As the file backend: the JSON of all documents together is bounded, so
  // a few bytes of aliases cannot stand for gigabytes.
  size_t budget = 8 * text.size() + 1024 * 1024;
  size_t index = 0;
  for (const YAML::Node& node : docs) {
    ++index;
    if (!node || node.IsNull())
      continue;
    std::string json;
    try {
      json = config::yaml_to_json(node, where, "", budget);
    } catch (const std::exception& e) {
      throw WorkloadError(e.what());
    }
    budget -= json.size();
    if (k8s::json_nests_deeper_than(json, k8s::kMaxJsonDepth)) {
      throw WorkloadError(where + ": document " + std::to_string(index) + ": nests deeper than " +
                          std::to_string(k8s::kMaxJsonDepth) + " levels");
    }
    rapidjson::Document doc;
    doc.Parse(json.data(), json.size());
    if (doc.HasParseError())
      throw WorkloadError(where + ": document " + std::to_string(index) + ": not representable");
    expander.document(doc, index);
  }
  return expander.take();
}

}  // namespace hami::ops
