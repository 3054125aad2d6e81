package realcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/restmapper"
)

const (
	release   = "hami-scheduler"
	namespace = "kube-system"
	fieldMgr  = "realcluster-tests"
)

var getOpts = metav1.GetOptions{}

func chartDir() string {
	return filepath.Join(cluster.repo, "packaging", "kubernetes", "helm", "hami-scheduler")
}

// renderChart runs `helm template` on the chart with the given values files
// and --set pairs, and decodes every object.
func renderChart(t testing.TB, valuesFiles []string, sets ...string) []*unstructured.Unstructured {
	t.Helper()
	args := []string{"template", release, chartDir(), "--namespace", namespace}
	for _, f := range valuesFiles {
		args = append(args, "--values", f)
	}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(cluster.helm, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("helm %v: %v\n%s", args, err, stderr.String())
	}
	objects, err := decodeObjects(stdout.Bytes())
	if err != nil {
		t.Fatalf("decoding helm template's output: %v", err)
	}
	return objects
}

func decodeObjects(data []byte) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(obj) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
}

func findObject(t testing.TB, objects []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objects {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("the chart renders no %s %s", kind, name)
	return nil
}

func configMapData(t testing.TB, objects []*unstructured.Unstructured, name, key string) string {
	t.Helper()
	cm := findObject(t, objects, "ConfigMap", name)
	v, ok, err := unstructured.NestedString(cm.Object, "data", key)
	if err != nil || !ok {
		t.Fatalf("ConfigMap %s has no data.%s", name, key)
	}
	return v
}

// mapper resolves kinds to resources from the API server's discovery.
func newMapper(t testing.TB) meta.RESTMapper {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.admin)
	if err != nil {
		t.Fatal(err)
	}
	return restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
}

// apply sends obj by server-side apply (dryRun: validation and admission
// only, nothing stored).
func apply(ctx context.Context, mapper meta.RESTMapper, obj *unstructured.Unstructured, dryRun bool) error {
	gvk := obj.GroupVersionKind()
	mapping, err := mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	res := cluster.dynamic.Resource(mapping.Resource)
	opts := metav1.ApplyOptions{FieldManager: fieldMgr, Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = namespace
		}
		_, err = res.Namespace(ns).Apply(ctx, obj.GetName(), obj, opts)
	} else {
		_, err = res.Apply(ctx, obj.GetName(), obj, opts)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
	}
	return nil
}
