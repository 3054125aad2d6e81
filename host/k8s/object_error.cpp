#include "k8s/object_error.hpp"

#include <utility>

namespace hami::k8s {

namespace {
std::string describe(const std::string& pointer, const std::string& problem) {
  return pointer.empty() ? problem : pointer + ": " + problem;
}
}  // namespace

ObjectError::ObjectError(std::string pointer, std::string problem)
    : std::runtime_error(describe(pointer, problem)),
      pointer_(std::move(pointer)),
      problem_(std::move(problem)) {}

ObjectError::ObjectError(std::string message)
    : std::runtime_error(message), problem_(std::move(message)) {}

}  // namespace hami::k8s
