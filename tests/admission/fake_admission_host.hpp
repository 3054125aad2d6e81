// FakeAdmissionHost: a scripted hami_admission_host for testing admission
// plugins in-process, and helpers to run one review and read its output.
#pragma once

#include <hami/admission.h>
#include <rapidjson/document.h>

#include <cstring>
#include <string>
#include <string_view>

#include "k8s/pod.hpp"

namespace hami::admission::testing {

struct FakeAdmissionHost {
  // Scripted answers.
  hami_status defaults_status = HAMI_OK;
  std::string defaults_message;
  bool uses_managed = false;
  hami_status quota_status = HAMI_OK;
  std::string quota_message;
  hami_status label_status = HAMI_NOT_FOUND;
  std::string label_value;
  // What the plugin asked.
  int defaults_calls = 0;
  int quota_calls = 0;
  std::string label_key;

  hami_admission_host table() {
    hami_admission_host t{};
    t.struct_size = sizeof t;
    t.ctx = this;
    t.apply_device_defaults = [](void* ctx, uint32_t* uses, hami_errbuf err) {
      auto& self = *static_cast<FakeAdmissionHost*>(ctx);
      ++self.defaults_calls;
      *uses = self.uses_managed ? 1U : 0U;
      write(err, self.defaults_message);
      return self.defaults_status;
    };
    t.check_quota = [](void* ctx, hami_errbuf err) {
      auto& self = *static_cast<FakeAdmissionHost*>(ctx);
      ++self.quota_calls;
      write(err, self.quota_message);
      return self.quota_status;
    };
    t.namespace_label = [](void* ctx, hami_str key, hami_sink value) {
      auto& self = *static_cast<FakeAdmissionHost*>(ctx);
      self.label_key.assign(key.ptr, key.len);
      if (self.label_status == HAMI_OK) {
        value.append(value.ctx, self.label_value.data(), self.label_value.size());
      }
      return self.label_status;
    };
    return t;
  }

  static void write(hami_errbuf err, const std::string& text) {
    if (err.cap == 0)
      return;
    const size_t n = std::min(text.size(), err.cap - 1);
    std::memcpy(err.buf, text.data(), n);
    err.buf[n] = '\0';
  }
};

// What a plugin's review produced.
struct ReviewOutput {
  uint32_t verdict = 99;
  int32_t code = 0;
  std::string message;
  std::string scheduler_name;
};

inline void append_to(void* ctx, const char* bytes, size_t len) {
  static_cast<std::string*>(ctx)->append(bytes, len);
}

// Runs `policy.review` on the pod JSON `pod` with `host`.
template <class Policy>
ReviewOutput run_review(Policy& policy, std::string_view pod, FakeAdmissionHost& host,
                        std::string_view scheduler_name = "hami-scheduler",
                        std::string_view ns = "default") {
  rapidjson::Document doc;
  doc.Parse(pod.data(), pod.size());
  const k8s::PodModel model(doc, ns);
  const hami_admission_host table = host.table();
  hami_admission_input in{};
  in.struct_size = sizeof in;
  in.pod = &model.view();
  in.scheduler_name = {scheduler_name.data(), scheduler_name.size()};
  in.host = &table;
  ReviewOutput result;
  hami_admission_output out{};
  out.struct_size = sizeof out;
  out.message = {&result.message, &append_to};
  out.scheduler_name = {&result.scheduler_name, &append_to};
  policy.review(in, out);
  result.verdict = out.verdict;
  result.code = out.code;
  return result;
}

}  // namespace hami::admission::testing
