package check

import (
	"bytes"
	"debug/buildinfo"
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpwasm/mcpwasm/host/config"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"
)

const dir = ".."

// kustomization is the part of kustomize's Kustomization these manifests
// use; strict decoding refuses any other field, so a typo cannot pass.
type kustomization struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Labels     []struct {
		Pairs            map[string]string `json:"pairs"`
		IncludeSelectors bool              `json:"includeSelectors"`
	} `json:"labels"`
	Resources       []string `json:"resources"`
	Components      []string `json:"components"` // redis, optional (redis_test.go)
	SecretGenerator []struct {
		Name    string   `json:"name"`
		Files   []string `json:"files"`
		Options struct {
			DisableNameSuffixHash bool `json:"disableNameSuffixHash"`
		} `json:"options"`
	} `json:"secretGenerator"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

// manifests holds every object of the kustomization, decoded strictly.
type manifests struct {
	kust       kustomization
	deployment *appsv1.Deployment
	service    *corev1.Service
	config     *corev1.ConfigMap
	hpa        *autoscalingv2.HorizontalPodAutoscaler
	pdb        *policyv1.PodDisruptionBudget
}

func load(t *testing.T) *manifests {
	t.Helper()
	m := &manifests{}
	strict(t, "kustomization.yaml", readFile(t, "kustomization.yaml"), &m.kust)
	if m.kust.Kind != "Kustomization" || m.kust.APIVersion != "kustomize.config.k8s.io/v1beta1" {
		t.Fatalf("kustomization.yaml: %s %s", m.kust.APIVersion, m.kust.Kind)
	}
	m.deployment, m.service, m.config = &appsv1.Deployment{}, &corev1.Service{}, &corev1.ConfigMap{}
	m.hpa, m.pdb = &autoscalingv2.HorizontalPodAutoscaler{}, &policyv1.PodDisruptionBudget{}
	decodeKinds(t, "", m.kust.Resources, map[string]any{
		"apps/v1 Deployment":                     m.deployment,
		"v1 Service":                             m.service,
		"v1 ConfigMap":                           m.config,
		"autoscaling/v2 HorizontalPodAutoscaler": m.hpa,
		"policy/v1 PodDisruptionBudget":          m.pdb,
	})
	return m
}

// decodeKinds decodes strictly every document of the resource files
// (folder+name) into the object of its kind ("apiVersion Kind") in into,
// and fails on a kind into does not name, on a kind found twice, and on
// one not found.
func decodeKinds(t *testing.T, folder string, resources []string, into map[string]any) {
	t.Helper()
	seen := map[string]string{}
	for _, res := range resources {
		for i, doc := range bytes.Split(readFile(t, folder+res), []byte("\n---\n")) {
			name := fmt.Sprintf("%s%s (document %d)", folder, res, i+1)
			var meta struct {
				APIVersion string `json:"apiVersion"`
				Kind       string `json:"kind"`
			}
			if err := yaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			kind := meta.APIVersion + " " + meta.Kind
			obj, ok := into[kind]
			if !ok {
				t.Fatalf("%s: %s is not one of the kinds this check knows", name, kind)
			}
			if seen[kind] != "" {
				t.Fatalf("%s: a second %s (the first is %s)", name, kind, seen[kind])
			}
			seen[kind] = name
			strict(t, name, doc, obj)
		}
	}
	for kind := range into {
		if seen[kind] == "" {
			t.Fatalf("%s lacks a %s", strings.Join(resources, ", "), kind)
		}
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func strict(t *testing.T, name string, doc []byte, into any) {
	t.Helper()
	if err := yaml.UnmarshalStrict(doc, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestStrictDecoding: a misspelled field is caught (so the decoding that
// passes below means something).
func TestStrictDecoding(t *testing.T) {
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict([]byte("apiVersion: apps/v1\nkind: Deployment\nspec:\n  replica: 3\n"), &d); err == nil {
		t.Fatal("a misspelled field decoded")
	}
	load(t)
}

// TestWiring: the objects select each other and the pod is configured the
// way mcpwasm needs.
func TestWiring(t *testing.T) {
	m := load(t)
	pod := m.deployment.Spec.Template
	labels := pod.Labels
	matches := func(what string, sel map[string]string) {
		if len(sel) == 0 {
			t.Errorf("%s selects nothing", what)
		}
		for k, v := range sel {
			if labels[k] != v {
				t.Errorf("%s selects %s=%s, which the pod lacks (%v)", what, k, v, labels)
			}
		}
	}
	matches("the Deployment", m.deployment.Spec.Selector.MatchLabels)
	matches("the Service", m.service.Spec.Selector)
	matches("the PodDisruptionBudget", m.pdb.Spec.Selector.MatchLabels)
	if ref := m.hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != m.deployment.Name {
		t.Errorf("the HPA scales %s %s", ref.Kind, ref.Name)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, p := range m.service.Spec.Ports {
		if _, ok := ports[p.TargetPort.StrVal]; !ok {
			t.Errorf("the Service targets port %q, which the container does not name", p.TargetPort.String())
		}
	}
	probe := func(what string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path {
			t.Errorf("%s probe: want GET %s, got %+v", what, path, p)
			return
		}
		if _, ok := ports[p.HTTPGet.Port.StrVal]; !ok {
			t.Errorf("%s probe port %q is not a container port", what, p.HTTPGet.Port.String())
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")

	sc, psc := c.SecurityContext, pod.Spec.SecurityContext
	switch {
	case sc == nil || psc == nil:
		t.Fatal("no securityContext")
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Error("the root filesystem is writable")
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Error("privilege escalation is allowed")
	case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0:
		t.Errorf("capabilities: %+v, want all dropped", sc.Capabilities)
	case psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0:
		t.Error("the pod may run as root")
	}
	if sa := pod.Spec.AutomountServiceAccountToken; sa == nil || *sa {
		t.Error("the service account token is mounted; mcpwasm never talks to the API server")
	}
}

// TestConfigAndMounts: the ConfigMap's mcpwasm.toml parses with mcpwasm's
// own parser; the files it names are on the volumes that hold them; the
// memory limit covers the budget; the grace period covers the drain.
func TestConfigAndMounts(t *testing.T) {
	m := load(t)
	toml, ok := m.config.Data["mcpwasm.toml"]
	if !ok {
		t.Fatal("the ConfigMap has no mcpwasm.toml")
	}
	cfg, err := config.Parse([]byte(toml))
	if err != nil {
		t.Fatalf("configmap.yaml mcpwasm.toml: %v", err)
	}
	pod := m.deployment.Spec.Template.Spec
	c := pod.Containers[0]
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	// mountOf returns the volume holding path.
	mountOf := func(path string) (corev1.VolumeMount, corev1.Volume) {
		var best corev1.VolumeMount
		for _, vm := range c.VolumeMounts {
			if strings.HasPrefix(path, vm.MountPath+"/") && len(vm.MountPath) > len(best.MountPath) {
				best = vm
			}
		}
		if best.Name == "" {
			t.Fatalf("%s is on no volume", path)
		}
		v, ok := volumes[best.Name]
		if !ok {
			t.Fatalf("volume %q is mounted but not declared", best.Name)
		}
		return best, v
	}
	if !strings.Contains(strings.Join(c.Args, " "), "--config /etc/mcpwasm/mcpwasm.toml") {
		t.Errorf("args %q do not read the ConfigMap's file", c.Args)
	}
	if _, v := mountOf("/etc/mcpwasm/mcpwasm.toml"); v.ConfigMap == nil || v.ConfigMap.Name != m.config.Name {
		t.Errorf("/etc/mcpwasm is not the ConfigMap %s", m.config.Name)
	}
	if len(m.kust.SecretGenerator) != 1 {
		t.Fatalf("want one secretGenerator, got %d", len(m.kust.SecretGenerator))
	}
	gen := m.kust.SecretGenerator[0]
	for _, p := range []string{cfg.Server.StateKeyFile, cfg.Server.Auth.TokensFile} {
		if p == "" {
			t.Fatal("the config sets no state_key_file or tokens_file")
		}
		vm, v := mountOf(p)
		if v.Secret == nil || v.Secret.SecretName != gen.Name || !vm.ReadOnly {
			t.Errorf("%s is not on the read-only Secret %s", p, gen.Name)
		}
		if !contains(gen.Files, filepath.Base(p)) {
			t.Errorf("the secretGenerator has no file %s", filepath.Base(p))
		}
	}
	if vm, v := mountOf(cfg.Server.CacheDir + "/x"); v.EmptyDir == nil || vm.ReadOnly {
		t.Errorf("the cache_dir %s is not on a writable emptyDir", cfg.Server.CacheDir)
	}
	if !cfg.Server.Stateless {
		t.Error("replicas without affinity need stateless = true")
	}

	budget := flagValue(t, c.Args, "--memory-budget")
	b, err := config.ParseSize(budget)
	if err != nil {
		t.Fatal(err)
	}
	limit, request := c.Resources.Limits[corev1.ResourceMemory], c.Resources.Requests[corev1.ResourceMemory]
	if headroom := resource.MustParse("256Mi"); limit.Value() < int64(b)+headroom.Value() {
		t.Errorf("memory limit %s does not cover the %s budget plus %s", limit.String(), budget, headroom.String())
	}
	if request.Cmp(limit) != 0 {
		t.Errorf("memory request %s differs from the limit %s: a node could overcommit guest memory", request.String(), limit.String())
	}
	if _, ok := c.Resources.Requests[corev1.ResourceCPU]; !ok {
		t.Error("no CPU request: the HPA's utilization target needs one")
	}

	longest := cfg.Defaults.Timeout.Duration
	for _, p := range cfg.Plugins {
		longest = max(longest, p.Timeout.Duration)
	}
	var preStop time.Duration
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
		t.Error("no preStop sleep: the endpoint would still get requests after SIGTERM")
	} else {
		preStop = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	grace := 30 * time.Second
	if pod.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	}
	if need := preStop + longest + time.Second; grace < need {
		t.Errorf("terminationGracePeriodSeconds %s < preStop %s + longest plugin timeout %s + 1s", grace, preStop, longest)
	}
}

func flagValue(t *testing.T, args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	t.Fatalf("args %q lack %s", args, name)
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestStaticBinary builds the image's binary with the image's script and
// flags, and checks it needs no dynamic loader or shared library, so it
// runs on distroless/static or scratch.
func TestStaticBinary(t *testing.T) {
	out := filepath.Join(t.TempDir(), "mcpwasm")
	cmd := exec.Command(filepath.Join(dir, "..", "..", "scripts", "build-static.sh"), out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build-static.sh: %v\n%s", err, b)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Fatalf("the binary is dynamically linked (%v)", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Fatalf("the binary imports %v", libs)
	}
	if b, err := exec.Command(out, "version").CombinedOutput(); err != nil {
		t.Fatalf("the static binary does not run: %v\n%s", err, b)
	}
	// Keyless signature checking (sigstore-go, ~370 modules) is only in
	// binaries sigstore/build.sh builds; the default one links none of it.
	info, err := buildinfo.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range info.Deps {
		if strings.Contains(m.Path, "sigstore") {
			t.Fatalf("the default binary links %s", m.Path)
		}
	}
}
