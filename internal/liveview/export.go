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

// pageScripts 是頁面的腳本，依載入的順序。 / pageScripts are the page's scripts, in load order.
var pageScripts = []string{"i18n.js", "state.js", "render.js", "controls.js", "app.js"}

var (
	scriptTag = regexp.MustCompile(`<script src="static/[^"]+" defer></script>\n`)
	styleTag  = `<link rel="stylesheet" href="static/style.css">`
)

// Export 寫出一個獨立的 HTML 檔：頁面的樣式與腳本都在檔案裡，錄製檔內嵌在一個 JSON 區塊，
// 從磁碟直接開啟、不連網路就能重播。Content-Security-Policy 只允許這兩段內嵌的程式碼（依它們的雜湊）。
//
// Export writes one self-contained HTML file: the page's style and scripts
// are inside it and the recording is embedded in a JSON block, so it replays
// opened from disk with no network. Its Content-Security-Policy allows just
// those two inline pieces (by their hashes).
func Export(recording []byte, w io.Writer) error {
	html, err := page.ReadFile("page/index.html")
	if err != nil {
		return err
	}
	css, err := page.ReadFile("page/style.css")
	if err != nil {
		return err
	}
	var js bytes.Buffer
	for _, name := range pageScripts {
		data, err := page.ReadFile("page/" + name)
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
	tail := `<script type="application/json" id="recording">` + data + "</script>\n<script>" + js.String() + "</script>\n</body>"
	out = strings.Replace(out, "</body>", tail, 1)
	_, err = io.WriteString(w, out)
	return err
}
