package realcluster

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// snapshot is a file-backend snapshot's objects (config/*-cluster.yaml).
type snapshot struct {
	namespaces []corev1.Namespace
	quotas     []corev1.ResourceQuota
	nodes      []corev1.Node
	pods       []corev1.Pod
}

func readSnapshot(t testing.TB, file string) snapshot {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(cluster.repo, "config", file))
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.List
	if err := yaml.Unmarshal(data, &list); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var s snapshot
	for _, item := range list.Items {
		var probe metav1.TypeMeta
		if err := yaml.Unmarshal(item.Raw, &probe); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		var target any
		switch probe.Kind {
		case "Namespace":
			s.namespaces = append(s.namespaces, corev1.Namespace{})
			target = &s.namespaces[len(s.namespaces)-1]
		case "ResourceQuota":
			s.quotas = append(s.quotas, corev1.ResourceQuota{})
			target = &s.quotas[len(s.quotas)-1]
		case "Node":
			s.nodes = append(s.nodes, corev1.Node{})
			target = &s.nodes[len(s.nodes)-1]
		case "Pod":
			s.pods = append(s.pods, corev1.Pod{})
			target = &s.pods[len(s.pods)-1]
		default:
			continue
		}
		if err := yaml.Unmarshal(item.Raw, target); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
	}
	return s
}

// load creates the snapshot's namespaces, quotas and nodes through the API,
// and its pods that are already placed (spec.nodeName set) with their
// allocation annotations and status, as the cluster would hold them after
// HAMi placed them. Pending pods are not created: tests create them. Call
// it before deploy, while no webhook refuses a GPU pod with a node.
func (s snapshot) load(t *testing.T, file string) {
	t.Helper()
	ctx := context.Background()
	for _, ns := range s.namespaces {
		createNamespace(t, ns.Name, ns.Labels)
	}
	for _, q := range s.quotas {
		q := q.DeepCopy()
		q.ResourceVersion, q.UID = "", ""
		created, err := cluster.client.CoreV1().ResourceQuotas(q.Namespace).Create(ctx, q, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: quota %s/%s: %v", file, q.Namespace, q.Name, err)
		}
		// What the absent quota controller would do: publish the hard
		// limits with nothing used, without which quota admission refuses
		// every pod of the namespace ("status unknown for quota").
		created.Status.Hard = created.Spec.Hard
		created.Status.Used = corev1.ResourceList{}
		for name := range created.Spec.Hard {
			created.Status.Used[name] = resource.MustParse("0")
		}
		if _, err := cluster.client.CoreV1().ResourceQuotas(q.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("%s: status of quota %s/%s: %v", file, q.Namespace, q.Name, err)
		}
	}
	var names []string
	for _, n := range s.nodes {
		names = append(names, n.Name)
	}
	createNodes(t, file, names, nil)
	for _, p := range s.pods {
		if p.Spec.NodeName == "" {
			continue
		}
		pod := p.DeepCopy()
		pod.UID, pod.ResourceVersion = "", ""
		status := pod.Status
		for i := range pod.Spec.Containers {
			if pod.Spec.Containers[i].Image == "" {
				pod.Spec.Containers[i].Image = "registry.example/app:1"
			}
		}
		for i := range pod.Spec.InitContainers {
			if pod.Spec.InitContainers[i].Image == "" {
				pod.Spec.InitContainers[i].Image = "registry.example/app:1"
			}
		}
		created, err := cluster.client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("%s: pod %s/%s: %v", file, pod.Namespace, pod.Name, err)
		}
		if status.Phase != "" {
			created.Status = status
			if _, err := cluster.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("%s: status of pod %s/%s: %v", file, pod.Namespace, pod.Name, err)
			}
		}
	}
}

// pending is the snapshot's pod of that name that waits to be scheduled,
// ready to be created through the API.
func (s snapshot) pending(t testing.TB, ns, name string) *corev1.Pod {
	t.Helper()
	for _, p := range s.pods {
		if p.Namespace == ns && p.Name == name {
			pod := p.DeepCopy()
			pod.UID, pod.ResourceVersion = "", ""
			pod.Status = corev1.PodStatus{}
			pod.Spec.SchedulerName = ""
			for i := range pod.Spec.Containers {
				if pod.Spec.Containers[i].Image == "" {
					pod.Spec.Containers[i].Image = "registry.example/app:1"
				}
			}
			return pod
		}
	}
	t.Fatalf("the snapshot has no pod %s/%s", ns, name)
	return nil
}
