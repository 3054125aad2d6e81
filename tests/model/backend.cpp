#include "backend.hpp"

namespace hami::model {

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::none:
      return "none";
    case Fault::pod_write_before:
      return "pod-write-5xx";
    case Fault::pod_write_after:
      return "pod-write-stored-then-5xx";
    case Fault::pod_write_conflict:
      return "pod-write-409";
    case Fault::pod_write_and_removal:
      return "pod-write-and-removal-5xx";
    case Fault::node_write_before:
      return "node-write-5xx";
    case Fault::node_write_after:
      return "node-write-stored-then-5xx";
    case Fault::binding_before:
      return "binding-5xx";
    case Fault::binding_after:
      return "binding-stored-then-5xx";
    case Fault::binding_refused:
      return "binding-429";
  }
  return "?";
}

bool pod_write_unknown(Fault fault) {
  return fault == Fault::pod_write_before || fault == Fault::pod_write_after ||
         fault == Fault::pod_write_and_removal;
}

bool node_write_fault(Fault fault) {
  return fault == Fault::node_write_before || fault == Fault::node_write_after;
}

}  // namespace hami::model
