// Runs a load expected to fail and returns its PluginLoadError; any other
// outcome fails the current test.
#pragma once

#include <gtest/gtest.h>

#include <exception>
#include <utility>

#include "plugins/plugin_errors.hpp"

namespace hami::test {

template <class F>
host::PluginLoadError load_error(F&& load) {
  try {
    std::forward<F>(load)();
    ADD_FAILURE() << "the plugin loaded; a PluginLoadError was expected";
  } catch (const host::PluginLoadError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected PluginLoadError, got another exception: " << e.what();
  }
  return host::PluginLoadError(host::PluginErrorKind::CannotOpen, "<no PluginLoadError>");
}

template <class F>
host::PluginCallError call_error(F&& call) {
  try {
    std::forward<F>(call)();
    ADD_FAILURE() << "the call succeeded; a PluginCallError was expected";
  } catch (const host::PluginCallError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected PluginCallError, got another exception: " << e.what();
  }
  return host::PluginCallError(-1, "<no PluginCallError>");
}

}  // namespace hami::test
