package scripts_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：工作坊離線包的腳本與控制平面的建置腳本遇到錯誤的輸入時，各自只印出一行說明並以 1 結束，什麼都沒做：
// 不認得的參數、不是 OS/ARCH 的平台、不在解開的離線包裡執行 install、不存在的壓縮檔、不是數字的 RUNS。
//
// The story: the workshop bundle's scripts and the control plane's build
// script each answer bad input with one line and exit 1, having done
// nothing: an unknown argument, a platform that is not OS/ARCH, install run
// outside an unpacked bundle, an archive that is not there, RUNS that is not
// a number.
func TestWorkshopBundleBadInput(t *testing.T) {
	l := newLab(t, "lab-bundle-input")
	missing := filepath.Join(t.TempDir(), "nothing.tar.gz")
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"workshop-bundle.sh"}, "", "workshop-bundle: error: usage: "},
		{[]string{"workshop-bundle.sh", "build", "--bogus"}, "", "workshop-bundle: error: unknown argument '--bogus'"},
		{[]string{"workshop-bundle.sh", "check"}, "", "workshop-bundle: error: usage: "},
		{[]string{"workshop-bundle.sh", "check", missing}, "", "workshop-bundle: error: no such archive: "},
		{[]string{"workshop-bundle.sh", "install"}, "", "workshop-bundle: error: no " + filepath.Join(root(t), ".workshop", "manifest") + ": install runs inside an unpacked workshop bundle"},
		{[]string{"build-controlplane.sh", "--platform", "darwin"}, "", "build-controlplane: error: --platform needs OS/ARCH"},
		{[]string{"build-controlplane.sh", "--bogus"}, "", "build-controlplane: error: unknown argument '--bogus'"},
		{[]string{"ci/bench-workshop-bundle.sh", missing}, "RUNS=many", "bench-workshop-bundle: error: RUNS must be a positive number, not 'many'"},
		{[]string{"ci/bench-workshop-bundle.sh", missing}, "", "bench-workshop-bundle: error: no such archive: "},
	} {
		cmd := exec.Command("bash", c.args...)
		cmd.Env = append(l.env, c.env)
		out, err := cmd.CombinedOutput()
		if exitErr, ok := err.(*exec.ExitError); !ok || exitErr.ExitCode() != 1 {
			t.Errorf("%v: %v; want exit status 1", c.args, err)
		}
		if strings.Count(string(out), "\n") != 1 || !strings.HasPrefix(string(out), c.want) {
			t.Errorf("%v: output %q; want one line starting %q", c.args, out, c.want)
		}
	}
}

// 情境：給別的平台的離線包在這裡不能執行，只能檢查：check 要能抓到一個平台不對的執行檔。這裡做一個假的套件，
// manifest 說 darwin/arm64，每個執行檔卻是為這台機器建的一個小小的假程式；check 要失敗，並說出不對的是哪些。
// 同一個離線包改說這台機器的平台，check 就通過。
//
// The story: a bundle for another platform cannot run here, only be checked:
// check must catch a binary built for the wrong platform. This makes a fake
// bundle whose manifest says darwin/arm64 while every binary is a tiny
// program built for this machine; check must fail, naming them. The same
// bundle saying this machine's platform passes.
func TestWorkshopBundleCheckCatchesTheWrongPlatform(t *testing.T) {
	testenv.FullTier(t, "packs and checks an archive of 15 small binaries, about 11 s; the full tier also builds and checks the real bundle")
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny")
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", tiny, src)
	build.Env = append(os.Environ(), "GOFLAGS=", "GO111MODULE=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	bundle := filepath.Join(dir, "informer-walkthrough")
	var binaries []string
	for _, n := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"} {
		binaries = append(binaries, filepath.Join(".workshop", "controlplane", n))
	}
	for _, n := range []string{"localcluster", "liveview", "scene"} {
		binaries = append(binaries, filepath.Join(".workshop", "helpers", n))
	}
	steps, _ := filepath.Glob(filepath.Join(root(t), "step0*"))
	for _, s := range steps {
		binaries = append(binaries, filepath.Join("bin", filepath.Base(s)))
	}
	recordings, _ := filepath.Glob(filepath.Join(root(t), "step0*", "testdata", "*.recording.jsonl"))
	var files []string
	for _, r := range recordings {
		step := filepath.Base(filepath.Dir(filepath.Dir(r)))
		files = append(files, filepath.Join(".workshop", "pages", step+"-"+strings.TrimSuffix(filepath.Base(r), ".recording.jsonl")+".html"))
	}
	files = append(files, filepath.Join(".workshop", "goproxy", "example.com", "@v", "v1.0.0.zip"))
	for _, f := range files {
		write(t, filepath.Join(bundle, f), "")
	}
	tinyBytes, err := os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range binaries {
		write(t, filepath.Join(bundle, b), string(tinyBytes))
		if err := os.Chmod(filepath.Join(bundle, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	host := strings.TrimSpace(goEnv(t, "GOHOSTOS")) + "/" + strings.TrimSpace(goEnv(t, "GOHOSTARCH"))
	check := func(platform string) (int, string) {
		write(t, filepath.Join(bundle, ".workshop", "manifest"), "platform="+platform+"\n")
		archive := filepath.Join(dir, "bundle.tar.gz")
		if out, err := exec.Command("tar", "-czf", archive, "-C", dir, "informer-walkthrough").CombinedOutput(); err != nil {
			t.Fatalf("tar: %v\n%s", err, out)
		}
		// 自己的 TMPDIR：check 結束之後（通過或以 die 結束）那裡必須是空的。
		// A TMPDIR of its own: once check ends (passing, or in die) it must be empty.
		tmp := t.TempDir()
		cmd := exec.Command("bash", "workshop-bundle.sh", "check", archive)
		cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
		out, err := cmd.CombinedOutput()
		code := 0
		if exitErr, ok := err.(*exec.ExitError); ok {
			code = exitErr.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if left, err := os.ReadDir(tmp); err != nil || len(left) > 0 {
			t.Errorf("check for %s (exit %d) left %d entries in TMPDIR (%v)", platform, code, len(left), err)
		}
		return code, string(out)
	}
	code, out := check("darwin/arm64")
	if code != 1 || !strings.Contains(out, "not built for darwin/arm64: .workshop/controlplane/etcd ") || !strings.Contains(out, "bin/step01-listwatcher") {
		t.Errorf("check of linux binaries said to be darwin/arm64: exit %d, %q; want exit 1 naming every binary", code, out)
	}
	if code, out := check(host); code != 0 || !strings.Contains(out, "binaries are built for "+host) {
		t.Errorf("check of %s binaries said to be %s: exit %d, %q; want it to pass", host, host, code, out)
	} else if info, err := os.Stat(filepath.Join(dir, "bundle.tar.gz")); err != nil {
		t.Fatal(err)
	} else if size := fmt.Sprintf(", %.0f MB;", float64(info.Size())/1e6); !strings.Contains(out, size) {
		// 工作坊指南引用的大小是十進位的 MB。 / The workshop guide quotes sizes in decimal MB.
		t.Errorf("check of a %d-byte archive: %q; want its size as %q", info.Size(), out, size)
	}
}

// write 寫出一個檔案，需要的目錄一併建立。 / write writes a file, making the directories it needs.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// goEnv 印出 go env 的一個值。 / goEnv prints one value of go env.
func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// root 是 repo 的根目錄，跟腳本的 REPO_ROOT 一樣解開 symlink。 / root is the repository's root, symlinks resolved as the scripts' REPO_ROOT is.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("..")
	if err == nil {
		dir, err = filepath.EvalSymlinks(dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
