#include "plugins/admission_plugin_handle.hpp"

#include <utility>

#include "plugins/plugin_call.hpp"

namespace hami::host {
namespace {

struct TextContext {
  std::string* out;
  CallProblems* problems;
};

void append_text(void* ctx, const char* bytes, size_t len) noexcept {
  auto& c = *static_cast<TextContext*>(ctx);
  c.problems->run([&] { c.problems->append(*c.out, bytes, len); });
}

}  // namespace

AdmissionPluginHandle::AdmissionPluginHandle(PluginInstance instance,
                                             const hami_admission_vtable& vtable)
    : instance_(std::move(instance)), vtable_(vtable) {}

AdmissionDecision AdmissionPluginHandle::review(const hami_admission_input& in) const {
  AdmissionDecision decision;
  std::string scheduler_name;
  CallProblems problems;
  TextContext message_ctx{&decision.message, &problems};
  TextContext scheduler_ctx{&scheduler_name, &problems};
  hami_admission_output out{};
  out.struct_size = static_cast<uint32_t>(sizeof out);
  out.message = hami_sink{&message_ctx, &append_text};
  out.scheduler_name = hami_sink{&scheduler_ctx, &append_text};
  problems.check_utf8_after(&decision.message, "message");
  problems.check_utf8_after(&scheduler_name, "scheduler_name");
  ErrorBuffer err;
  {
    const auto lock = instance_.serialize();
    call_plugin(instance_, "review", err,
                [&] { return vtable_.review(instance_.get(), &in, &out, err.view()); });
  }
  problems.report(instance_, "review");
  if (out.verdict != HAMI_ADMIT_ALLOW && out.verdict != HAMI_ADMIT_DENY &&
      out.verdict != HAMI_ADMIT_SKIP) {
    throw_invalid_output(instance_, "review", "unknown verdict " + std::to_string(out.verdict));
  }
  decision.verdict = out.verdict;
  decision.code = out.code;
  if (!scheduler_name.empty()) {
    decision.scheduler_name = std::move(scheduler_name);
  }
  return decision;
}

}  // namespace hami::host
