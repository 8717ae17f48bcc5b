package show

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendJSON 把事件寫成 JSON 接在 b 後面，跟 encoding/json 的 json.Marshal 一個位元組都不差（測試比對兩者），
// 只是不靠 reflection：即時頁面的伺服器與錄製檔每一筆事件都要寫一次，爆量時這是步驟的 CPU 裡最大的一塊。
//
// AppendJSON appends the event as JSON to b, byte for byte what
// encoding/json's json.Marshal writes (a test compares the two), without
// reflection: the live page's server and the recording write every event
// once, and in a burst that is the biggest part of the step's CPU.
func (e Event) AppendJSON(b []byte) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"t":`...)
	b = strconv.AppendInt(b, e.T, 10)
	b = field(b, "source", e.Source)
	b = field(b, "what", e.What)
	b = field(b, "key", e.Key)
	b = field(b, "detail", e.Detail)
	if e.Note {
		b = append(b, `,"note":true`...)
	}
	if e.Quiet {
		b = append(b, `,"quiet":true`...)
	}
	b = field(b, "op", string(e.Op))
	b = field(b, "stage", e.Stage)
	b = field(b, "into", e.Into)
	b = field(b, "from", e.From)
	b = field(b, "for", e.For)
	if len(e.Keys) > 0 {
		b = append(b, `,"keys":`...)
		b = stringList(b, e.Keys)
	}
	if o := e.Obj; o != nil {
		b = append(b, `,"obj":{`...)
		start := len(b)
		b = field(b, "phase", o.Phase)
		b = field(b, "node", o.Node)
		b = field(b, "labels", o.Labels)
		if o.Deleting {
			b = append(b, `,"deleting":true`...)
		}
		if o.Gone {
			b = append(b, `,"gone":true`...)
		}
		b = field(b, "rv", o.RV)
		if o.Generation != 0 {
			b = append(b, `,"generation":`...)
			b = strconv.AppendInt(b, o.Generation, 10)
		}
		b = dropComma(b, start)
		b = append(b, '}')
	}
	b = field(b, "cache", e.Cache)
	b = field(b, "rv", e.RV)
	if r := e.Retry; r != nil {
		b = append(b, `,"retry":{"n":`...)
		b = strconv.AppendInt(b, int64(r.N), 10)
		b = append(b, `,"of":`...)
		b = strconv.AppendInt(b, int64(r.Of), 10)
		if r.DelayMs != 0 {
			b = append(b, `,"delayMs":`...)
			b = float(b, r.DelayMs)
		}
		b = append(b, '}')
	}
	if e.Behind != nil {
		b = append(b, `,"behind":`...)
		b = strconv.AppendInt(b, *e.Behind, 10)
	}
	if e.Initial {
		b = append(b, `,"initial":true`...)
	}
	if len(e.Index) > 0 {
		b = append(b, `,"index":{`...)
		for i, k := range slices.Sorted(maps.Keys(e.Index)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = quote(b, k)
			b = append(b, ':')
			b = stringList(b, e.Index[k])
		}
		b = append(b, '}')
	}
	if len(e.IndexSize) > 0 {
		b = append(b, `,"indexSize":{`...)
		for i, k := range slices.Sorted(maps.Keys(e.IndexSize)) {
			if i > 0 {
				b = append(b, ',')
			}
			b = quote(b, k)
			b = append(b, ':')
			b = strconv.AppendInt(b, int64(e.IndexSize[k]), 10)
		}
		b = append(b, '}')
	}
	if e.Value != nil {
		b = append(b, `,"value":`...)
		b = float(b, *e.Value)
	}
	if r := e.Req; r != nil {
		b = append(b, `,"req":{"method":`...)
		b = quote(b, r.Method)
		b = append(b, `,"path":`...)
		b = quote(b, r.Path)
		b = field(b, "query", r.Query)
		b = append(b, `,"status":`...)
		b = quote(b, r.Status)
		b = append(b, '}')
	}
	return append(b, '}')
}

// field 寫一個可以省略的字串欄位（空字串時省略，跟 omitempty 一樣），前面加一個逗號。
//
// field writes an omittable string field (left out when empty, as
// omitempty does), with a comma before it.
func field(b []byte, name, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return quote(b, v)
}

// dropComma 拿掉一個物件裡第一個欄位前多的那個逗號。 / dropComma removes the comma before an object's first field.
func dropComma(b []byte, start int) []byte {
	if len(b) > start && b[start] == ',' {
		return append(b[:start], b[start+1:]...)
	}
	return b
}

func stringList(b []byte, vs []string) []byte {
	if vs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range vs {
		if i > 0 {
			b = append(b, ',')
		}
		b = quote(b, v)
	}
	return append(b, ']')
}

// float 照 encoding/json 的規則寫一個數：太大或太小時用指數，去掉指數多餘的 0。
//
// float writes a number by encoding/json's rules: an exponent when it is very
// large or small, without the exponent's extra zero.
func float(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hex = "0123456789abcdef"

// quote 照 encoding/json 的規則寫一個 JSON 字串：跳脫引號、反斜線與控制字元，<、>、& 寫成 \u003c 這樣
// （所以錄製檔放進 HTML 也安全），不合法的 UTF-8 換成 U+FFFD，U+2028 與 U+2029 也跳脫。
//
// quote writes a JSON string by encoding/json's rules: quotes, backslashes
// and control characters escaped, <, > and & as \u003c and the like (so a
// recording is safe inside HTML too), invalid UTF-8 as U+FFFD, U+2028 and
// U+2029 escaped as well.
func quote(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
