#include "extender/refit_route.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "extender/go_json.hpp"
#include "log/logger.hpp"
#include "server/http_text.hpp"
#include "server/router.hpp"

namespace hami::extender {

namespace {

constexpr std::string_view kType = "RefitRequest";

std::string field_name(std::string_view field) {
  return std::string(kType) + "." + std::string(field);
}

bool json_content_type(std::string_view content_type) {
  return server::ascii_iequals(server::trim_ows(content_type.substr(0, content_type.find(';'))),
                               "application/json");
}

}  // namespace

scheduling::RefitRequest decode_refit_request(std::string_view body) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (doc.HasParseError()) {
    throw DecodeError("invalid JSON at offset " + std::to_string(doc.GetErrorOffset()) + ": " +
                      rapidjson::GetParseError_En(doc.GetParseError()));
  }
  if (!doc.IsObject())
    throw_value_type_error(doc, "scheduler." + std::string(kType));
  scheduling::RefitRequest r;
  for (const auto& m : doc.GetObject()) {
    const rapidjson::Value& v = m.value;
    if (go_field_is(m.name, "podUID")) {
      r.pod_uid = go_string_field(v, field_name("podUID"));
    } else if (go_field_is(m.name, "podNamespace")) {
      r.pod_namespace = go_string_field(v, field_name("podNamespace"));
    } else if (go_field_is(m.name, "podName")) {
      r.pod_name = go_string_field(v, field_name("podName"));
    } else if (go_field_is(m.name, "nodeName")) {
      r.node_name = go_string_field(v, field_name("nodeName"));
    } else if (go_field_is(m.name, "containerName")) {
      r.container_name = go_string_field(v, field_name("containerName"));
    } else if (go_field_is(m.name, "deviceType")) {
      r.device_type = go_string_field(v, field_name("deviceType"));
    } else if (go_field_is(m.name, "containerIndex")) {
      if (v.IsNull())
        r.container_index = 0;
      else if (v.IsInt64())
        r.container_index = v.GetInt64();
      else
        throw_type_error(v, field_name("containerIndex"), "int");
    } else if (go_field_is(m.name, "allowedDeviceUUIDs")) {
      r.allowed_device_uuids.clear();
      if (v.IsNull())
        continue;
      if (!v.IsArray())
        throw_type_error(v, field_name("allowedDeviceUUIDs"), "[]string");
      for (const auto& item : v.GetArray()) {
        if (!item.IsString() && !item.IsNull())
          throw_type_error(item, field_name("allowedDeviceUUIDs"), "string");
        r.allowed_device_uuids.emplace_back(item.IsString() ? item.GetString() : "",
                                            item.IsString() ? item.GetStringLength() : 0);
      }
    }
  }
  return r;
}

std::string encode_refit_result(const scheduling::RefitOutcome& outcome) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  const auto string = [&w](const std::string& s) {
    w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
  };
  w.StartObject();
  w.Key("succeeded");
  w.Bool(outcome.succeeded);
  w.Key("containerDevices");
  string(outcome.container_devices);
  w.Key("failureReason");
  string(outcome.failure_reason);
  w.EndObject();
  return {buffer.GetString(), buffer.GetSize()};
}

std::string refit_reply(scheduling::Scheduler& scheduler, std::string_view content_type,
                        std::string_view body, const log::Logger* logger) {
  scheduling::RefitOutcome outcome;
  scheduling::RefitRequest request;
  if (!json_content_type(content_type)) {
    outcome.failure_reason =
        "Content-Type \"" + std::string(content_type) + "\" is not application/json";
  } else if (body.empty()) {
    outcome.failure_reason = "invalid refit request: empty request body";
  } else {
    try {
      request = decode_refit_request(body);
      outcome = scheduler.refit(request);
    } catch (const DecodeError& e) {
      outcome.failure_reason = std::string("invalid refit request: ") + e.what();
    }
  }
  if (logger != nullptr && !outcome.succeeded) {
    logger->warn("refit refused", {{"pod", request.pod_namespace + "/" + request.pod_name},
                                   {"uid", request.pod_uid},
                                   {"node", request.node_name},
                                   {"error", outcome.failure_reason}});
  }
  return encode_refit_result(outcome);
}

void register_refit_route(server::Router& router, scheduling::Scheduler& scheduler,
                          std::size_t body_limit, const log::Logger* logger) {
  router.add(
      "POST", "/refit", body_limit,
      [&scheduler, logger](const server::Request& request, server::Response& response) {
        response.status = 200;
        response.content_type = "application/json";
        response.body = refit_reply(scheduler, request.content_type, request.body, logger);
      },
      server::Execution::worker);
}

}  // namespace hami::extender
