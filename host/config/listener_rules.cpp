#include "config/listener_rules.hpp"

#include "config/listen_address.hpp"

namespace hami::config {
namespace {

std::string quoted(const ListenAddress& address) {
  return "\"" + address.text() + "\"";
}

bool same_port(const ListenAddress& a, const ListenAddress& b) {
  return a.port != 0 && a.port == b.port;
}

}  // namespace

bool asks_to_share(const ListenAddress& listen, const ListenAddress& extender_listen) {
  if (listen.port == 0)
    return false;
  return same_address(listen, extender_listen) ||
         (is_wildcard(listen) && is_loopback(extender_listen) &&
          listen.port == extender_listen.port);
}

std::optional<ListenerProblem> check_listeners(const HostConfig& config) {
  const ExtenderListenerConfig& extender = config.extender;
  if (extender.shared) {
    const bool same = same_address(config.listen, extender.listen);
    if (same && !is_loopback(config.listen)) {
      return ListenerProblem{
          "extender.listen",
          "equals listen " + quoted(config.listen) +
              ", which is not a loopback address: one socket may serve the webhook and the "
              "extender verbs on loopback only (elsewhere anyone who reaches the webhook could "
              "bind pods); give extender.listen an address of its own, e.g. 127.0.0.1:" +
              std::to_string(kDefaultExtenderPort)};
    }
    if (extender.tls) {
      return ListenerProblem{
          "extender.tls",
          "cannot be set when extender.listen " +
              (same ? std::string("equals listen")
                    : "is on loopback at the port of listen " + quoted(config.listen)) +
              ": the one socket serves both route sets with the settings of tls"};
    }
    return std::nullopt;
  }
  if (same_port(config.listen, extender.listen)) {
    return ListenerProblem{"extender.listen",
                           quoted(extender.listen) + " uses the port of listen " +
                               quoted(config.listen) +
                               ": give the extender listener a port of its own (default "
                               "127.0.0.1:" +
                               std::to_string(kDefaultExtenderPort) +
                               "), listen's exact address to share one socket (loopback only), "
                               "or a loopback address on the port of a wildcard listen "
                               "(0.0.0.0)"};
  }
  if (!is_loopback(extender.listen) && config.extender_tls().client_ca_file.empty()) {
    const std::string missing = extender.tls ? "extender.tls.clientCAFile is not set"
                                             : "no client CA is configured (extender.tls is "
                                               "not set and tls.clientCAFile is empty)";
    return ListenerProblem{"extender.listen",
                           quoted(extender.listen) + " is not a loopback address and " + missing +
                               ": a kube-scheduler on another machine must present a client "
                               "certificate, since the extender verbs bind pods to nodes; set "
                               "extender.tls.clientCAFile, or listen on loopback"};
  }
  return std::nullopt;
}

std::optional<std::string> check_listen_override(const HostConfig& config) {
  if (config.extender.shared) {
    if (!is_loopback(config.listen) && !is_wildcard(config.listen)) {
      return quoted(config.listen) + " is not a loopback address, but " + config.name() +
             " shares the webhook listener's socket with the extender listener, which is "
             "allowed on loopback, or on a wildcard address (0.0.0.0) whose loopback "
             "connections alone get the extender verbs; give extender.listen an address of its "
             "own there";
    }
    return std::nullopt;
  }
  if (same_port(config.listen, config.extender.listen)) {
    return quoted(config.listen) + " uses the port of the extender listener (extender.listen " +
           quoted(config.extender.listen) + " in " + config.name() + ")";
  }
  return std::nullopt;
}

}  // namespace hami::config
