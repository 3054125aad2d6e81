package realcluster

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// The CRDs of the third-party kinds the chart renders, by module and file
// (tests/realcluster/crds/go.mod pins the versions).
var thirdPartyCRDs = map[string][]string{
	"github.com/cert-manager/cert-manager": {
		"deploy/crds/cert-manager.io_certificates.yaml", "deploy/crds/cert-manager.io_issuers.yaml"},
	"github.com/prometheus-operator/prometheus-operator": {
		"example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"},
}

func installThirdPartyCRDs(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	mapper := newMapper(t)
	var modules []string
	for m := range thirdPartyCRDs {
		modules = append(modules, m)
	}
	sort.Strings(modules)
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, modules...)...)
	cmd.Dir = filepath.Join(cluster.repo, "tests", "realcluster", "crds")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go mod download of the CRD modules: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var m struct{ Path, Dir, Error string }
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m.Error != "" {
			t.Fatalf("go mod download %s: %s", m.Path, m.Error)
		}
		for _, f := range thirdPartyCRDs[m.Path] {
			data, err := os.ReadFile(filepath.Join(m.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			objects, err := decodeObjects(data)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, o := range objects {
				if err := apply(ctx, mapper, o, false); err != nil {
					t.Fatalf("installing %s: %v", f, err)
				}
				name := o.GetName()
				t.Cleanup(func() {
					_ = cluster.client.Discovery().RESTClient().Delete().
						AbsPath("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", name).Do(context.Background())
				})
			}
		}
	}
	// Discovery serves a new CRD's kinds once it is Established.
	deadline := time.Now().Add(30 * time.Second)
	for {
		m := newMapper(t)
		_, err1 := m.RESTMapping(schema.GroupKind{Group: "cert-manager.io", Kind: "Certificate"}, "v1")
		_, err2 := m.RESTMapping(schema.GroupKind{Group: "monitoring.coreos.com", Kind: "ServiceMonitor"}, "v1")
		if err1 == nil && err2 == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CRDs are not served after 30 s: %v %v", err1, err2)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Every object `helm template` renders, with the default values and with
// each file of the values matrix (tests/packaging/helm-values), passes the
// real API server's validation and admission (server-side dry run), then
// is stored; the objects of one rendering are removed before the next.
func TestEveryChartObjectIsAcceptedByTheAPIServer(t *testing.T) {
	installThirdPartyCRDs(t)
	matrix, err := filepath.Glob(filepath.Join(cluster.repo, "tests", "packaging", "helm-values", "*.yaml"))
	if err != nil || len(matrix) == 0 {
		t.Fatalf("no values files: %v", err)
	}
	cases := map[string][]string{"default values": nil}
	for _, f := range matrix {
		cases[filepath.Base(f)] = []string{f}
	}
	names := make([]string, 0, len(cases))
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			objects := renderChart(t, cases[name])
			ctx := context.Background()
			mapper := newMapper(t)
			for _, o := range objects {
				if err := apply(ctx, mapper, o, true); err != nil {
					t.Errorf("dry run: %v", err)
				}
			}
			if t.Failed() {
				return
			}
			defer deleteObjects(t, mapper, objects)
			for _, o := range objects {
				if err := apply(ctx, mapper, o, false); err != nil {
					t.Errorf("apply: %v", err)
				}
			}
		})
	}
}

func deleteObjects(t *testing.T, mapper meta.RESTMapper, objects []*unstructured.Unstructured) {
	ctx := context.Background()
	for _, o := range objects {
		gvk := o.GroupVersionKind()
		mapping, err := mapper.RESTMapping(schema.GroupKind{Group: gvk.Group, Kind: gvk.Kind}, gvk.Version)
		if err != nil {
			t.Errorf("%s %s: %v", gvk.Kind, o.GetName(), err)
			continue
		}
		res := cluster.dynamic.Resource(mapping.Resource)
		del := metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			err = res.Namespace(namespace).Delete(ctx, o.GetName(), del)
		} else {
			err = res.Delete(ctx, o.GetName(), del)
		}
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("deleting %s %s: %v", gvk.Kind, o.GetName(), err)
		}
	}
}
