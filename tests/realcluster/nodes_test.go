package realcluster

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// snapshotNodes is the Node objects of a file-backend snapshot
// (config/demo-cluster.yaml, config/vendors-cluster.yaml): the
// registrations HAMi's device plugins publish.
func snapshotNodes(t testing.TB, file string) map[string]*corev1.Node {
	t.Helper()
	nodes := map[string]*corev1.Node{}
	for _, n := range readSnapshot(t, file).nodes {
		nodes[n.Name] = n.DeepCopy()
	}
	return nodes
}

// createNodes creates the named nodes of a snapshot through the API, with
// what a kubelet would add to them (cpu, memory and pod capacity where the
// snapshot trims them, a Ready condition), renamed by rename when not nil.
// They are deleted at the test's end.
func createNodes(t *testing.T, file string, names []string, rename func(string) string) []string {
	t.Helper()
	all := snapshotNodes(t, file)
	ctx := context.Background()
	var created []string
	for _, name := range names {
		n, ok := all[name]
		if !ok {
			t.Fatalf("%s has no node %s", file, name)
		}
		node := n.DeepCopy()
		if rename != nil {
			// The kubelet's hostname label is the host's name, which a node
			// name longer than a label value cannot be.
			node.Name = rename(name)
			if len(node.Name) <= 63 {
				node.Labels["kubernetes.io/hostname"] = node.Name
			}
		}
		completeNode(node)
		stored, err := cluster.client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("creating node %s: %v", node.Name, err)
		}
		untaintNotReady(t, stored)
		created = append(created, node.Name)
	}
	t.Cleanup(func() {
		for _, name := range created {
			err := cluster.client.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Logf("deleting node %s: %v", name, err)
			}
		}
	})
	return created
}

// untaintNotReady removes the node.kubernetes.io/not-ready taint that the
// TaintNodesByCondition admission plugin puts on every new node, as the
// node lifecycle controller does once the node is Ready.
func untaintNotReady(t *testing.T, node *corev1.Node) {
	t.Helper()
	var kept []corev1.Taint
	for _, taint := range node.Spec.Taints {
		if taint.Key != corev1.TaintNodeNotReady {
			kept = append(kept, taint)
		}
	}
	if len(kept) == len(node.Spec.Taints) {
		return
	}
	node.Spec.Taints = kept
	if _, err := cluster.client.CoreV1().Nodes().Update(context.Background(), node, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("removing the not-ready taint of %s: %v", node.Name, err)
	}
}

func completeNode(node *corev1.Node) {
	if node.Labels == nil {
		node.Labels = map[string]string{}
	}
	node.Labels["kubernetes.io/os"] = "linux"
	for _, list := range []*corev1.ResourceList{&node.Status.Capacity, &node.Status.Allocatable} {
		if *list == nil {
			*list = corev1.ResourceList{}
		}
		for name, def := range map[corev1.ResourceName]string{
			corev1.ResourceCPU: "64", corev1.ResourceMemory: "512Gi", corev1.ResourcePods: "110"} {
			if _, ok := (*list)[name]; !ok {
				(*list)[name] = resource.MustParse(def)
			}
		}
	}
	now := metav1.NewTime(time.Now())
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
		Reason: "KubeletReady", LastHeartbeatTime: now, LastTransitionTime: now}}
	// A handshake the vendor's device plugin reported just now.
	for k := range node.Annotations {
		if strings.HasPrefix(k, "hami.io/node-handshake") {
			node.Annotations[k] = "Reported_" + now.Format(handshakeTimeLayout)
		}
	}
}

const handshakeTimeLayout = "2006-01-02 15:04:05"

// createNamespace makes a namespace (with the ServiceAccount "default" that
// the absent controller manager would make, which the ServiceAccount
// admission plugin requires) and deletes it at the test's end.
func createNamespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	if _, err := cluster.client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating namespace %s: %v", name, err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default", Namespace: name}}
	if _, err := cluster.client.CoreV1().ServiceAccounts(name).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating the default ServiceAccount of %s: %v", name, err)
	}
	t.Cleanup(func() { deleteNamespace(t, name) })
}

// deleteNamespace force-deletes the namespace's pods (no kubelet finishes
// them) and what else the suite makes in it, as the absent namespace
// controller would, then the namespace. Without a controller manager nothing runs the
// namespace's finalizer: the first delete marks it Terminating, the test
// finalizes it, and a second delete removes it.
func deleteNamespace(t *testing.T, name string) {
	ctx := context.Background()
	del := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
	_ = cluster.client.CoreV1().Pods(name).DeleteCollection(ctx, del, metav1.ListOptions{})
	_ = cluster.client.CoreV1().ResourceQuotas(name).DeleteCollection(ctx, del, metav1.ListOptions{})
	_ = cluster.client.CoreV1().ServiceAccounts(name).DeleteCollection(ctx, del, metav1.ListOptions{})
	_ = cluster.client.CoreV1().Events(name).DeleteCollection(ctx, del, metav1.ListOptions{})
	_ = cluster.client.CoreV1().ConfigMaps(name).DeleteCollection(ctx, del, metav1.ListOptions{})
	_ = cluster.client.CoreV1().Namespaces().Delete(ctx, name, del)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ns, err := cluster.client.CoreV1().Namespaces().Get(ctx, name, getOpts)
		if apierrors.IsNotFound(err) {
			return
		}
		if err == nil && len(ns.Spec.Finalizers) > 0 {
			ns.Spec.Finalizers = nil
			if _, err := cluster.client.CoreV1().Namespaces().Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
				t.Logf("finalizing namespace %s: %v", name, err)
			}
		}
		_ = cluster.client.CoreV1().Namespaces().Delete(ctx, name, del)
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("namespace %s still exists 30 s after its deletion", name)
}
