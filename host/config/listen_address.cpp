#include "config/listen_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <strings.h>

#include <charconv>

namespace hami::config {

std::string ListenAddress::text() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<ListenAddress> parse_listen_address(std::string_view text, bool allow_any_host) {
  std::string_view host;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return std::nullopt;
    }
    host = text.substr(1, close - 1);
    port_text = text.substr(close + 2);
    if (host.find(':') == std::string_view::npos)
      return std::nullopt;
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos)
      return std::nullopt;
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    // An unbracketed IPv6 address is ambiguous with its port.
    if (host.find(':') != std::string_view::npos)
      return std::nullopt;
  }
  if ((host.empty() && !allow_any_host) || port_text.empty() || port_text.size() > 5) {
    return std::nullopt;
  }
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == ':' || c == '%' || c == '_';
    if (!ok)
      return std::nullopt;
  }
  unsigned port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535) {
    return std::nullopt;
  }
  ListenAddress out;
  out.host = std::string(host);
  out.port = static_cast<uint16_t>(port);
  return out;
}

bool is_loopback(const ListenAddress& address) {
  const std::string& host = address.host;
  if (strcasecmp(host.c_str(), "localhost") == 0)
    return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1)
    return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1)
    return false;  // another host name, or a scoped (%zone) address
  if (IN6_IS_ADDR_LOOPBACK(&v6))
    return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

bool is_wildcard(const ListenAddress& address) {
  const std::string& host = address.host;
  if (host.empty())
    return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1)
    return v4.s_addr == htonl(INADDR_ANY);
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6);
}

bool same_address(const ListenAddress& a, const ListenAddress& b) {
  return a.port == b.port && strcasecmp(a.host.c_str(), b.host.c_str()) == 0;
}

}  // namespace hami::config
