package liveview

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// scriptTag 是 index.html 裡一個腳本的標籤：匯出時照它們在 index.html 裡的順序內嵌，順序只寫在一個地方。
// scriptTag is a script's tag in index.html: an export inlines them in index.html's order, so the order is written in
// one place only.
var (
	scriptTag = regexp.MustCompile(`<script src="static/([^"]+)" defer></script>\n`)
	styleTag  = `<link rel="stylesheet" href="static/style.css">`
)

// Export 寫出一個獨立的 HTML 檔：頁面的樣式與腳本都在檔案裡，錄製檔（與它的解說，有的話）內嵌在 JSON 區塊，
// 從磁碟直接開啟、不連網路就能重播。Content-Security-Policy 只允許這兩段內嵌的程式碼（依它們的雜湊）：
// 檔案要原封不動地放上網站（例如放進 iframe），會改寫內嵌腳本的網站系統會讓它失效。
//
// Export writes one self-contained HTML file: the page's style and scripts
// are inside it and the recording (with its tour, if any) is embedded in
// JSON blocks, so it replays opened from disk with no network. Its
// Content-Security-Policy allows just those two inline pieces (by their
// hashes): serve the file unchanged (in an iframe, say); a site system that
// rewrites inline scripts breaks it.
func Export(recording, tour []byte, w io.Writer) error {
	html, err := page.ReadFile("page/index.html")
	if err != nil {
		return err
	}
	css, err := page.ReadFile("page/style.css")
	if err != nil {
		return err
	}
	var js bytes.Buffer
	for _, m := range scriptTag.FindAllSubmatch(html, -1) {
		data, err := page.ReadFile("page/" + string(m[1]))
		if err != nil {
			return err
		}
		js.Write(data)
		js.WriteString("\n")
	}
	hash := func(b []byte) string {
		sum := sha256.Sum256(b)
		return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	}
	csp := fmt.Sprintf("default-src 'none'; script-src %s; style-src %s; img-src data:", hash(js.Bytes()), hash(css))
	out := string(html)
	out = strings.Replace(out, `<meta name="live-mode" content="">`,
		`<meta name="live-mode" content="export">`+"\n"+`<meta http-equiv="Content-Security-Policy" content="`+csp+`">`, 1)
	out = strings.Replace(out, styleTag, "<style>"+string(css)+"</style>", 1)
	out = scriptTag.ReplaceAllString(out, "")
	// 錄製檔裡的每個 < 都寫成 \u003c：它只會出現在 JSON 字串裡，JSON.parse 還原它，而 HTML 看不到 </script>。
	// Every < of the recording becomes \u003c: it can only sit inside JSON strings, JSON.parse restores it, and the
	// HTML never sees a </script>.
	data := strings.ReplaceAll(string(recording), "<", `\u003c`)
	tail := `<script type="application/json" id="recording">` + data + "</script>\n"
	if len(tour) > 0 {
		tail += `<script type="application/json" id="tour-data">` + strings.ReplaceAll(string(tour), "<", `\u003c`) + "</script>\n"
	}
	tail += "<script>" + js.String() + "</script>\n</body>"
	out = strings.Replace(out, "</body>", tail, 1)
	_, err = io.WriteString(w, out)
	return err
}
