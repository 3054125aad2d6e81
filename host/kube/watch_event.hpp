// One line of a watch stream ({"type": …, "object": {…}}), parsed.
//
// ADDED / MODIFIED / DELETED carry the object; BOOKMARK carries only
// metadata.resourceVersion; ERROR carries a Status (code, reason, message),
// e.g. 410 Expired "too old resource version: X (Y)".
#pragma once

#include <rapidjson/document.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace hami::kube {

class WatchEventError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

struct WatchEvent {
  WatchEventType type = WatchEventType::Added;
  rapidjson::Document document;  // the whole line
  std::string resource_version;  // object metadata.resourceVersion ("" for ERROR)
  // ERROR only: the Status fields (code 0 when the Status carries none).
  int code = 0;
  std::string reason;
  std::string message;

  // The event's "object" member (an object for every type).
  const rapidjson::Value& object() const;
};

// Throws WatchEventError when the line is not JSON, has an unknown type, or
// its object is not a JSON object (or, for ADDED/MODIFIED/DELETED, has no
// metadata.name).
WatchEvent parse_watch_event(std::string_view line);

// "namespace/name" of a namespaced object, "name" of a cluster-scoped one;
// empty when metadata.name is missing.
std::string object_key(const rapidjson::Value& object);

// The namespace ("" for a cluster-scoped key) and name of an object_key.
std::pair<std::string, std::string> split_object_key(std::string_view key);

// metadata.resourceVersion of an object; empty when absent.
std::string resource_version_of(const rapidjson::Value& object);

// metadata.uid of an object; empty when absent.
std::string uid_of(const rapidjson::Value& object);

// Whether resourceVersion `candidate` is newer than `stored`: compared as
// integers when both are decimal integers (etcd revisions), else any
// difference counts as newer (the API server only promises opaque values).
bool resource_version_newer(std::string_view candidate, std::string_view stored);

// Whether resourceVersion `stored` is known to be newer than `other`: both
// are decimal integers and it is the larger. With opaque values nothing is
// known (so a deletion that checks it is applied).
bool provably_newer(std::string_view stored, std::string_view other);

}  // namespace hami::kube
