// The rules binding the webhook listener (`listen`, `tls`) and the
// extender listener (`extender`), checked on the file as read and again
// after --listen moved the webhook listener. Internal to hami_config.
//
//  - extender.listen equal to listen (same host, same port other than 0)
//    shares one socket, and only on a loopback address; so does a
//    loopback extender.listen on the port of a wildcard listen (the
//    extender verbs then answer loopback connections only); extender.tls
//    cannot be set then (the one socket serves with tls);
//  - otherwise the two use different ports (port 0: each gets its own);
//  - a non-loopback extender listener requires client certificates: a
//    kube-scheduler elsewhere must present one, since the extender verbs
//    bind pods to nodes and /allocations lists every GPU pod.
#pragma once

#include <optional>
#include <string>

#include "config/host_config.hpp"

namespace hami::config {

struct ListenerProblem {
  std::string key;   // the key path to blame, e.g. "extender.listen"
  std::string what;  // what is wrong, and what to do
};

// Whether extender.listen, as written, asks to share listen's socket.
bool asks_to_share(const ListenAddress& listen, const ListenAddress& extender_listen);

// The first broken rule of `config` as loaded from its file.
std::optional<ListenerProblem> check_listeners(const HostConfig& config);

// The first broken rule once --listen set config.listen: the message, to
// follow "--listen: ".
std::optional<std::string> check_listen_override(const HostConfig& config);

}  // namespace hami::config
