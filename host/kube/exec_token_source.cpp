#include "kube/exec_token_source.hpp"

#include <stdexcept>
#include <utility>

namespace hami::kube {

ExecTokenSource::ExecTokenSource(std::shared_ptr<ExecCredentialSource> source)
    : source_(std::move(source)) {
  if (!source_)
    throw std::invalid_argument("ExecTokenSource: no credential source");
}

ExecTokenSource::ExecTokenSource(ExecPlugin plugin, ExecOptions options)
    : source_(std::make_shared<ExecCredentialSource>(std::move(plugin), std::move(options))) {}

std::string ExecTokenSource::token() {
  return source_->credential()->token;
}

void ExecTokenSource::invalidate() {
  source_->invalidate();
}

}  // namespace hami::kube
