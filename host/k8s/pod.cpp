#include "k8s/pod.hpp"

#include <unordered_map>

#include "hami/plugin.hpp"
#include "k8s/json_path.hpp"
#include "k8s/json_read.hpp"

namespace hami::k8s {

namespace {

using rapidjson::Value;

hami_str hs(std::string_view s) noexcept {
  return {s.data(), s.size()};
}

// Appends key/value pairs keeping keys unique: a repeated key keeps its
// first position and takes the later value. Small maps are scanned; large
// ones (annotation-heavy pods) use an index so a hostile object cannot make
// parsing quadratic.
class KvAppender {
 public:
  explicit KvAppender(std::vector<hami_kv>& out) : out_(out) {}

  // Returns the position of the key in `out`.
  size_t append(hami_str key, hami_str value) {
    if (const auto found = find(to_sv(key))) {
      out_[*found].value = value;
      return *found;
    }
    out_.push_back({key, value});
    if (!index_.empty())
      index_.emplace(to_sv(key), out_.size() - 1);
    return out_.size() - 1;
  }

 private:
  static constexpr size_t kScanLimit = 16;

  std::optional<size_t> find(std::string_view key) {
    if (out_.size() <= kScanLimit) {
      for (size_t i = 0; i < out_.size(); ++i) {
        if (to_sv(out_[i].key) == key)
          return i;
      }
      return std::nullopt;
    }
    if (index_.empty()) {
      for (size_t i = 0; i < out_.size(); ++i)
        index_.emplace(to_sv(out_[i].key), i);
    }
    const auto it = index_.find(key);
    if (it == index_.end())
      return std::nullopt;
    return it->second;
  }

  std::vector<hami_kv>& out_;
  std::unordered_map<std::string_view, size_t> index_;
};

std::optional<std::string_view> find_kv(const std::vector<hami_kv>& kvs, std::string_view key) {
  for (const hami_kv& kv : kvs) {
    if (to_sv(kv.key) == key)
      return to_sv(kv.value);
  }
  return std::nullopt;
}

}  // namespace

hami_str PodModel::own(std::string_view text) {
  return hs(arena_.store(text));
}

PodModel::PodModel(const rapidjson::Value& pod, std::string_view default_namespace) {
  const JsonPath root;
  if (!pod.IsObject())
    json::wrong_type(root, "a Pod object", pod);
  view_.struct_size = sizeof(hami_pod_view);
  parse_metadata(pod, default_namespace);
  parse_spec(pod);
  parse_status(pod);
  view_.annotations = annotations_.data();
  view_.annotations_len = annotations_.size();
  view_.labels = labels_.data();
  view_.labels_len = labels_.size();
  for (size_t i = 0; i < containers_.size(); ++i)
    refresh_view(i);
  view_.containers = containers_.data();
  view_.containers_len = containers_.size();
}

void PodModel::parse_metadata(const rapidjson::Value& pod, std::string_view default_namespace) {
  const JsonPath root;
  const Value* metadata = json::optional_object(pod, "metadata", root);
  std::string_view ns = default_namespace;
  if (metadata != nullptr) {
    has_metadata_ = true;
    const JsonPath at(root, "metadata");
    if (auto name = json::optional_string(*metadata, "name", at))
      view_.name = own(*name);
    if (auto value = json::optional_string(*metadata, "namespace", at); value && !value->empty()) {
      ns = *value;
    }
    if (auto uid = json::optional_string(*metadata, "uid", at))
      view_.uid = own(*uid);
    terminating_ = json::member(*metadata, "deletionTimestamp") != nullptr;
    const auto read_map = [&](std::string_view key, std::vector<hami_kv>& out) {
      const Value* map = json::optional_object(*metadata, key, at);
      if (map == nullptr)
        return false;
      const JsonPath map_at(at, key);
      out.reserve(map->MemberCount());
      KvAppender appender(out);
      for (const auto& entry : map->GetObject()) {
        const std::string_view entry_key = json::view_of(entry.name);
        if (!entry.value.IsString()) {
          json::wrong_type(JsonPath(map_at, entry_key), "a string", entry.value);
        }
        appender.append(own(entry_key), own(json::view_of(entry.value)));
      }
      return true;
    };
    has_annotations_ = read_map("annotations", annotations_);
    has_labels_ = read_map("labels", labels_);
  }
  view_.namespace_ = own(ns);
}

void PodModel::parse_spec(const rapidjson::Value& pod) {
  const JsonPath root;
  const Value* spec = json::optional_object(pod, "spec", root);
  if (spec == nullptr)
    return;
  has_spec_ = true;
  const JsonPath at(root, "spec");
  if (auto value = json::optional_string(*spec, "schedulerName", at)) {
    has_scheduler_name_ = true;
    view_.scheduler_name = own(*value);
  }
  if (auto value = json::optional_string(*spec, "nodeName", at))
    view_.node_name = own(*value);
  if (auto value = json::optional_string(*spec, "runtimeClassName", at)) {
    has_runtime_class_name_ = true;
    view_.runtime_class_name = own(*value);
  }
  if (const Value* priority = json::member(*spec, "priority");
      priority != nullptr && !priority->IsNull()) {
    if (!priority->IsInt())
      json::wrong_type(JsonPath(at, "priority"), "a 32-bit integer", *priority);
    priority_ = priority->GetInt();
  }

  const Value* init = json::optional_array(*spec, "initContainers", at);
  const Value* app = json::optional_array(*spec, "containers", at);
  const size_t init_count = init != nullptr ? init->Size() : 0;
  const size_t total = init_count + (app != nullptr ? app->Size() : 0);
  data_.resize(total);
  containers_.resize(total);
  json_.resize(total);
  view_.init_count = init_count;

  size_t slot = 0;
  const auto read_list = [&](const Value* list, std::string_view key, ContainerList kind) {
    if (list == nullptr)
      return;
    const JsonPath list_at(at, key);
    uint32_t index = 0;
    for (const Value& item : list->GetArray()) {
      const JsonPath item_at(list_at, index);
      if (!item.IsObject())
        json::wrong_type(item_at, "a container object", item);
      hami_container_view& view = containers_[slot];
      ContainerData& data = data_[slot];
      ContainerJson& where = json_[slot];
      view.struct_size = sizeof(hami_container_view);
      view.is_init = kind == ContainerList::Init ? 1U : 0U;
      where.list = kind;
      where.index = index;
      if (auto name = json::optional_string(item, "name", item_at))
        view.name = own(*name);
      if (const Value* security = json::optional_object(item, "securityContext", item_at)) {
        const JsonPath security_at(item_at, "securityContext");
        view.privileged = json::optional_bool(*security, "privileged", security_at).value_or(false);
      }
      if (kind == ContainerList::Init) {
        where.sidecar =
            json::optional_string(item, "restartPolicy", item_at).value_or("") == "Always";
      }
      if (const Value* resources = json::optional_object(item, "resources", item_at)) {
        where.has_resources = true;
        const JsonPath resources_at(item_at, "resources");
        const auto read_quantities = [&](std::string_view member, std::vector<hami_kv>& out) {
          const Value* map = json::optional_object(*resources, member, resources_at);
          if (map == nullptr)
            return false;
          const JsonPath map_at(resources_at, member);
          out.reserve(map->MemberCount());
          KvAppender appender(out);
          for (const auto& entry : map->GetObject()) {
            const std::string_view entry_key = json::view_of(entry.name);
            json::QuantityBuffer buffer;
            const std::string_view text =
                json::quantity(entry.value, JsonPath(map_at, entry_key), buffer);
            appender.append(own(entry_key), own(text));
          }
          return true;
        };
        where.has_limits = read_quantities("limits", data.limits);
        where.has_requests = read_quantities("requests", data.requests);
      }
      if (const Value* env = json::optional_array(item, "env", item_at)) {
        const JsonPath env_at(item_at, "env");
        where.has_env = true;
        where.env_size = env->Size();
        data.env.reserve(env->Size());
        KvAppender appender(data.env);
        uint32_t env_index = 0;
        for (const Value& var : env->GetArray()) {
          const JsonPath var_at(env_at, env_index);
          if (!var.IsObject())
            json::wrong_type(var_at, "an env object", var);
          const auto name = json::optional_string(var, "name", var_at);
          const auto value = json::optional_string(var, "value", var_at);
          json::optional_object(var, "valueFrom", var_at);  // type check only
          const size_t position = appender.append(own(name.value_or("")), own(value.value_or("")));
          if (position == data.env_json_index.size()) {
            data.env_json_index.push_back(env_index);
            data.env_literal.push_back(value.has_value() ? 1 : 0);
          } else {
            data.env_json_index[position] = env_index;
            data.env_literal[position] = value.has_value() ? 1 : 0;
          }
          ++env_index;
        }
      }
      ++slot;
      ++index;
    }
  };
  read_list(init, "initContainers", ContainerList::Init);
  read_list(app, "containers", ContainerList::App);
}

void PodModel::parse_status(const rapidjson::Value& pod) {
  const JsonPath root;
  const Value* status = json::optional_object(pod, "status", root);
  if (status == nullptr)
    return;
  if (auto phase = json::optional_string(*status, "phase", JsonPath(root, "status"))) {
    phase_ = arena_.store(*phase);
  }
  if (auto start = json::optional_string(*status, "startTime", JsonPath(root, "status")))
    start_time_ = arena_.store(*start);
}

void PodModel::refresh_view(size_t container) {
  hami_container_view& view = containers_[container];
  const ContainerData& data = data_[container];
  view.limits = data.limits.data();
  view.limits_len = data.limits.size();
  view.requests = data.requests.data();
  view.requests_len = data.requests.size();
  view.env = data.env.data();
  view.env_len = data.env.size();
}

std::optional<std::string_view> PodModel::limit(size_t container, std::string_view resource) const {
  return find_kv(data_.at(container).limits, resource);
}

std::optional<std::string_view> PodModel::request(size_t container,
                                                  std::string_view resource) const {
  return find_kv(data_.at(container).requests, resource);
}

std::optional<std::string_view> PodModel::env(size_t container, std::string_view name) const {
  return find_kv(data_.at(container).env, name);
}

bool PodModel::env_is_literal(size_t container, std::string_view name) const {
  const ContainerData& data = data_.at(container);
  for (size_t i = 0; i < data.env.size(); ++i) {
    if (to_sv(data.env[i].key) == name)
      return data.env_literal[i] != 0;
  }
  return false;
}

Change PodModel::set_limit(size_t container, std::string_view resource, std::string_view quantity) {
  ContainerJson& where = json_.at(container);
  return set_quantity(container, data_.at(container).limits, where.has_limits, resource, quantity);
}

Change PodModel::set_request(size_t container, std::string_view resource,
                             std::string_view quantity) {
  ContainerJson& where = json_.at(container);
  return set_quantity(container, data_.at(container).requests, where.has_requests, resource,
                      quantity);
}

Change PodModel::set_quantity(size_t container, std::vector<hami_kv>& map, bool& has_map,
                              std::string_view resource, std::string_view quantity) {
  for (hami_kv& kv : map) {
    if (to_sv(kv.key) != resource)
      continue;
    if (to_sv(kv.value) == quantity)
      return Change::None;
    kv.value = own(quantity);
    return Change::Replaced;
  }
  map.push_back({own(resource), own(quantity)});
  json_.at(container).has_resources = true;
  has_map = true;
  refresh_view(container);
  return Change::Added;
}

Change PodModel::set_annotation(std::string_view key, std::string_view value) {
  for (hami_kv& kv : annotations_) {
    if (to_sv(kv.key) != key)
      continue;
    if (to_sv(kv.value) == value)
      return Change::None;
    kv.value = own(value);
    return Change::Replaced;
  }
  annotations_.push_back({own(key), own(value)});
  has_metadata_ = true;
  has_annotations_ = true;
  view_.annotations = annotations_.data();
  view_.annotations_len = annotations_.size();
  return Change::Added;
}

EnvChange PodModel::set_env(size_t container, std::string_view name, std::string_view value) {
  ContainerData& data = data_.at(container);
  ContainerJson& where = json_.at(container);
  for (size_t i = 0; i < data.env.size(); ++i) {
    if (to_sv(data.env[i].key) != name)
      continue;
    if (data.env_literal[i] != 0 && to_sv(data.env[i].value) == value) {
      return {Change::None, data.env_json_index[i]};
    }
    data.env[i].value = own(value);
    data.env_literal[i] = 1;
    return {Change::Replaced, data.env_json_index[i]};
  }
  const uint32_t json_index = where.env_size;
  data.env.push_back({own(name), own(value)});
  data.env_json_index.push_back(json_index);
  data.env_literal.push_back(1);
  where.has_env = true;
  where.env_size = json_index + 1;
  refresh_view(container);
  return {Change::Added, json_index};
}

Change PodModel::set_scheduler_name(std::string_view name) {
  if (has_scheduler_name_ && to_sv(view_.scheduler_name) == name)
    return Change::None;
  const Change change = has_scheduler_name_ ? Change::Replaced : Change::Added;
  view_.scheduler_name = own(name);
  has_scheduler_name_ = true;
  return change;
}

Change PodModel::set_runtime_class_name(std::string_view name) {
  if (has_runtime_class_name_ && to_sv(view_.runtime_class_name) == name)
    return Change::None;
  const Change change = has_runtime_class_name_ ? Change::Replaced : Change::Added;
  view_.runtime_class_name = own(name);
  has_runtime_class_name_ = true;
  return change;
}

}  // namespace hami::k8s
