// ExecTokenSource with real helper processes (shell scripts in a temp
// folder) and a fake clock: caching until expiry or a 401, the re-run rate
// limit, and the exact message of every failure.
#include "kube/exec_token_source.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <thread>

#include "exec_helper.hpp"
#include "kube/api_client.hpp"

namespace hami::kube {
namespace {

using namespace std::chrono_literals;
using testing::ExecHelper;
using testing::FakeClock;
using testing::print_token;

// 2030-01-01T00:00:00Z
const std::chrono::system_clock::time_point kStart{std::chrono::seconds(1893456000)};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status(), 0);
    return e.what();
  }
  return "<no ApiError>";
}

TEST(ExecTokenSource, WithoutExpiryTheTokenIsKeptUntilInvalidated) {
  ExecHelper helper(print_token());
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(helper.runs(), 0);  // nothing runs before the first request
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(std::chrono::hours(24 * 365));
  EXPECT_EQ(source.token(), "tok-1");
  EXPECT_EQ(helper.runs(), 1);
  source.invalidate();
  EXPECT_EQ(source.token(), "tok-2");
  EXPECT_EQ(source.token(), "tok-2");
  EXPECT_EQ(helper.runs(), 2);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(ExecTokenSource, RejectedRightAfterARunWaitsOutTheRerunInterval) {
  ExecHelper helper(print_token());
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(300ms);
  source.invalidate();
  EXPECT_EQ(source.token(), "tok-2");
  EXPECT_EQ(clock.sleeps(), std::vector<std::chrono::milliseconds>{700ms});
}

TEST(ExecTokenSource, RefreshesShortlyBeforeExpiry) {
  ExecHelper helper(print_token("2030-01-01T00:10:00Z"));
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(589s);
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(1s);  // 10 s before expirationTimestamp
  EXPECT_EQ(source.token(), "tok-2");
  EXPECT_EQ(helper.runs(), 2);
}

TEST(ExecTokenSource, ShortLivedTokenRefreshesAtHalfItsValidity) {
  ExecHelper helper(print_token("2030-01-01T00:00:08Z"));
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(3999ms);
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(1ms);
  EXPECT_EQ(source.token(), "tok-2");
}

TEST(ExecTokenSource, ExpiredOnArrivalIsNotReRunMoreThanOncePerSecond) {
  ExecHelper helper(print_token("2029-12-31T23:00:00Z"));
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(999ms);
  EXPECT_EQ(source.token(), "tok-1");
  EXPECT_EQ(helper.runs(), 1);
  clock.advance(1ms);
  EXPECT_EQ(source.token(), "tok-2");
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(ExecTokenSource, FailingHelperNamesUserCommandExitCodeAndStderr) {
  ExecHelper helper(
      "echo 'first line' >&2\necho 'error: no credentials for profile prod' >&2\nexit 3");
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  const std::string expected = "kubeconfig /k user \"u\": exec command \"" +
                               helper.script().string() +
                               "\" exited with code 3 (stderr: first line; error: no credentials "
                               "for profile prod)";
  EXPECT_EQ(error_of([&] { source.token(); }), expected);
  // Within the re-run interval the error is repeated without a run.
  clock.advance(500ms);
  EXPECT_EQ(error_of([&] { source.token(); }), expected);
  EXPECT_EQ(helper.runs(), 1);
  // The next request after it tries again.
  clock.advance(500ms);
  EXPECT_EQ(error_of([&] { source.token(); }), expected);
  EXPECT_EQ(helper.runs(), 2);
  EXPECT_TRUE(clock.sleeps().empty());
}

TEST(ExecTokenSource, HelperRecoveringAfterAFailureIsUsed) {
  ExecHelper helper("if [ \"$n\" = 1 ]; then exit 1; fi\n" + print_token());
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_NE(error_of([&] { source.token(); }), "<no ApiError>");
  clock.advance(1s);
  EXPECT_EQ(source.token(), "tok-2");
}

TEST(ExecTokenSource, FailureAtRefreshKeepsAStillValidTokenUntilItExpires) {
  ExecHelper helper("if [ \"$n\" -gt 1 ]; then echo 'sso session expired' >&2; exit 1; fi\n" +
                    print_token("2030-01-01T00:01:00Z"));
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(55s);  // due for refresh; the refresh fails
  EXPECT_EQ(source.token(), "tok-1");
  EXPECT_EQ(helper.runs(), 2);
  clock.advance(5s);  // expired now
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" exited with code 1 (stderr: sso session expired)");
  EXPECT_EQ(helper.runs(), 3);
}

TEST(ExecTokenSource, FailureAfterARejectionIsReported) {
  ExecHelper helper("if [ \"$n\" -gt 1 ]; then exit 2; fi\n" + print_token());
  FakeClock clock(kStart);
  ExecTokenSource source(helper.plugin(), clock.options());
  EXPECT_EQ(source.token(), "tok-1");
  clock.advance(5s);
  source.invalidate();  // the rejected token is not sent again
  EXPECT_EQ(error_of([&] { source.token(); }), "kubeconfig /k user \"u\": exec command \"" +
                                                   helper.script().string() +
                                                   "\" exited with code 2 (no stderr output)");
}

// Whether `pid` is gone or a zombie (its parent died; reaping is init's
// business), waiting at most `limit`.
bool process_ends(const std::string& pid, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  for (;;) {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string text;
    std::getline(stat, text);
    const auto paren = text.rfind(')');
    if (!stat || paren == std::string::npos || text.substr(paren + 2, 1) == "Z")
      return true;
    if (std::chrono::steady_clock::now() > deadline)
      return false;
    std::this_thread::sleep_for(20ms);
  }
}

TEST(ExecTokenSource, HangingHelperIsKilledAtTheTimeout) {
  // The helper starts a child of its own that would outlive it: the whole
  // process group goes.
  ExecHelper helper(
      "echo 'waiting for browser login' >&2\nsleep 60 &\necho $! > \"$dir/child\"\nsleep 60");
  ExecOptions options;
  options.timeout = 300ms;
  ExecTokenSource source(helper.plugin(), options);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" did not finish within 300 ms and was killed (stderr: waiting for browser "
                "login)");
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);
  std::string child = helper.file("child");
  ASSERT_FALSE(child.empty());
  child.pop_back();  // the newline
  EXPECT_TRUE(process_ends(child, 10s)) << "the helper's child " << child << " still runs";
}

TEST(ExecTokenSource, HelperClosingItsOutputButRunningOnIsKilledAtTheTimeout) {
  ExecHelper helper("exec >/dev/null 2>&1\nsleep 60");
  ExecOptions options;
  options.timeout = 300ms;
  ExecTokenSource source(helper.plugin(), options);
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" did not finish within 300 ms and was killed (no stderr output)");
}

TEST(ExecTokenSource, OutputIsCapped) {
  ExecHelper helper("i=0; while [ $i -lt 200 ]; do printf '0123456789'; i=$((i + 1)); done");
  ExecOptions options;
  options.max_output = 1000;
  ExecTokenSource source(helper.plugin(), options);
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" wrote more than 1000 bytes to stdout and was killed");
}

TEST(ExecTokenSource, KilledBySignal) {
  ExecHelper helper("kill -9 $$");
  ExecTokenSource source(helper.plugin());
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" was killed by signal 9 (Killed; no stderr output)");
}

TEST(ExecTokenSource, LongStderrKeepsItsTail) {
  ExecHelper helper(
      "i=0; while [ $i -lt 300 ]; do printf 'noise-%03d ' $i >&2; i=$((i + 1)); done\n"
      "echo 'the real reason' >&2\nexit 1");
  ExecTokenSource source(helper.plugin());
  const std::string message = error_of([&] { source.token(); });
  EXPECT_NE(message.find("(stderr: …"), std::string::npos) << message;
  EXPECT_NE(message.find("noise-299 the real reason)"), std::string::npos) << message;
  EXPECT_EQ(message.find("noise-000"), std::string::npos) << message;
}

TEST(ExecTokenSource, MalformedCredential) {
  ExecHelper helper("echo 'Token: abc'");
  ExecTokenSource source(helper.plugin());
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" printed an unusable ExecCredential: not JSON: Invalid value. at offset 0");
}

TEST(ExecTokenSource, WrongApiVersion) {
  ExecHelper helper(print_token());
  ExecTokenSource source(helper.plugin(kExecApiV1beta1));
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" printed an unusable ExecCredential: apiVersion is "
                "\"client.authentication.k8s.io/v1\", expected "
                "\"client.authentication.k8s.io/v1beta1\" (the kubeconfig's exec.apiVersion)");
}

TEST(ExecTokenSource, UnparsableClientCertificateIsAFailedRun) {
  ExecHelper helper(
      "printf '%s' '{\"kind\":\"ExecCredential\",\"apiVersion\":\"client.authentication.k8s.io/"
      "v1\",\"status\":{\"clientCertificateData\":\"c\",\"clientKeyData\":\"k\"}}'");
  ExecTokenSource source(helper.plugin());
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\" returned an unusable client certificate: the client certificate holds no "
                "PEM certificate");
}

TEST(ExecTokenSource, CommandNotFoundShowsTheInstallHint) {
  ExecPlugin plugin;
  plugin.owner = "kubeconfig /k user \"eks\"";
  plugin.api_version = std::string(kExecApiV1beta1);
  plugin.command = "hami-test-no-such-credential-helper";
  plugin.install_hint = "Install aws-iam-authenticator from https://example.invalid";
  ExecTokenSource source(plugin);
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"eks\": exec command \"hami-test-no-such-credential-helper\" not "
            "found in $PATH: Install aws-iam-authenticator from https://example.invalid");
  plugin.command = "/nonexistent-hami/helper";
  plugin.install_hint.clear();
  ExecTokenSource by_path(plugin);
  EXPECT_EQ(error_of([&] { by_path.token(); }),
            "kubeconfig /k user \"eks\": exec command \"/nonexistent-hami/helper\" not found");
}

TEST(ExecTokenSource, NotExecutable) {
  ExecHelper helper(print_token());
  std::filesystem::permissions(helper.script(), std::filesystem::perms::owner_read);
  ExecTokenSource source(helper.plugin());
  EXPECT_EQ(error_of([&] { source.token(); }),
            "kubeconfig /k user \"u\": exec command \"" + helper.script().string() +
                "\": cannot run " + helper.script().string() + ": Permission denied");
}

TEST(ExecTokenSource, ArgsEnvAndExecInfoReachTheHelper) {
  ExecHelper helper(
      "printf '%s|' \"$@\" > \"$dir/args\"\n"
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$dir/info\"\n"
      "printf '%s|%s|%s' \"$AWS_PROFILE\" \"$EMPTY\" \"$HAMI_EXEC_TEST_INHERITED\" > \"$dir/env\"\n"
      "readlink /proc/$$/fd/0 > \"$dir/stdin\"\n" +
      print_token());
  ASSERT_EQ(::setenv("HAMI_EXEC_TEST_INHERITED", "from-parent", 1), 0);
  ExecPlugin plugin = helper.plugin();
  plugin.args = {"eks", "get-token", "--cluster-name", "gpu prod", ""};
  plugin.env = {{"AWS_PROFILE", "first"}, {"EMPTY", ""}, {"AWS_PROFILE", "prod"}};
  plugin.cluster = ExecClusterInfo{"https://10.0.0.1:6443", "CA", "", false};
  ExecTokenSource source(plugin);
  EXPECT_EQ(source.token(), "tok-1");
  ::unsetenv("HAMI_EXEC_TEST_INHERITED");
  EXPECT_EQ(helper.file("args"), "eks|get-token|--cluster-name|gpu prod||");
  EXPECT_EQ(helper.file("env"), "prod||from-parent");
  EXPECT_EQ(helper.file("info"),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"cluster":{"server":"https://10.0.0.1:6443",)"
            R"("certificate-authority-data":"Q0E="},"interactive":false}})");
  EXPECT_EQ(helper.file("stdin"), "/dev/null\n");
}

TEST(ExecTokenSource, ExecInfoIsOurValueEvenWhenTheEnvironmentHasOne) {
  ExecHelper helper("printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$dir/info\"\n" + print_token());
  ASSERT_EQ(::setenv("KUBERNETES_EXEC_INFO", "stale", 1), 0);
  ExecTokenSource source(helper.plugin());
  EXPECT_EQ(source.token(), "tok-1");
  ::unsetenv("KUBERNETES_EXEC_INFO");
  EXPECT_EQ(helper.file("info"),
            R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1",)"
            R"("spec":{"interactive":false}})");
}

}  // namespace
}  // namespace hami::kube
