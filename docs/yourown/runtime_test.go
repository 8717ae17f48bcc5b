package yourown

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// runtimePages 是 controller-runtime 版的頁面，兩種語言。
//
// runtimePages are the controller-runtime page in both languages.
var runtimePages = map[string]string{
	"en":    "../en/your-own-controller-runtime.md",
	"zh-TW": "../zh-TW/your-own-controller-runtime.md",
}

// 情境：controller-runtime 版的兩種語言頁面給的是同一個程式，就像 client-go 版（TestPagesShareTheCode）。
//
// The story: the controller-runtime page gives the same program in both
// languages, as the client-go page does (TestPagesShareTheCode).
func TestRuntimePagesShareTheCode(t *testing.T) {
	samePrograms(t, runtimePages)
}

// 情境：照著 controller-runtime 版的頁面（兩種語言各一次；quick 組只走英文，見 languages）在 repo 之外的空資料夾裡建立模組：go get、
// controller-gen 當作模組的 tool、寫入型別、reconciler 與 main、go mod tidy（在那之前 go build 照頁面說的失敗）、
// controller-gen 產生 deepcopy、CRD 與角色、go build，再用頁面上的 envtest 測試跑 go test（etcd 與
// kube-apiserver 來自 scripts/build-controlplane.sh --print-dir）。產生的角色有頁面 RBAC 標記要的權限。接著在
// 真正的 API server 上照頁面安裝 CRD、啟動 ./memos、演出 kubectl 情境：每一步之後等頁面預期的下一行；
// Ctrl-C 之後程式印出 stopped、以 0 結束，而它印出的 memo 行正是頁面上的那幾行。最後，頁面說
// USE_EXISTING_CLUSTER=true 會讓同一個測試改用 KUBECONFIG 的叢集：就在這個叢集上跑一次，它通過，而且
// 它的 Memo 沒有留下。
//
// The story: following the controller-runtime page (once per language; the
// quick tier follows English only, see languages) in an empty folder
// outside the repository: go get, controller-gen as a tool
// of the module, the type, the reconciler and main written, go mod tidy
// (before which go build fails as the page says), controller-gen writing
// the deepcopy functions, the CRD and the role, go build, and go test of the
// page's envtest test (etcd and kube-apiserver from
// scripts/build-controlplane.sh --print-dir). The generated role grants what
// the page's RBAC markers ask for. Then, on a real API server, the page's
// CRD is installed, ./memos starts and the kubectl scene is played, waiting
// after each line for the page's next expected line; after Ctrl-C the
// program prints stopped and exits 0, and its memo lines are exactly the
// page's. Last, the page says USE_EXISTING_CLUSTER=true makes the same test
// use the cluster of KUBECONFIG: it runs once on this cluster, passes, and
// leaves no Memo behind.
func TestYourOwnControllerRuntime(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	c := testenv.Plain(t)
	kubeconfig := c.Kubeconfig(t)
	dyn, err := dynamic.NewForConfig(c.Config())
	if err != nil {
		t.Fatal(err)
	}
	for _, lang := range languages(t) {
		t.Run(lang, func(t *testing.T) {
			blocks := parsePage(t, runtimePages[lang])
			began := time.Now()
			m := buildFromPage(t, blocks, "WALKTHROUGH="+root)
			t.Logf("module built and its envtest test passed in %s", time.Since(began).Round(time.Millisecond))
			checkGenerated(t, m)

			ns := c.Namespace(t)
			for _, line := range lines(only(t, blocks, "setup", "").body) {
				kubectlDynamic(t, dyn, m.dir, ns, line)
			}
			var want []string
			for _, line := range lines(only(t, blocks, "expected", "").body) {
				after, ok := strings.CutPrefix(line, "memo default/")
				if !ok {
					t.Fatalf("expected line %q is not about a memo in default", line)
				}
				want = append(want, "memo "+ns+"/"+after)
			}
			p := start(t, m, kubeconfig, m.args...)
			p.out.Wait(t, 1, "counting the words of every Memo (Ctrl-C to stop)")
			scene := lines(only(t, blocks, "scene", "").body)
			if len(scene) != len(want) {
				t.Fatalf("the scene has %d lines and the page expects %d; this test pairs each line with the line it causes", len(scene), len(want))
			}
			for i, line := range scene {
				kubectlDynamic(t, dyn, m.dir, ns, line)
				p.out.Wait(t, 1, want[i])
			}
			p.interrupt(t)
			var got []string
			for _, line := range lines(p.out.String()) {
				if strings.HasPrefix(line, "memo ") {
					got = append(got, line)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("./memos printed:\n%s\nwant the page's lines:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}

			existing := exec.Command("go", "test", "-count=1", "./...")
			existing.Dir = m.dir
			existing.Env = append(goEnv(t, true), "USE_EXISTING_CLUSTER=true", "KUBECONFIG="+kubeconfig)
			if out, err := existing.CombinedOutput(); err != nil {
				t.Fatalf("USE_EXISTING_CLUSTER=true go test ./...: %v\n%s", err, out)
			}
			memos := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "memos"}
			testenv.Poll(t, "the envtest test's Memo default/test deleted", func() bool {
				_, err := dyn.Resource(memos).Namespace("default").Get(t.Context(), "test", metav1.GetOptions{})
				return err != nil
			})
		})
	}
}

// lines 回傳 text 的非空行。 / lines returns the lines of text that are not empty.
func lines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) != "" {
			out = append(out, line)
		}
	}
	return out
}

// checkGenerated 確認 controller-gen 寫出了頁面說的三個檔案，角色也有 RBAC 標記要的權限。
//
// checkGenerated checks that controller-gen wrote the three files the page
// names, and that the role grants what the RBAC markers ask for.
func checkGenerated(t *testing.T, m *module) {
	t.Helper()
	for _, file := range []string{"api/v1/zz_generated.deepcopy.go", "config/crd/example.com_memos.yaml", "config/rbac/role.yaml"} {
		if _, err := os.Stat(filepath.Join(m.dir, file)); err != nil {
			t.Errorf("controller-gen did not write %s: %v", file, err)
		}
	}
	// 頁面說：跟 Kubernetes 一起發行的 k8s.io 模組（版本是 v0.x.y 而不是虛擬版本的那些）全都是 v0.37.2。
	// The page says the k8s.io modules released with Kubernetes (those with a
	// v0.x.y version, not a pseudo-version) are all at v0.37.2.
	mod, err := os.ReadFile(filepath.Join(m.dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	released := regexp.MustCompile(`(?m)^\s+(k8s\.io/\S+) (v0\.\d+\.\d+)\b(\s|$)`)
	found := released.FindAllStringSubmatch(string(mod), -1)
	if len(found) < 5 {
		t.Errorf("go.mod names %d k8s.io modules at a release; want at least client-go, api, apimachinery, apiextensions-apiserver, code-generator:\n%s", len(found), mod)
	}
	for _, f := range found {
		if f[2] != "v0.37.2" {
			t.Errorf("go.mod has %s %s; the page says every k8s.io release module is at v0.37.2", f[1], f[2])
		}
	}

	role, err := os.ReadFile(filepath.Join(m.dir, "config/rbac/role.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct {
		Metadata struct{ Name string }
		Rules    []struct {
			APIGroups []string `json:"apiGroups"`
			Resources []string
			Verbs     []string
		}
	}
	if err := yaml.Unmarshal(role, &parsed); err != nil {
		t.Fatal(err)
	}
	grants := map[string][]string{}
	for _, rule := range parsed.Rules {
		for _, r := range rule.Resources {
			grants[r] = append(grants[r], rule.Verbs...)
		}
	}
	if parsed.Metadata.Name != "memos" {
		t.Errorf("the role is named %q; the page's rbac:roleName says memos", parsed.Metadata.Name)
	}
	for resource, verbs := range map[string][]string{"memos": {"get", "list", "watch"}, "memos/status": {"get", "update", "patch"}} {
		for _, verb := range verbs {
			if !slices.Contains(grants[resource], verb) {
				t.Errorf("config/rbac/role.yaml does not grant %s on %s:\n%s", verb, resource, role)
			}
		}
	}
}

var patchLine = regexp.MustCompile(`^kubectl patch memo (\S+) --type merge -p '(.*)'$`)

// kubectlDynamic 用 dynamic client 做頁面上的一行 kubectl（只認得頁面用到的那幾種）：apply -f 檔案
// （server-side apply）、wait 直到 CRD Established、patch 與 delete 一個 Memo。頁面上沒有寫 namespace 的物件
// 放進 ns。
//
// kubectlDynamic does one kubectl line of the page with a dynamic client
// (only the forms the page uses): apply -f a file (server-side apply), wait
// until a CRD is Established, patch and delete a Memo. Objects the page puts
// in no namespace go into ns.
func kubectlDynamic(t *testing.T, dyn dynamic.Interface, dir, ns, line string) {
	t.Helper()
	ctx := t.Context()
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	memos := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "memos"}
	args := strings.Fields(line)
	var err error
	switch {
	case len(args) == 4 && args[1] == "apply" && args[2] == "-f":
		data, rerr := os.ReadFile(filepath.Join(dir, args[3]))
		if rerr != nil {
			t.Fatalf("%s: %v", line, rerr)
		}
		obj := &unstructured.Unstructured{}
		if err := yaml.Unmarshal(data, &obj.Object); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		opts := metav1.ApplyOptions{FieldManager: "kubectl", Force: true}
		switch obj.GetKind() {
		case "CustomResourceDefinition":
			_, err = dyn.Resource(crds).Apply(ctx, obj.GetName(), obj, opts)
		case "Memo":
			obj.SetNamespace(ns)
			_, err = dyn.Resource(memos).Namespace(ns).Apply(ctx, obj.GetName(), obj, opts)
		default:
			t.Fatalf("%s: this test does not know how to apply a %s", line, obj.GetKind())
		}
	case len(args) == 5 && args[1] == "wait" && args[2] == "--for" && args[3] == "condition=Established" && strings.HasPrefix(args[4], "crd/"):
		testenv.Poll(t, line, func() bool {
			crd, err := dyn.Resource(crds).Get(ctx, strings.TrimPrefix(args[4], "crd/"), metav1.GetOptions{})
			if err != nil {
				return false
			}
			conditions, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
			for _, c := range conditions {
				if c, ok := c.(map[string]any); ok && c["type"] == "Established" && c["status"] == "True" {
					return true
				}
			}
			return false
		})
	case patchLine.MatchString(line):
		m := patchLine.FindStringSubmatch(line)
		_, err = dyn.Resource(memos).Namespace(ns).Patch(ctx, m[1], types.MergePatchType, []byte(m[2]), metav1.PatchOptions{})
	case len(args) == 4 && args[1] == "delete" && args[2] == "memo":
		err = dyn.Resource(memos).Namespace(ns).Delete(ctx, args[3], metav1.DeleteOptions{})
	default:
		t.Fatalf("scene line %q: this test does not know how to do that", line)
	}
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
}
