// The CustomResourceDefinitions of the kinds the chart renders besides
// Kubernetes own (cert-manager Certificate and Issuer, the
// Prometheus-operator ServiceMonitor), from the projects own Go modules at
// pinned versions: the chart test installs them before validating the chart.
module hami-scheduler.local/realcluster/crds

go 1.26

require (
	github.com/cert-manager/cert-manager v1.19.1
	github.com/prometheus-operator/prometheus-operator v0.85.0
)
