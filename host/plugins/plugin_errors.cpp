#include "plugins/plugin_errors.hpp"

namespace hami::host {

std::string_view to_string(PluginErrorKind kind) {
  switch (kind) {
    case PluginErrorKind::CannotOpen:
      return "CannotOpen";
    case PluginErrorKind::MissingEntryPoint:
      return "MissingEntryPoint";
    case PluginErrorKind::NegotiationRefused:
      return "NegotiationRefused";
    case PluginErrorKind::AbiMajorMismatch:
      return "AbiMajorMismatch";
    case PluginErrorKind::WrongKind:
      return "WrongKind";
    case PluginErrorKind::InvalidVtable:
      return "InvalidVtable";
    case PluginErrorKind::ConfigRejected:
      return "ConfigRejected";
    case PluginErrorKind::CreateFailed:
      return "CreateFailed";
    case PluginErrorKind::PluginThrew:
      return "PluginThrew";
    case PluginErrorKind::InsecureFile:
      return "InsecureFile";
    case PluginErrorKind::OutsideDirectory:
      return "OutsideDirectory";
  }
  return "UnknownPluginError";
}

std::string_view status_name(hami_status status) {
  switch (status) {
    case HAMI_OK:
      return "OK";
    case HAMI_CANCELLED:
      return "CANCELLED";
    case HAMI_UNKNOWN:
      return "UNKNOWN";
    case HAMI_INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case HAMI_NOT_FOUND:
      return "NOT_FOUND";
    case HAMI_ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case HAMI_PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case HAMI_RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case HAMI_FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case HAMI_OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case HAMI_UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case HAMI_INTERNAL:
      return "INTERNAL";
    case HAMI_UNAVAILABLE:
      return "UNAVAILABLE";
    default:
      return "UNKNOWN_STATUS";
  }
}

bool is_known_status(hami_status status) {
  return status_name(status) != "UNKNOWN_STATUS";
}

}  // namespace hami::host
