package check

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/host/config"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// component is the part of kustomize's Component the redis component uses.
type component struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Patches    []struct {
		Path   string `json:"path"`
		Target struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
		} `json:"target"`
	} `json:"patches"`
}

// jsonPatch is one RFC 6902 operation.
type jsonPatch struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value string `json:"value"`
}

// TestRedisComponent: the optional Redis for tasks (redis/) decodes
// strictly; its patch gives mcpwasm's container a --task-store that
// mcpwasm accepts and that names the Redis Service and port; the Service
// reaches the Redis pod and not mcpwasm's, and mcpwasm's Service does not
// reach Redis; the NetworkPolicy admits mcpwasm's pods only.
func TestRedisComponent(t *testing.T) {
	m := load(t)
	var comp component
	strict(t, "redis/kustomization.yaml", readFile(t, "redis/kustomization.yaml"), &comp)
	if comp.Kind != "Component" || comp.APIVersion != "kustomize.config.k8s.io/v1alpha1" {
		t.Fatalf("redis/kustomization.yaml: %s %s", comp.APIVersion, comp.Kind)
	}
	dep, svc, policy := &appsv1.Deployment{}, &corev1.Service{}, &networkingv1.NetworkPolicy{}
	decodeKinds(t, "redis/", comp.Resources, map[string]any{
		"apps/v1 Deployment":                 dep,
		"v1 Service":                         svc,
		"networking.k8s.io/v1 NetworkPolicy": policy,
	})

	// The patch: appended to the args of mcpwasm's only container.
	if len(comp.Patches) != 1 || comp.Patches[0].Target.Kind != "Deployment" || comp.Patches[0].Target.Name != m.deployment.Name {
		t.Fatalf("the component must patch the Deployment %s: %+v", m.deployment.Name, comp.Patches)
	}
	var ops []jsonPatch
	strict(t, "redis/"+comp.Patches[0].Path, readFile(t, "redis/"+comp.Patches[0].Path), &ops)
	args := append([]string{}, m.deployment.Spec.Template.Spec.Containers[0].Args...)
	for _, op := range ops {
		if op.Op != "add" || op.Path != "/spec/template/spec/containers/0/args/-" {
			t.Fatalf("patch %+v: want adds to /spec/template/spec/containers/0/args/-", op)
		}
		args = append(args, op.Value)
	}
	store := flagValue(t, args, "--task-store")
	if err := config.CheckTaskStore(store); err != nil || !strings.HasPrefix(store, "redis://") {
		t.Fatalf("--task-store %s: %v", store, err)
	}
	u, _ := url.Parse(store)
	if u.Hostname() != svc.Name {
		t.Errorf("--task-store names host %s, the Service is %s", u.Hostname(), svc.Name)
	}
	if len(svc.Spec.Ports) != 1 || fmt.Sprint(svc.Spec.Ports[0].Port) != u.Port() {
		t.Errorf("--task-store names port %s, the Service serves %+v", u.Port(), svc.Spec.Ports)
	}

	// The Service reaches Redis, on a port its container names.
	redisPod := dep.Spec.Template.Labels
	selects := func(sel, labels map[string]string) bool {
		if len(sel) == 0 {
			return false
		}
		for k, v := range sel {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	if !selects(dep.Spec.Selector.MatchLabels, redisPod) || !selects(svc.Spec.Selector, redisPod) {
		t.Errorf("the Redis Deployment or Service does not select the Redis pod (%v)", redisPod)
	}
	if selects(m.service.Spec.Selector, redisPod) || selects(svc.Spec.Selector, m.deployment.Spec.Template.Labels) {
		t.Error("mcpwasm's Service would route to Redis, or Redis's to mcpwasm")
	}
	c := dep.Spec.Template.Spec.Containers[0]
	named := false
	for _, p := range c.Ports {
		named = named || (p.Name == svc.Spec.Ports[0].TargetPort.StrVal && p.ContainerPort == 6379)
	}
	if !named {
		t.Errorf("the Service targets %q, not Redis's container port 6379", svc.Spec.Ports[0].TargetPort.String())
	}
	if !strings.Contains(strings.Join(c.Args, " "), "--maxmemory-policy noeviction") {
		t.Error("Redis may evict live tasks: want --maxmemory-policy noeviction")
	}
	if c.Resources.Limits.Memory().IsZero() {
		t.Error("Redis has no memory limit")
	}

	// Only mcpwasm's pods may reach Redis.
	if !selects(policy.Spec.PodSelector.MatchLabels, redisPod) {
		t.Error("the NetworkPolicy does not apply to the Redis pod")
	}
	if len(policy.Spec.Ingress) != 1 || len(policy.Spec.Ingress[0].From) != 1 ||
		policy.Spec.Ingress[0].From[0].PodSelector == nil ||
		!selects(policy.Spec.Ingress[0].From[0].PodSelector.MatchLabels, m.deployment.Spec.Template.Labels) ||
		selects(policy.Spec.Ingress[0].From[0].PodSelector.MatchLabels, redisPod) {
		t.Errorf("the NetworkPolicy must admit mcpwasm's pods only: %+v", policy.Spec.Ingress)
	}
}
