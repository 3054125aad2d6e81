// The cluster section (source, kubernetes connection, leader election), the
// node lock settings, and the --cluster command-line override.
#include "config_fixture.hpp"

namespace hami::test {
namespace {

using ClusterConfig = ConfigTest;

TEST_F(ClusterConfig, Defaults) {
  const auto cfg = load(kMinimal);
  EXPECT_EQ(cfg.cluster.source, config::ClusterSource::file);
  EXPECT_TRUE(cfg.cluster.kubernetes.kubeconfig.empty());
  EXPECT_DOUBLE_EQ(cfg.cluster.kubernetes.qps, 200.0);
  EXPECT_EQ(cfg.cluster.kubernetes.burst, 400);
  EXPECT_EQ(cfg.cluster.kubernetes.request_timeout_seconds, 30);
  EXPECT_EQ(cfg.cluster.kubernetes.events, config::EventsApi::events_v1);
  const auto& le = cfg.cluster.leader_election;
  EXPECT_EQ(le.mode, config::LeaderMode::none);
  EXPECT_EQ(le.lease_namespace, "kube-system");
  EXPECT_EQ(le.lease_name, "kube-scheduler");
  EXPECT_EQ(le.identity, "");
  EXPECT_EQ(le.lease_duration_seconds, 15);
  EXPECT_EQ(le.renew_deadline_seconds, 10);
  EXPECT_EQ(le.retry_period_seconds, 2);
  EXPECT_EQ(cfg.scheduler.node_lock.timeout_seconds, 300);
  EXPECT_EQ(cfg.scheduler.node_lock.pod_group_retry_timeout_seconds, 28);
}

TEST_F(ClusterConfig, EveryKeyIsRead) {
  write("kube/config", "apiVersion: v1\n");
  const auto cfg = load(kMinimal + R"(
scheduler:
  nodeLock: {timeoutSeconds: 60, podGroupRetryTimeoutSeconds: 0}
cluster:
  source: kubernetes
  kubernetes:
    kubeconfig: kube/config
    qps: 7.5
    burst: 9
    requestTimeoutSeconds: 4
    events: v1
  leaderElection:
    mode: elect
    leaseNamespace: hami
    leaseName: hami-scheduler
    identity: replica-a
    leaseDurationSeconds: 30
    renewDeadlineSeconds: 20
    retryPeriodSeconds: 5
    roleLabel: example.com/role
    roleSelector: app=sched
)");
  EXPECT_EQ(cfg.cluster.source, config::ClusterSource::kubernetes);
  EXPECT_EQ(cfg.cluster.kubernetes.kubeconfig, dir / "kube/config");
  EXPECT_DOUBLE_EQ(cfg.cluster.kubernetes.qps, 7.5);
  EXPECT_EQ(cfg.cluster.kubernetes.burst, 9);
  EXPECT_EQ(cfg.cluster.kubernetes.request_timeout_seconds, 4);
  EXPECT_EQ(cfg.cluster.kubernetes.events, config::EventsApi::core_v1);
  const auto& le = cfg.cluster.leader_election;
  EXPECT_EQ(le.mode, config::LeaderMode::elect);
  EXPECT_EQ(le.lease_namespace, "hami");
  EXPECT_EQ(le.lease_name, "hami-scheduler");
  EXPECT_EQ(le.identity, "replica-a");
  EXPECT_EQ(le.lease_duration_seconds, 30);
  EXPECT_EQ(le.renew_deadline_seconds, 20);
  EXPECT_EQ(le.retry_period_seconds, 5);
  EXPECT_EQ(le.role_label, "example.com/role");
  EXPECT_EQ(le.role_selector, "app=sched");
  EXPECT_EQ(cfg.scheduler.node_lock.timeout_seconds, 60);
  EXPECT_EQ(cfg.scheduler.node_lock.pod_group_retry_timeout_seconds, 0);
}

TEST_F(ClusterConfig, RoleLabelsDefaultToHamisAndMayBeTurnedOff) {
  const std::string k = kMinimal + "cluster:\n  source: kubernetes\n";
  const auto defaults = load(k);
  EXPECT_EQ(defaults.cluster.leader_election.role_label, "hami.io/scheduler-role");
  EXPECT_EQ(defaults.cluster.leader_election.role_selector,
            "app.kubernetes.io/component=hami-scheduler");
  const auto off = load(k + "  leaderElection: {roleLabel: \"\"}\n");
  EXPECT_EQ(off.cluster.leader_election.role_label, "");
}

TEST_F(ClusterConfig, FollowModeAndEventsApiNames) {
  const auto cfg = load(kMinimal +
                        "cluster:\n  source: kubernetes\n  kubernetes: {events: events.k8s.io/v1, "
                        "qps: 0}\n  leaderElection: {mode: follow}\n");
  EXPECT_EQ(cfg.cluster.leader_election.mode, config::LeaderMode::follow);
  EXPECT_EQ(cfg.cluster.kubernetes.events, config::EventsApi::events_v1);
  EXPECT_DOUBLE_EQ(cfg.cluster.kubernetes.qps, 0.0);
}

TEST_F(ClusterConfig, Errors) {
  const std::string k = kMinimal + "cluster:\n  source: kubernetes\n";
  EXPECT_EQ(error_of(k + "  kubernetes: {qsp: 1}\n"),
            "cfg.yaml: cluster.kubernetes.qsp: unknown key (expected one of: kubeconfig, qps, "
            "burst, requestTimeoutSeconds, events)");
  EXPECT_EQ(error_of(k + "  kubernetes: {qps: -1}\n"),
            "cfg.yaml: cluster.kubernetes.qps: expected a number from 0 to 100000, got \"-1\"");
  EXPECT_EQ(error_of(k + "  kubernetes: {qps: fast}\n"),
            "cfg.yaml: cluster.kubernetes.qps: expected a number from 0 to 100000, got \"fast\"");
  EXPECT_EQ(error_of(k + "  kubernetes: {burst: 0}\n"),
            "cfg.yaml: cluster.kubernetes.burst: expected a positive integer, got \"0\"");
  EXPECT_EQ(error_of(k + "  kubernetes: {events: v2}\n"),
            "cfg.yaml: cluster.kubernetes.events: expected one of events.k8s.io/v1, v1, got "
            "\"v2\"");
  EXPECT_EQ(error_of(k + "  kubernetes: {kubeconfig: missing.yaml}\n"),
            "cfg.yaml: cluster.kubernetes.kubeconfig: cannot read \"DIR/missing.yaml\": No such "
            "file or directory");
  EXPECT_EQ(error_of(k + "  leaderElection: {mode: passive}\n"),
            "cfg.yaml: cluster.leaderElection.mode: expected one of none, follow, elect, got "
            "\"passive\"");
  EXPECT_EQ(error_of(k + "  leaderElection: {leaseName: \"\"}\n"),
            "cfg.yaml: cluster.leaderElection.leaseName: expected a non-empty string");
  EXPECT_EQ(error_of(k + "  leaderElection: {leaseDurationSeconds: 10}\n"),
            "cfg.yaml: cluster.leaderElection: leaseDurationSeconds (10) must be greater than "
            "renewDeadlineSeconds (10)");
  EXPECT_EQ(error_of(k + "  leaderElection: {renewDeadlineSeconds: 12, retryPeriodSeconds: 10}\n"),
            "cfg.yaml: cluster.leaderElection: renewDeadlineSeconds (12) must be greater than 1.2 "
            "x retryPeriodSeconds (10)");
  EXPECT_EQ(error_of(kMinimal + "cluster:\n  leaderElection: {mode: follow}\n"),
            "cfg.yaml: cluster.leaderElection.mode: \"follow\" needs cluster.source kubernetes");
  EXPECT_EQ(
      error_of(k + "  leaderElection: {mode: elect}\n"),
      "cfg.yaml: cluster.leaderElection.leaseName: \"kube-scheduler\" is kube-scheduler's own "
      "lease: mode elect needs a lease of its own (e.g. hami-scheduler), mode follow follows "
      "that one");
  EXPECT_EQ(error_of(kMinimal + "scheduler:\n  nodeLock: {timeoutSeconds: 0}\n"),
            "cfg.yaml: scheduler.nodeLock.timeoutSeconds: expected a positive integer, got \"0\"");
  EXPECT_EQ(error_of(kMinimal + "scheduler:\n  nodeLock: {podGroupRetryTimeoutSeconds: -1}\n"),
            "cfg.yaml: scheduler.nodeLock.podGroupRetryTimeoutSeconds: expected a non-negative "
            "integer, got \"-1\"");
}

TEST_F(ClusterConfig, KubeconfigIsNotReadForTheFileSource) {
  // The file source never opens the kubeconfig, so a missing one is fine.
  const auto cfg = load(kMinimal + "cluster:\n  kubernetes: {kubeconfig: nowhere}\n");
  EXPECT_EQ(cfg.cluster.kubernetes.kubeconfig, dir / "nowhere");
}

TEST_F(ClusterConfig, CommandLineOverrideWins) {
  const auto snapshot = write("snap.yaml", "nodes: []\n");
  auto cfg = load(kMinimal + "cluster:\n  source: kubernetes\n  leaderElection: {mode: follow}\n");
  config::Overrides o;
  o.cluster = "file:" + snapshot.string();
  config::apply_overrides(cfg, o);
  EXPECT_EQ(cfg.cluster.source, config::ClusterSource::file);
  EXPECT_EQ(cfg.cluster.file, snapshot);
  EXPECT_EQ(cfg.cluster.leader_election.mode, config::LeaderMode::none);

  auto file_cfg = load(kMinimal + "cluster:\n  leaderElection: {leaseName: x}\n");
  o.cluster = "kubernetes";
  config::apply_overrides(file_cfg, o);
  EXPECT_EQ(file_cfg.cluster.source, config::ClusterSource::kubernetes);
  EXPECT_EQ(file_cfg.cluster.leader_election.lease_name, "x");
}

TEST_F(ClusterConfig, MalformedClusterOverride) {
  const auto error = [&](const std::string& value) {
    auto cfg = load(kMinimal);
    config::Overrides o;
    o.cluster = value;
    try {
      config::apply_overrides(cfg, o);
    } catch (const config::ConfigError& e) {
      return normalise(e.what());
    }
    return std::string("<no error>");
  };
  EXPECT_EQ(error("k8s"), "--cluster: expected kubernetes or file:PATH, got \"k8s\"");
  EXPECT_EQ(error("file:"), "--cluster: expected kubernetes or file:PATH, got \"file:\"");
  EXPECT_EQ(error("file:" + (dir / "none.yaml").string()),
            "--cluster: cannot read \"DIR/none.yaml\": No such file or directory");
}

}  // namespace
}  // namespace hami::test
