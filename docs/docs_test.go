// 文件的檢查：引用的程式碼等於原始碼、預期輸出等於 golden file、兩種語言的章節結構相同、
// 相對連結都存在、上游連結都釘在這個 repo 建置用的版本。任何一項與預期不一致，測試就失敗。
//
// Checks over the docs: quoted code equals the source, expected output equals
// the golden files, both languages have the same chapters and structure,
// relative links resolve, and upstream links are pinned to the versions this
// repository builds with. Any drift fails the test.
package docs

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/informer-walkthrough/informer-walkthrough/internal/excerpt"
	"github.com/informer-walkthrough/informer-walkthrough/internal/golden"
)

const root = ".."

// markdownFiles 回傳 repo 裡所有的 Markdown 檔（.git 除外）。
//
// markdownFiles returns every Markdown file in the repository (.git aside).
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

var (
	codeBlock   = regexp.MustCompile("(?s)<!-- code:([^#\\s]+)#(\\S+) -->\n(.*?)<!-- /code -->")
	goldenBlock = regexp.MustCompile("(?s)<!-- golden:([^/\\s]+)/(\\S+) -->\n(.*?)<!-- /golden:[^>]+ -->")
)

// rewrite 把每個區塊換成 want 算出的內容；不同時，-update 改寫檔案，否則測試失敗。
//
// rewrite replaces each block with what want computes; where they differ,
// -update rewrites the file and otherwise the test fails.
func rewrite(t *testing.T, file string, re *regexp.Regexp, want func(m []string) (string, error)) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	out := re.ReplaceAllStringFunc(text, func(block string) string {
		m := re.FindStringSubmatch(block)
		body, err := want(m)
		if err != nil {
			t.Errorf("%s: %v", file, err)
			return block
		}
		if m[3] != body && !golden.Updating() {
			t.Errorf("%s: the block %q differs from its source (go test ./docs -update rewrites it)\n--- shown\n%s--- source\n%s",
				file, strings.SplitN(block, "\n", 2)[0], m[3], body)
		}
		// 只換掉開頭標記之後的內容：內容是空的時候，strings.Replace 會把它插在標記前面。
		// Replace only what follows the opening marker: with an empty body, strings.Replace would insert before the marker.
		start := strings.Index(block, "\n") + 1
		return block[:start] + body + block[start+len(m[3]):]
	})
	if out != text && golden.Updating() {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// 文件引用的每一段程式碼，都等於原始碼裡那個宣告目前的樣子。
// Every code excerpt in the docs equals that declaration in the source today.
func TestCodeExcerpts(t *testing.T) {
	n := 0
	for _, f := range markdownFiles(t) {
		rewrite(t, f, codeBlock, func(m []string) (string, error) {
			n++
			src, err := excerpt.Decl(filepath.Join(root, m[1]), m[2])
			// 英文頁面只顯示英文註解，中文頁面只顯示中文註解。 / English pages show the English comments only, Chinese pages the Chinese.
			src = excerpt.OneLanguage(src, strings.Contains(f, "zh-TW"))
			return "```go\n" + src + "```\n", err
		})
	}
	if n == 0 {
		t.Error("no code excerpts found; the docs should quote the lessons")
	}
}

// README 與文件裡的每段預期輸出，都等於對應步驟的 golden file（由該步驟的測試連到真實的 API server 產生）。
// Every expected-output block in the READMEs and docs equals the step's golden file (which
// the step's test produces against a real API server).
func TestExpectedOutput(t *testing.T) {
	n := 0
	for _, f := range markdownFiles(t) {
		rewrite(t, f, goldenBlock, func(m []string) (string, error) {
			n++
			data, err := os.ReadFile(filepath.Join(root, m[1], "testdata", m[2]+".golden"))
			return "```text\n" + string(data) + "```\n", err
		})
	}
	if n == 0 {
		t.Error("no expected-output blocks found in the docs")
	}
}

var (
	heading = regexp.MustCompile(`(?m)^(#{1,6}) `)
	marker  = regexp.MustCompile(`<!-- (code|golden):\S+ -->`)
	fence   = regexp.MustCompile("(?ms)^```.*?^```")
)

// structure 是一章的骨架：標題層級的順序，以及引用標記的順序。
//
// structure is a chapter's skeleton: its heading levels in order, and its
// quoting markers in order.
func structure(t *testing.T, file string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := fence.ReplaceAllString(string(data), "")
	var parts []string
	for _, h := range heading.FindAllStringSubmatch(text, -1) {
		parts = append(parts, h[1])
	}
	return strings.Join(parts, " ") + " | " + strings.Join(marker.FindAllString(string(data), -1), " ")
}

// 兩種語言有相同的章節，每章的標題結構與引用也相同。
// Both languages have the same chapters, and each chapter the same headings
// and quotes.
func TestLanguagesMatch(t *testing.T) {
	en, _ := filepath.Glob("en/*.md")
	zh, _ := filepath.Glob("zh-TW/*.md")
	if len(en) == 0 || len(en) != len(zh) {
		t.Fatalf("docs/en has %d chapters, docs/zh-TW has %d", len(en), len(zh))
	}
	for _, f := range en {
		other := filepath.Join("zh-TW", filepath.Base(f))
		if _, err := os.Stat(other); err != nil {
			t.Errorf("%s has no zh-TW counterpart", f)
			continue
		}
		if a, b := structure(t, f), structure(t, other); a != b {
			t.Errorf("%s and %s differ in structure:\n  en:    %s\n  zh-TW: %s", f, other, a, b)
		}
	}
}

var (
	link       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode = regexp.MustCompile("`[^`\n]*`")
)

// 每個相對連結都指向存在的檔案。
// Every relative link points at a file that exists.
func TestRelativeLinks(t *testing.T) {
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := inlineCode.ReplaceAllString(fence.ReplaceAllString(string(data), ""), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s: broken link %s", f, m[1])
			}
		}
	}
}

var upstream = regexp.MustCompile(`github\.com/(kubernetes/(?:client-go|kubernetes|apimachinery|api|apiserver|apiextensions-apiserver|code-generator)|kubernetes-sigs/(?:controller-runtime|controller-tools|kwok))/(?:blob|tree)/([^/\s)]+)/`)

// 上游連結釘在這個 repo 建置用的版本（client-go v0.37.2、kubernetes v1.37.2、controller-runtime v0.25.2 …），
// 絕不指向 master 或 main，因為那些行號明天就會變。
// Upstream links are pinned to the versions this repository builds with
// (client-go v0.37.2, kubernetes v1.37.2, controller-runtime v0.25.2 …),
// never master or main, whose line numbers change tomorrow.
func TestUpstreamLinksPinned(t *testing.T) {
	// 每個上游 repo 的版本，以及 go.mod 裡釘住它的模組。
	// Each upstream repository's version, and the module that pins it in a go.mod.
	pins := []struct{ repo, module, version string }{
		{"kubernetes/client-go", "k8s.io/client-go", "v0.37.2"},
		{"kubernetes/apimachinery", "k8s.io/apimachinery", "v0.37.2"},
		{"kubernetes/api", "k8s.io/api", "v0.37.2"},
		{"kubernetes/apiserver", "k8s.io/apiserver", "v0.37.2"},
		{"kubernetes/apiextensions-apiserver", "k8s.io/apiextensions-apiserver", "v0.37.2"},
		{"kubernetes/code-generator", "k8s.io/code-generator", "v0.37.2"},
		{"kubernetes/kubernetes", "k8s.io/kubernetes", "v1.37.2"},
		{"kubernetes-sigs/controller-runtime", "sigs.k8s.io/controller-runtime", "v0.25.2"},
		{"kubernetes-sigs/controller-tools", "sigs.k8s.io/controller-tools", "v0.23.0"},
		{"kubernetes-sigs/kwok", "sigs.k8s.io/kwok", "v0.8.0"},
	}
	// 根目錄的 go.mod，加上建置控制平面與 kwok 的模組（kubernetes、apiserver 與 kwok 只在那裡）。
	// The root go.mod, and the modules that build the control plane and kwok (kubernetes, apiserver and kwok are only
	// there).
	var gomod []byte
	for _, name := range []string{"go.mod", filepath.Join("scripts", "controlplane", "go.mod"), filepath.Join("scripts", "kwok", "go.mod")} {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		gomod = append(gomod, data...)
	}
	want := map[string]string{}
	for _, p := range pins {
		want[p.repo] = p.version
		if !regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(p.module+" "+p.version) + `(\s|$)`).Match(gomod) {
			t.Fatalf("no go.mod pins %s %s; update this test's versions with it", p.module, p.version)
		}
	}
	files := markdownFiles(t)
	gofiles, _ := filepath.Glob(filepath.Join(root, "*", "*.go"))
	more, _ := filepath.Glob(filepath.Join(root, "internal", "*", "*.go"))
	for _, f := range append(append(files, gofiles...), more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range upstream.FindAllStringSubmatch(string(data), -1) {
			if m[2] != want[m[1]] {
				t.Errorf("%s: link into %s at %q; pin it to %s", f, m[1], m[2], want[m[1]])
			}
		}
		if regexp.MustCompile(`/(blob|tree)/(master|main)/`).Match(data) {
			t.Errorf("%s: links to a master or main branch", f)
		}
	}
}

var (
	headingLine = regexp.MustCompile("(?m)^#{1,6} +(.+?) *$")
	notInSlug   = regexp.MustCompile(`[^\p{L}\p{M}\p{N}\p{Pc} -]`)
)

// anchors 回傳一份 Markdown 的標題在 GitHub 上的錨點：小寫、去掉標點（反引號、括號、全形標點都算）、
// 空白換成連字號，重複的加上 -1、-2。
//
// anchors returns the anchors GitHub gives a Markdown file's headings:
// lower case, punctuation dropped (backquotes, brackets and full-width
// punctuation included), spaces turned into hyphens, repeats suffixed -1, -2.
func anchors(markdown string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, m := range headingLine.FindAllStringSubmatch(fence.ReplaceAllString(markdown, ""), -1) {
		slug := strings.ReplaceAll(notInSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		if n := seen[slug]; n > 0 {
			out[fmt.Sprintf("%s-%d", slug, n)] = true
		} else {
			out[slug] = true
		}
		seen[slug]++
	}
	return out
}

// 每個 #錨點 的連結（同一份文件裡的，或指向另一份 Markdown 的）都對得上那份文件的一個標題：
// 標題改了字，連結就會靜靜地只跳到檔案開頭。
// Every link with a #anchor (within a file, or to another Markdown file)
// matches a heading of that file: when a heading's words change, such a link
// silently lands at the top of the file instead.
func TestAnchors(t *testing.T) {
	for _, f := range markdownFiles(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := inlineCode.ReplaceAllString(fence.ReplaceAllString(string(data), ""), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target, frag, ok := strings.Cut(m[1], "#")
			if !ok || strings.Contains(target, "://") || (target != "" && !strings.HasSuffix(target, ".md")) {
				continue
			}
			file := f
			if target != "" {
				file = filepath.Join(filepath.Dir(f), target)
			}
			b, err := os.ReadFile(file)
			if err != nil {
				continue // TestRelativeLinks 報告。 / TestRelativeLinks reports it.
			}
			if !anchors(string(b))[frag] {
				t.Errorf("%s: link %s: %s has no heading with that anchor", f, m[1], file)
			}
		}
	}
}

// 情境：repo 裡的每一份錄製檔，都在兩種語言的即時頁面那一章的海報圖表裡，而且它的海報圖真的在 docs/images 裡
// （scripts/ci/screenshots.sh 在解說標為 poster 的那一站截下它）。
//
// The story: every recording in the repository is in the poster table of the
// live view chapter in both languages, and its poster image is really in
// docs/images (scripts/ci/screenshots.sh takes it at the stop its tour marks
// as the poster).
func TestEveryRecordingHasAPoster(t *testing.T) {
	recordings, err := filepath.Glob(filepath.Join(root, "step[0-9][0-9]-*", "testdata", "*.recording.jsonl"))
	if err != nil || len(recordings) == 0 {
		t.Fatalf("no recordings (%v)", err)
	}
	for _, lang := range []string{"en", "zh-TW"} {
		page, err := os.ReadFile(filepath.Join(root, "docs", lang, "live-view.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recordings {
			rel, _ := filepath.Rel(root, rec)
			step := strings.SplitN(filepath.Base(filepath.Dir(filepath.Dir(rec))), "-", 2)[0]
			image := "live-" + step
			if name := strings.TrimSuffix(filepath.Base(rec), ".recording.jsonl"); name != "demo" {
				image += "-" + name
			}
			if lang != "en" {
				image += ".zh-TW"
			}
			image += ".png"
			if !strings.Contains(string(page), "`"+filepath.ToSlash(rel)+"` | ["+image+"](../images/"+image+")") {
				t.Errorf("docs/%s/live-view.md: the poster table has no row for %s with %s", lang, rel, image)
			}
			if _, err := os.Stat(filepath.Join(root, "docs", "images", image)); err != nil {
				t.Errorf("%s: %v (scripts/ci/screenshots.sh makes it)", rel, err)
			}
		}
	}
}
