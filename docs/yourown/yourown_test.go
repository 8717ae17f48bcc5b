// Package yourown 只有測試：它照 docs/en 與 docs/zh-TW 的 your-own-controller.md 一步一步做，
// 在 repo 之外的空資料夾裡建立模組、寫入頁面上的檔案、執行頁面上的指令、建置，再讓程式連到真正的
// API server，比對它印出的每一行。頁面上的程式碼或指令一旦不能用，這個測試就失敗。
//
// Package yourown is tests only: it follows docs/en and docs/zh-TW
// your-own-controller.md step by step, making a module in an empty folder
// outside the repository, writing the page's files, running the page's
// commands, building, and then running the program against a real API server
// and checking every line it prints. When the page's code or commands stop
// working, this test fails.
package yourown

import (
	"bytes"
	"context"
	"fmt"
	"go/format"
	"go/scanner"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// pages 是兩種語言的頁面；它們的程式碼除了註解之外必須一模一樣。
//
// pages are the page in both languages; their code must be identical apart
// from the comments.
var pages = map[string]string{
	"en":    "../en/your-own-controller.md",
	"zh-TW": "../zh-TW/your-own-controller.md",
}

// languages 是要照著走一次的頁面語言。兩種語言的程式、指令與預期輸出一字不差（TestPagesShareTheCode 與
// TestRuntimePagesShareTheCode 守著），所以 quick 組（go test -short）只照英文的頁面做一遍；full 組兩種都做，
// 各自從頭建一次模組，各多花 20 多秒。
//
// languages are the page languages to follow. Both give the same code,
// commands and expected output to the letter (TestPagesShareTheCode and
// TestRuntimePagesShareTheCode hold that), so the quick tier (go test -short)
// follows the English one only; the full tier follows both, building the
// module from scratch for each, some 20 s more each.
func languages(t *testing.T) []string {
	if testing.Short() {
		t.Log("-short: following the English page only; the zh-TW page gives the same code (TestPagesShareTheCode, TestRuntimePagesShareTheCode), and the full tier follows it too")
		return []string{"en"}
	}
	return []string{"en", "zh-TW"}
}

// block 是頁面上一個有標記的區塊：HTML 註解裡的種類與參數（例如 file 與 main.go），
// 以及緊接在後的程式碼區塊或表格的內容。
//
// block is one marked block of the page: the kind and argument in the HTML
// comment before it (file and main.go, say), and the content of the fenced
// code block or table right after that comment.
type block struct {
	kind, arg, body string
}

var (
	markerLine = regexp.MustCompile(`^<!-- (file|shell|setup|run|scene|expected|check)(?:: (\S+))? -->$`)
	fenceLine  = regexp.MustCompile("^```")
)

// parsePage 依序取出頁面上所有有標記的區塊。頁面上的每個程式碼區塊都必須有標記：
// 沒有被測試用到的程式碼，就沒有東西擋住它跟現實脫節。
//
// parsePage returns the page's marked blocks in order. Every fenced code
// block on the page must be marked: code the test does not use has nothing
// to stop it drifting from what works.
func parsePage(t *testing.T, file string) []block {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var blocks []block
	for i := 0; i < len(lines); i++ {
		if fenceLine.MatchString(lines[i]) {
			t.Fatalf("%s:%d: a code block without a marker such as <!-- file: main.go --> on the line before it", file, i+1)
		}
		m := markerLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := block{kind: m[1], arg: m[2]}
		i++
		var body []string
		switch {
		case i < len(lines) && fenceLine.MatchString(lines[i]):
			for i++; i < len(lines) && lines[i] != "```"; i++ {
				body = append(body, lines[i])
			}
			if i == len(lines) {
				t.Fatalf("%s: the code block after %s never closes", file, m[0])
			}
		case i < len(lines) && strings.HasPrefix(lines[i], "|"):
			for ; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
				body = append(body, lines[i])
			}
		default:
			t.Fatalf("%s:%d: %s is not followed by a code block or a table", file, i, m[0])
		}
		b.body = strings.Join(body, "\n") + "\n"
		blocks = append(blocks, b)
	}
	return blocks
}

// only 回傳唯一一個某種類（與參數）的區塊；不是剛好一個就讓測試失敗。
//
// only returns the one block of a kind (and argument); anything but exactly
// one fails the test.
func only(t *testing.T, blocks []block, kind, arg string) block {
	t.Helper()
	var found []block
	for _, b := range blocks {
		if b.kind == kind && b.arg == arg {
			found = append(found, b)
		}
	}
	if len(found) != 1 {
		t.Fatalf("want exactly one <!-- %s %s --> block, found %d", kind, arg, len(found))
	}
	return found[0]
}

// goTokens 把 Go 原始碼變成不含註解的 token 序列，用來比較兩種語言的程式碼。
//
// goTokens turns Go source into its tokens without comments, to compare the
// two languages' code.
func goTokens(src string) []string {
	fset := token.NewFileSet()
	var s scanner.Scanner
	s.Init(fset.AddFile("", fset.Base(), len(src)), []byte(src), nil, 0)
	var toks []string
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return toks
		}
		toks = append(toks, tok.String()+" "+lit)
	}
}

// 情境：兩種語言的頁面給的是同一個程式。Go 檔除了註解之外逐 token 相同，而且已經照 gofmt 排好；
// 指令、預期輸出、名稱表與 import 一字不差。
//
// The story: both languages give the same program. The Go files are token
// for token the same apart from comments, and already gofmt'ed; the
// commands, the expected output, the table of names and the imports are the
// same to the letter.
func TestPagesShareTheCode(t *testing.T) {
	samePrograms(t, pages)
}

// samePrograms 是 TestPagesShareTheCode 的檢查，給一對頁面用；Go 以外的檔案（例如 YAML）要一字不差。
//
// samePrograms is TestPagesShareTheCode's check, for one pair of pages;
// files other than Go (YAML, say) must be the same to the letter.
func samePrograms(t *testing.T, pages map[string]string) {
	t.Helper()
	en, zh := parsePage(t, pages["en"]), parsePage(t, pages["zh-TW"])
	if len(en) != len(zh) {
		t.Fatalf("en has %d marked blocks, zh-TW has %d", len(en), len(zh))
	}
	for i := range en {
		a, b := en[i], zh[i]
		if a.kind != b.kind || a.arg != b.arg {
			t.Errorf("marked block %d: en has <!-- %s %s -->, zh-TW has <!-- %s %s -->", i+1, a.kind, a.arg, b.kind, b.arg)
			continue
		}
		switch {
		case a.kind == "file" && strings.HasSuffix(a.arg, ".go"):
			for lang, body := range map[string]string{"en": a.body, "zh-TW": b.body} {
				if formatted, err := format.Source([]byte(body)); err != nil || !bytes.Equal(formatted, []byte(body)) {
					t.Errorf("%s: %s is not gofmt'ed (or does not parse: %v)", lang, a.arg, err)
				}
			}
			if !slices.Equal(goTokens(a.body), goTokens(b.body)) {
				t.Errorf("%s differs between en and zh-TW in more than its comments", a.arg)
			}
		case a.arg == "names":
			// 表格的第一欄是說明文字，其餘每一格都要相同。 / The first column is prose; every other cell must match.
			if fmt.Sprint(codeCells(a.body)) != fmt.Sprint(codeCells(b.body)) {
				t.Errorf("the table of names differs between en and zh-TW:\n%s\n%s", a.body, b.body)
			}
		default:
			if a.body != b.body {
				t.Errorf("<!-- %s %s --> differs between en and zh-TW:\n--- en\n%s--- zh-TW\n%s", a.kind, a.arg, a.body, b.body)
			}
		}
	}
}

// codeCells 回傳表格每一列除了第一欄之外的儲存格，表頭與分隔列除外。
//
// codeCells returns every cell of the table but the first column, leaving
// out the header and separator rows.
func codeCells(table string) [][]string {
	var rows [][]string
	for i, line := range strings.Split(strings.TrimSpace(table), "\n") {
		if i < 2 {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells[1:])
	}
	return rows
}

// module 是照頁面建好的模組：資料夾，以及頁面「執行」那一節啟動的程式與引數。
//
// module is the module built by following the page: its folder, and the
// program and arguments that the page's run block starts.
type module struct {
	dir  string
	bin  string
	args []string
}

var (
	modCacheOnce sync.Once
	modCache     string
	modCacheErr  error
)

// goEnv 是執行頁面指令的環境。cache 為 true 時，模組只從本機的模組快取取得
// （GOPROXY=file://$GOMODCACHE/cache/download，離線也能跑、比較快）；這些模組進入快取時
// 已經驗證過 checksum，所以關掉 GOSUMDB，不再連線查詢。cache 為 false 時用環境原本的
// GOPROXY 與 GOSUMDB，也就是學習者會用的網路設定。兩者都是 -mod=readonly，跟學習者的
// 預設一樣，所以少了 go mod tidy 時 go build 會照頁面說的那樣失敗。GOFLAGS 與 CGO_ENABLED 也回到 Go 的預設
// （scripts/test.sh 的 full 組設了 -trimpath 與 CGO_ENABLED=0）：學習者的建置跟控制平面的共用編譯好的套件，這裡也一樣。
//
// goEnv is the environment for the page's commands. With cache true,
// modules come only from the local module cache
// (GOPROXY=file://$GOMODCACHE/cache/download: offline, and faster); they had
// their checksums verified when they entered the cache, so GOSUMDB is off and
// nothing is looked up online. With cache false it keeps the environment's
// GOPROXY and GOSUMDB, the network settings a learner has. Both use
// -mod=readonly, a learner's default, so that without go mod tidy go build
// fails as the page says. GOFLAGS and CGO_ENABLED go back to Go's defaults
// too (the full tier of scripts/test.sh sets -trimpath and CGO_ENABLED=0): a
// learner's builds share compiled packages with the control plane's, and so
// do these.
func goEnv(t *testing.T, cache bool) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GOFLAGS", "GOWORK", "KUBECONFIG", "CGO_ENABLED":
			continue
		case "GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOPROXY", "GOPRIVATE":
			if cache {
				continue
			}
		}
		env = append(env, kv)
	}
	env = append(env, "GOFLAGS=-mod=readonly", "GOWORK=off")
	if cache {
		modCacheOnce.Do(func() {
			out, err := exec.Command("go", "env", "GOMODCACHE").Output()
			modCache, modCacheErr = strings.TrimSpace(string(out)), err
		})
		if modCacheErr != nil || modCache == "" {
			t.Fatalf("go env GOMODCACHE: %v", modCacheErr)
		}
		env = append(env, "GOPROXY=file://"+filepath.ToSlash(filepath.Join(modCache, "cache", "download")), "GOSUMDB=off")
	}
	return env
}

// follow 在 root 裡照頁面做：依序執行 shell 區塊（用 bash，記下它最後所在的資料夾）、
// 把 file 區塊寫進當時的資料夾，最後找出 run 區塊要啟動的程式。
//
// follow does what the page says, in root: it runs the shell blocks in order
// (with bash, keeping the folder each one ends in), writes the file blocks
// into the folder of the moment, and finds the program the run block starts.
func follow(t *testing.T, blocks []block, root string, env []string) (*module, error) {
	t.Helper()
	cwd := root
	m := &module{}
	pwdFile := filepath.Join(t.TempDir(), "pwd")
	for _, b := range blocks {
		switch b.kind {
		case "shell":
			if strings.Contains(b.body, "go mod tidy") {
				if err := buildFailsUntidy(cwd, env); err != nil {
					return nil, err
				}
			}
			script := "set -o errexit -o nounset -o pipefail\n" + b.body + "pwd >\"$YOUROWN_PWD\"\n"
			cmd := exec.Command("bash", "-c", script)
			cmd.Dir, cmd.Env = cwd, append(env, "YOUROWN_PWD="+pwdFile)
			began := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				return nil, fmt.Errorf("the page's commands failed in %s: %v\n%s\n%s", cwd, err, b.body, out)
			}
			t.Logf("ran in %s:\n%s%s", time.Since(began).Round(time.Millisecond), b.body, out)
			pwd, err := os.ReadFile(pwdFile)
			if err != nil {
				return nil, err
			}
			cwd = strings.TrimSpace(string(pwd))
		case "file":
			path := filepath.Join(cwd, b.arg)
			if _, err := os.Stat(path); err == nil {
				t.Fatalf("the page writes %s twice", b.arg)
			}
			if err := os.WriteFile(path, []byte(b.body), 0o644); err != nil {
				t.Fatal(err)
			}
		case "run":
			fields := strings.Fields(b.body)
			if len(fields) == 0 || strings.Count(b.body, "\n") != 1 || !strings.HasPrefix(fields[0], "./") {
				t.Fatalf("the run block should be one line starting the built program (./name ...), got:\n%s", b.body)
			}
			m.dir, m.bin, m.args = cwd, filepath.Join(cwd, fields[0]), fields[1:]
		}
	}
	if m.bin == "" {
		t.Fatal("the page has no <!-- run --> block")
	}
	if _, err := os.Stat(m.bin); err != nil {
		return nil, fmt.Errorf("the page's commands did not build %s: %v", m.bin, err)
	}
	return m, nil
}

// missingSum 是頁面說少了 go mod tidy 時 go build 會停下來的錯誤。
//
// missingSum is the error the page says go build stops at without go mod
// tidy.
const missingSum = "missing go.sum entry for module providing package"

// buildFailsUntidy 確認頁面說的事：go get 之後、go mod tidy 之前，go build 會因為缺少
// go.sum 的紀錄而失敗。
//
// buildFailsUntidy checks what the page says: after go get and before go mod
// tidy, go build fails for want of go.sum entries.
func buildFailsUntidy(dir string, env []string) error {
	cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	if err == nil || !bytes.Contains(out, []byte(missingSum)) {
		return fmt.Errorf("before go mod tidy, go build should fail with %q; got %v:\n%s", missingSum, err, out)
	}
	return nil
}

// buildFromPage 在 repo 之外的暫存資料夾裡照頁面建好模組，先只用本機模組快取，
// 快取給不出某個模組時再改用網路重來一次。extraEnv 是頁面的指令另外需要的環境變數。
//
// buildFromPage follows the page in a temporary folder outside the
// repository, from the local module cache first, and again over the network
// only if the cache cannot serve some module. extraEnv is what else the
// page's commands need in their environment.
func buildFromPage(t *testing.T, blocks []block, extraEnv ...string) *module {
	t.Helper()
	m, err := follow(t, blocks, t.TempDir(), append(goEnv(t, true), extraEnv...))
	if err == nil {
		return m
	}
	t.Logf("from the module cache alone: %v\nnow again with the environment's GOPROXY", err)
	m, err = follow(t, blocks, t.TempDir(), append(goEnv(t, false), extraEnv...))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkNames 確認名稱表裡的每個名稱都存在，而且彼此搭得起來：每一欄的工廠方法回傳那一列寫的型別，
// 它的 Lister()、處理函式、DeleteFunc 拿到的型別與物件型別也都吻合。做法是把表格變成一個 Go 檔，
// 用頁面上的 import，放進模組裡跑 go vet（頁面上的程式碼也一起檢查）。
//
// checkNames checks that every name in the table exists and that the names
// fit together: each column's factory method returns the type in the row
// below, and its Lister(), handlers, what DeleteFunc gets and the object
// type agree. It turns the table into a Go file with the page's imports,
// puts it in the module and runs go vet (which checks the page's code too).
func checkNames(t *testing.T, m *module, blocks []block) {
	t.Helper()
	rows := codeCells(only(t, blocks, "check", "names").body)
	if len(rows) != 6 {
		t.Fatalf("the table of names has %d rows; this check knows 6 (factory, informer, handlers, deleted, lister, object)", len(rows))
	}
	var src strings.Builder
	fmt.Fprintf(&src, "package main\n\n%s\nfunc _(factory informers.SharedInformerFactory) {\n", only(t, blocks, "check", "imports").body)
	for col := range rows[0] {
		cell := func(row int) string {
			c := rows[row][col]
			if len(c) < 3 || c[0] != '`' || c[len(c)-1] != '`' {
				t.Fatalf("table cell %q is not one piece of inline code", c)
			}
			return c[1 : len(c)-1]
		}
		fmt.Fprintf(&src, `	{
		var informer %s = %s
		var lister %s = informer.Lister()
		_, _ = informer.TypedInformer().AddTypedEventHandler(%s{
			DeleteFunc: func(d %s) {
				var obj %s = d.OptionalObj
				_ = obj
			},
		})
		_ = lister
	}
`, cell(1), cell(0), cell(4), cell(2), cell(3), cell(5))
	}
	src.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(m.dir, "zz_names_check.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "vet", ".")
	cmd.Dir, cmd.Env = m.dir, goEnv(t, true)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet with the table of names turned into code: %v\n%s\n%s", err, out, src.String())
	}
}

// program 是正在執行的 cmcount：stdout 與 stderr 分開收，client-go 寫到 stderr 的 log
// 就不會插進要比對的行裡。
//
// program is a running cmcount: stdout and stderr are collected apart, so
// the logs client-go writes to stderr never get between the lines compared.
type program struct {
	cmd         *exec.Cmd
	out, stderr *testenv.Output
	// exited 在程式結束時關閉，之後 err 是 Wait 的結果。 / exited is closed when the program ends; err is then Wait's result.
	exited chan struct{}
	err    error
}

// start 用 kubeconfig 啟動程式，就像學習者設好 KUBECONFIG 之後執行它。
//
// start runs the program with kubeconfig, as a learner runs it with
// KUBECONFIG set.
func start(t *testing.T, m *module, kubeconfig string, args ...string) *program {
	t.Helper()
	p := &program{out: &testenv.Output{}, stderr: &testenv.Output{}, exited: make(chan struct{})}
	p.cmd = exec.Command(m.bin, args...)
	p.cmd.Env = append(goEnv(t, true), "KUBECONFIG="+kubeconfig)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// interrupt 送出 SIGINT（就像按下 Ctrl-C），確認程式印出 stopped 並以結束碼 0 結束。
//
// interrupt sends SIGINT (as Ctrl-C does) and checks that the program prints
// stopped and exits 0.
func (p *program) interrupt(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
		if p.err != nil {
			t.Fatalf("after Ctrl-C: %v; want exit 0\n%s\nstderr:\n%s", p.err, p.out.String(), p.stderr.String())
		}
	case <-time.After(testenv.WaitTimeout):
		t.Fatalf("still running %s after Ctrl-C\n%s", testenv.WaitTimeout, p.out.String())
	}
	if lines := strings.Split(strings.TrimSpace(p.out.String()), "\n"); lines[len(lines)-1] != "stopped" {
		t.Errorf("the last line after Ctrl-C is %q, want \"stopped\"\n%s", lines[len(lines)-1], p.out.String())
	}
}

// countLines 回傳程式為 namespace 印出的計數行，依序。
//
// countLines returns the count lines the program printed for namespace, in
// order.
func (p *program) countLines(namespace string) []string {
	var got []string
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.HasPrefix(line, namespace+": ") {
			got = append(got, line)
		}
	}
	return got
}

// freeNamespace 回傳一個以 base 開頭、叢集裡還沒有的 namespace 名稱（go test -count=N
// 的前一次可能還在刪除同名的 namespace）。
//
// freeNamespace returns a namespace name starting with base that the cluster
// does not have yet (with go test -count=N, the run before may still be
// deleting one of the same name).
func freeNamespace(t *testing.T, cs kubernetes.Interface, base string) string {
	t.Helper()
	for i := 1; i < 100; i++ {
		name := fmt.Sprintf("%s-%d", base, i)
		_, err := cs.CoreV1().Namespaces().Get(t.Context(), name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return name
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("no free namespace name starting with %s", base)
	return ""
}

// kubectl 用 client-go 做頁面情境裡的一行 kubectl 指令（只認得頁面用到的那幾種），
// 並回報這個指令會不會改變 ConfigMap 的數量。namespaces 把頁面上的名稱換成測試用的名稱。
//
// kubectl does one kubectl line of the page's scene with client-go (only the
// forms the page uses) and says whether it changes a number of ConfigMaps.
// namespaces maps the page's names to the test's.
func kubectl(t *testing.T, cs kubernetes.Interface, line string, namespaces map[string]string) (countChanges bool) {
	t.Helper()
	args := strings.Fields(line)
	if len(args) < 4 || args[0] != "kubectl" {
		t.Fatalf("scene line %q: want kubectl VERB KIND NAME [-n NAMESPACE] [KEY=VALUE]", line)
	}
	var name, ns, label string
	for i := 3; i < len(args); i++ {
		switch {
		case args[i] == "-n" && i+1 < len(args):
			ns = namespaces[args[i+1]]
			i++
		case name == "":
			name = args[i]
		default:
			label = args[i]
		}
	}
	ctx := t.Context()
	var err error
	switch verb, kind := args[1], args[2]; {
	case verb == "create" && kind == "namespace":
		_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespaces[name]}}, metav1.CreateOptions{})
		t.Cleanup(func() {
			_ = cs.CoreV1().Namespaces().Delete(context.Background(), namespaces[name], metav1.DeleteOptions{})
		})
		// kube-controller-manager 在每個新的 namespace 裡放一個 kube-root-ca.crt。
		// kube-controller-manager puts a kube-root-ca.crt in every new namespace.
		countChanges = true
	case verb == "delete" && kind == "namespace":
		err = cs.CoreV1().Namespaces().Delete(ctx, namespaces[name], metav1.DeleteOptions{})
		countChanges = true
	case verb == "create" && kind == "configmap" && ns != "":
		_, err = cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		countChanges = true
	case verb == "delete" && kind == "configmap" && ns != "":
		err = cs.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{})
		countChanges = true
	case verb == "label" && kind == "configmap" && ns != "" && strings.Contains(label, "="):
		key, value, _ := strings.Cut(label, "=")
		patch := fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, key, value)
		_, err = cs.CoreV1().ConfigMaps(ns).Patch(ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	default:
		t.Fatalf("scene line %q: this test does not know how to do that", line)
	}
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return countChanges
}

// 情境：照著頁面（兩種語言各一次；quick 組只走英文，見 languages）在 repo 之外的空資料夾裡 go mod init、go get、
// 寫入 main.go 與 count.go、go mod tidy、go build；名稱表轉成程式碼之後通過 go vet。接著有三段：
//   - 在擬真叢集上（跟 scripts/cluster-up.sh 的一樣有 kube-controller-manager）執行 ./cmcount -A，
//     照頁面的 kubectl 情境一行一行做：建立 namespace、建立兩個 ConfigMap、加標籤、刪除一個、
//     刪除 namespace，每次數量改變之後等頁面預期的下一行出現。按下 Ctrl-C，程式印出 stopped、
//     以 0 結束，而它為這個 namespace 印出的行正是頁面上的那幾行（刪除 namespace 那一步可以拆成兩行，
//     頁面也這麼說）。
//   - 不加 -A，kubeconfig 的 context 指定另一個 namespace：只出現那個 namespace 的行。
//   - API server 停機期間刪除一個 ConfigMap：刪除以墓碑的形式到達，計數仍然正確（見 tombstone）。
//
// The story: following the page (once per language; the quick tier follows
// English only, see languages) in an empty folder outside the repository:
// go mod init, go get, write main.go and count.go,
// go mod tidy, go build; the table of names, turned into code, passes go vet.
// Then three parts:
//   - On the realistic cluster (with kube-controller-manager, like
//     scripts/cluster-up.sh's), ./cmcount -A runs while the page's kubectl
//     scene is played line by line: create a namespace, create two
//     ConfigMaps, label one, delete one, delete the namespace, waiting after
//     each change of a count for the page's next expected line. Ctrl-C: the
//     program prints stopped and exits 0, and its lines for that namespace
//     are exactly the page's (the namespace delete may come as two lines, as
//     the page says).
//   - Without -A, with the kubeconfig's context set to another namespace:
//     only that namespace's lines appear.
//   - A ConfigMap deleted while the API server is down: the delete arrives as
//     a tombstone and the count is still right (see tombstone).
func TestYourOwnController(t *testing.T) {
	for _, lang := range languages(t) {
		t.Run(lang, func(t *testing.T) {
			blocks := parsePage(t, pages[lang])
			began := time.Now()
			m := buildFromPage(t, blocks)
			checkNames(t, m, blocks)
			t.Logf("module built from the page in %s", time.Since(began).Round(time.Millisecond))

			c := testenv.Realistic(t)
			kubeconfig := c.Kubeconfig(t)
			t.Run("all namespaces", func(t *testing.T) {
				playScene(t, c, m, kubeconfig, blocks, strings.ToLower(lang))
			})
			t.Run("the context's namespace", func(t *testing.T) {
				contextNamespace(t, c, m, kubeconfig)
			})
			t.Run("tombstone", func(t *testing.T) {
				tombstone(t, m)
			})
		})
	}
}

// playScene 執行 run 區塊的程式，演出 scene 區塊，再跟 expected 區塊比對。
//
// playScene runs the run block's program, plays the scene block, and
// compares with the expected block.
func playScene(t *testing.T, c *testenv.Cluster, m *module, kubeconfig string, blocks []block, suffix string) {
	cs := c.Client()
	const pageNamespace = "team-a"
	ns := freeNamespace(t, cs, pageNamespace+"-"+suffix)
	namespaces := map[string]string{pageNamespace: ns}
	var want []string
	for _, line := range strings.Split(strings.TrimSpace(only(t, blocks, "expected", "").body), "\n") {
		if !strings.HasPrefix(line, pageNamespace+": ") {
			t.Fatalf("expected line %q is not about %s", line, pageNamespace)
		}
		want = append(want, ns+strings.TrimPrefix(line, pageNamespace))
	}

	p := start(t, m, kubeconfig, m.args...)
	p.out.Wait(t, 1, "synced; counting ConfigMaps per namespace (Ctrl-C to stop)")
	next := 0
	for _, line := range strings.Split(strings.TrimSpace(only(t, blocks, "scene", "").body), "\n") {
		if !kubectl(t, cs, line, namespaces) {
			continue
		}
		if next == len(want) {
			t.Fatalf("%q changes a count, but the page expects no more lines", line)
		}
		// 刪除 namespace 的結果可能拆成兩行（1 (was 2)、0 (was 1)）：只等數量。
		// The namespace delete may come as two lines (1 (was 2), 0 (was 1)): wait for the count only.
		wantLine := want[next]
		if next == len(want)-1 {
			wantLine, _, _ = strings.Cut(wantLine, " (was")
		}
		p.out.Wait(t, 1, wantLine)
		next++
	}
	p.interrupt(t)
	t.Logf("./cmcount %s printed:\n%s", strings.Join(m.args, " "), p.out.String())

	got := p.countLines(ns)
	split := append(slices.Clone(want[:len(want)-1]), ns+": 1 (was 2)", ns+": 0 (was 1)")
	if !slices.Equal(got, want) && !slices.Equal(got, split) {
		t.Errorf("lines for %s:\n%s\nwant the page's:\n%s\n(or the namespace delete split in two)\nwhole output:\n%s",
			ns, strings.Join(got, "\n"), strings.Join(want, "\n"), p.out.String())
	}
}

// contextNamespace 不加 -A 執行程式，kubeconfig 的 context 指定一個 namespace：
// 初始清單與之後的變化都只有那個 namespace 的行。先在 default 建立一個 ConfigMap，再在那個
// namespace 建立一個；只有一個 worker、佇列先進先出，所以等到後者那一行出現時，前者如果被看見，
// 它的行早就印出來了。
//
// contextNamespace runs the program without -A, with the kubeconfig's context
// set to one namespace: the initial list and later changes print lines for
// that namespace only. A ConfigMap is created in default first, then one in
// that namespace; with one worker and a first-in-first-out queue, by the time
// the latter's line appears the former's would already be printed, had the
// program seen it.
func contextNamespace(t *testing.T, c *testenv.Cluster, m *module, kubeconfig string) {
	cs := c.Client()
	ns := c.Namespace(t)
	ctx := t.Context()
	// 等 kube-controller-manager 放好 kube-root-ca.crt，初始的數量才固定是 1。
	// Wait for kube-controller-manager's kube-root-ca.crt, so the initial count is 1 for sure.
	testenv.Poll(t, "kube-root-ca.crt in "+ns, func() bool {
		_, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil
	})

	cfg, err := clientcmd.LoadFromFile(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Contexts[cfg.CurrentContext].Namespace = ns
	scoped := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, scoped); err != nil {
		t.Fatal(err)
	}

	p := start(t, m, scoped)
	p.out.Wait(t, 1, ns+": 1 (was 0)")
	for _, in := range []string{"default", ns} {
		cm, err := cs.CoreV1().ConfigMaps(in).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "yourown-"}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.CoreV1().ConfigMaps(in).Delete(context.Background(), cm.Name, metav1.DeleteOptions{}) })
	}
	p.out.Wait(t, 1, ns+": 2 (was 1)")
	p.interrupt(t)
	for _, line := range strings.Split(p.out.String(), "\n") {
		if strings.Contains(line, " (was ") && !strings.HasPrefix(line, ns+": ") {
			t.Errorf("without -A the program printed a line for another namespace: %q\n%s", line, p.out.String())
		}
	}
}

// tombstone 在只有 API server 的叢集上，讓一個 namespace 有兩個 ConfigMap。程式（-A）印出 2 之後，
// API server 停機，期間其中一個被刪除。恢復之後 watch 不能從舊的 resourceVersion 接續，
// informer 重新 List，刪除以墓碑的形式到達：程式印出 tombstone 那一行，而
// GetObjectName().Namespace 讓它重新計算對的 namespace，印出 1 (was 2)。
//
// tombstone gives a namespace two ConfigMaps on the API-server-only cluster.
// After the program (-A) prints 2, the API server goes down and one of them
// is deleted meanwhile. Afterwards the watch cannot resume from the old
// resourceVersion, the informer lists again and the delete arrives as a
// tombstone: the program prints its tombstone line, and
// GetObjectName().Namespace makes it recount the right namespace and print
// 1 (was 2).
func tombstone(t *testing.T, m *module) {
	c := testenv.Plain(t)
	cs := c.Client()
	ns := c.Namespace(t)
	ctx := t.Context()
	for _, name := range []string{"stays", "goes"} {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	p := start(t, m, c.Kubeconfig(t), "-A")
	p.out.Wait(t, 1, ns+": 2 (was 0)")
	c.RestartAPIServer(t, func(other kubernetes.Interface) {
		if err := other.CoreV1().ConfigMaps(ns).Delete(ctx, "goes", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	p.out.Wait(t, 1, ns+": 1 (was 2)")
	p.interrupt(t)
	testenv.WantOrder(t, p.out.String(),
		"tombstone: "+ns+"/goes (the delete was seen only by a relist)\n",
		ns+": 1 (was 2)\n",
		"stopped\n",
	)
}
