// RoleLabeler: HAMi's scheduler role labels (reference §1.8). On every
// registration pass the leader lists the scheduler pods (label selector
// `selector` in namespace `namespace_`) and labels its own pod `key=leader`,
// every other one `key=follower`, so a Service selecting `key: leader`
// reaches only the leader. A pod whose label already has the right value
// is not written; the others get a merge patch of metadata.labels.
//
// Only the leader calls refresh(); a follower never writes. Failures (the
// list, any patch) are logged and returned, never thrown: the next pass
// retries them.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/api_client.hpp"

namespace hami::log {
class Logger;
}

namespace hami::kube {

inline constexpr const char* kDefaultRoleLabel = "hami.io/scheduler-role";
inline constexpr const char* kDefaultRoleSelector = "app.kubernetes.io/component=hami-scheduler";
inline constexpr const char* kRoleLeader = "leader";
inline constexpr const char* kRoleFollower = "follower";

struct RoleLabelOptions {
  std::string namespace_;  // the scheduler pods' namespace ($POD_NAMESPACE); required
  std::string own_pod;     // this process's pod ($POD_NAME, else the host name); required
  std::string selector = kDefaultRoleSelector;
  std::string key = kDefaultRoleLabel;
  const log::Logger* logger = nullptr;  // must outlive the labeler
};

// What one refresh did.
struct RoleLabelPass {
  size_t pods = 0;                  // pods the selector matched
  size_t patched = 0;               // pods whose label was written
  std::vector<std::string> errors;  // one per failed request, naming the pod or the list
  bool stopped = false;             // may_write said no before a write
};

class RoleLabeler {
 public:
  // Throws std::invalid_argument when namespace_, own_pod or key is empty.
  RoleLabeler(std::shared_ptr<ApiClient> client, RoleLabelOptions options);

  // One pass as the leader (see above). Never throws. `may_write`, when
  // given, is asked before every write: false (leadership lost since the
  // pass began) ends the pass, so a former leader's late pass does not
  // undo the new leader's labels.
  RoleLabelPass refresh(const std::function<bool()>& may_write = {});

  const RoleLabelOptions& options() const { return options_; }

 private:
  std::shared_ptr<ApiClient> client_;
  RoleLabelOptions options_;
};

// One listed pod: its name and the current value of the role label.
struct RolePod {
  std::string name;
  std::optional<std::string> role;  // nullopt: no such label (or not a string)
};

// The pods of a PodList reply (items without a metadata.name are skipped);
// nullopt when `body` is not a JSON object with an `items` array.
std::optional<std::vector<RolePod>> parse_role_pods(std::string_view body, const std::string& key);

// The body of the label write: {"metadata":{"labels":{"<key>":"<value>"}}}.
std::string role_label_patch_body(const std::string& key, const std::string& value);

}  // namespace hami::kube
