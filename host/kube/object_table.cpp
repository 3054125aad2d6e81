#include "kube/object_table.hpp"

#include "k8s/object_error.hpp"
#include "kube/namespace_kind.hpp"
#include "kube/node_kind.hpp"
#include "kube/pod_kind.hpp"
#include "kube/quota_kind.hpp"
#include "kube/watch_event.hpp"
#include "log/logger.hpp"

namespace hami::kube {

template <StoredKind Kind>
std::vector<typename Kind::Record> ObjectTable<Kind>::records() const {
  std::lock_guard guard(mu_);
  std::vector<Record> out;
  out.reserve(objects_.size());
  for (const auto& [_, stored] : objects_)
    out.push_back(Kind::record(stored));
  return out;
}

template <StoredKind Kind>
bool ObjectTable<Kind>::upsert(const rapidjson::Value& object, bool force,
                               cluster::WatcherNotes& notes) {
  if (!force) {
    // Most objects of a relist are unchanged: skip them before building.
    const Key key = Kind::key(object_key(object));
    const std::string rv = resource_version_of(object);
    std::lock_guard guard(mu_);
    const auto it = objects_.find(key);
    if (it != objects_.end() && !resource_version_newer(rv, Kind::resource_version(it->second)))
      return false;
  }
  rapidjson::Document doc;
  {
    rapidjson::Value copy = Kind::trim(object, doc.GetAllocator());
    static_cast<rapidjson::Value&>(doc).Swap(copy);
  }
  try {
    auto built = Kind::build(doc);
    if (!built)
      return false;
    auto& [key, fresh] = *built;
    std::lock_guard guard(mu_);
    const auto it = objects_.find(key);
    if (it == objects_.end()) {
      Kind::upserted(nullptr, fresh, notes);
      objects_.emplace(std::move(key), std::move(fresh));
      return true;
    }
    if (!force &&
        !resource_version_newer(Kind::resource_version(fresh), Kind::resource_version(it->second)))
      return false;
    Kind::carry_over(doc, fresh, it->second);
    Kind::upserted(&it->second, fresh, notes);
    it->second = std::move(fresh);
    return true;
  } catch (const k8s::ObjectError& e) {
    rejected(object, e.what());
    return false;
  }
}

template <StoredKind Kind>
void ObjectTable<Kind>::remove(const rapidjson::Value& last_state, cluster::WatcherNotes& notes) {
  const Key key = Kind::key(object_key(last_state));
  const std::string rv = resource_version_of(last_state);
  std::lock_guard guard(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end() || provably_newer(Kind::resource_version(it->second), rv) ||
      !Kind::deleted_by(it->second, last_state)) {
    return;
  }
  Kind::deleted(it->first, it->second, notes);
  objects_.erase(it);
}

template <StoredKind Kind>
void ObjectTable<Kind>::erase(const Key& key, cluster::WatcherNotes& notes) {
  std::lock_guard guard(mu_);
  const auto it = objects_.find(key);
  if (it == objects_.end())
    return;
  Kind::deleted(it->first, it->second, notes);
  objects_.erase(it);
}

template <StoredKind Kind>
void ObjectTable<Kind>::replace(const Relist& relist, cluster::WatcherNotes& notes) {
  for (const rapidjson::Value& object : relist.objects.GetArray())
    upsert(object, false, notes);
  std::lock_guard guard(mu_);
  for (const std::string& deleted : relist.deleted) {
    const auto it = objects_.find(Kind::key(deleted));
    if (it == objects_.end() ||
        provably_newer(Kind::resource_version(it->second), relist.resource_version)) {
      continue;
    }
    Kind::deleted(it->first, it->second, notes);
    objects_.erase(it);
  }
}

template <StoredKind Kind>
void ObjectTable<Kind>::rejected(const rapidjson::Value& object, const char* why) const {
  if (logger_) {
    logger_->warn(
        "cluster object ignored",
        {{"kind", std::string(Kind::kName)}, {"object", object_key(object)}, {"error", why}});
  }
}

template class ObjectTable<PodKind>;
template class ObjectTable<NodeKind>;
template class ObjectTable<QuotaKind>;
template class ObjectTable<NamespaceKind>;

}  // namespace hami::kube
