// ObjectError: a Kubernetes object (pod, node) whose JSON does not have the
// shape the model needs. Carries where (a JSON Pointer into the object) and
// what is wrong, so a webhook can answer "request.object/spec/...: ...".
#pragma once

#include <stdexcept>
#include <string>

namespace hami::k8s {

class ObjectError : public std::runtime_error {
 public:
  // `pointer` is an RFC 6901 pointer relative to the object ("" = the object
  // itself); `problem` says what is wrong, e.g. "expected a string, got a
  // number". what() is "<pointer>: <problem>", or just the problem at the root.
  ObjectError(std::string pointer, std::string problem);

  // A message that already names its location; pointer() is then empty and
  // problem() is the whole message.
  explicit ObjectError(std::string message);

  const std::string& pointer() const noexcept { return pointer_; }
  const std::string& problem() const noexcept { return problem_; }

 private:
  std::string pointer_;
  std::string problem_;
};

}  // namespace hami::k8s
