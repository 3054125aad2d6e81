#include "server/health_routes.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace hami::server {
namespace {

// Health answers carry no body; a probe only reads the status.
constexpr std::size_t kNoBody = 0;

void alive(const Request&, Response& out) {
  out.status = 200;
  out.content_type.clear();
  out.body.clear();
}

std::string not_ready_body(const std::vector<Readiness::Condition>& unmet) {
  std::string summary = "not ready: ";
  for (size_t i = 0; i < unmet.size(); ++i) {
    if (i > 0)
      summary += "; ";
    summary += unmet[i].name;
    if (!unmet[i].detail.empty())
      summary += ": " + unmet[i].detail;
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto str = [&w](std::string_view s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  str("error");
  str(summary);
  str("unmet");
  w.StartObject();
  for (const auto& c : unmet) {
    str(c.name);
    str(c.detail);
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace

void register_health_routes(Router& router, const Readiness& readiness) {
  router.add("GET", "/healthz", kNoBody, alive, Execution::inline_loop);
  router.add("GET", "/status", kNoBody, alive, Execution::inline_loop);
  router.add(
      "GET", "/readyz", kNoBody,
      [&readiness](const Request& req, Response& out) {
        const auto unmet = readiness.unmet();
        if (unmet.empty()) {
          alive(req, out);
          return;
        }
        out.status = 503;
        out.body = not_ready_body(unmet);
      },
      Execution::inline_loop);
}

}  // namespace hami::server
