package show

import (
	"bytes"
	"encoding/json"
	"testing"
)

// 情境：AppendJSON 寫出的，跟 json.Marshal 寫出的一個位元組都不差：空的事件、每個欄位都填了的事件、
// 帶著 HTML、引號、控制字元、不合法 UTF-8 與 U+2028 的字串、很大與很小的數。
//
// The story: AppendJSON writes exactly what json.Marshal writes, byte for
// byte: an empty event, an event with every field set, strings carrying HTML,
// quotes, control characters, invalid UTF-8 and U+2028, very large and very
// small numbers.
func TestAppendJSONIsJSONMarshal(t *testing.T) {
	behind, zero := int64(6), int64(0)
	value, tiny, huge := 3.5, 1e-9, 2e21
	odd := "<img src=x onerror=\"alert(1)\"> & \\ \x01\t\n\r\b\f \xff \u2028\u2029 中文 🙂"
	for name, e := range map[string]Event{
		"empty":    {},
		"printed":  {Seq: 7, T: 1234, Source: "worker1", What: "sync", Key: "default/demo", Detail: "phase=Running"},
		"odd":      {Seq: 1, Source: odd, What: odd, Key: odd, Detail: odd, Stage: odd, Into: odd, From: odd, Keys: []string{odd, ""}, RV: odd, Cache: odd},
		"note":     {Seq: 2, Note: true, Quiet: true, Initial: true, Detail: "-- x"},
		"obj":      {Seq: 3, Obj: &Object{Phase: "Running", Node: "n", Labels: "app=demo", Deleting: true, Gone: true, RV: "5", Generation: 2}},
		"gone":     {Seq: 3, Obj: &Object{Gone: true}},
		"emptyobj": {Seq: 3, Obj: &Object{}},
		"retry":    {Seq: 4, Op: OpFail, Retry: &Retry{N: 2, Of: 5, DelayMs: 10.5}},
		"retry0":   {Seq: 4, Retry: &Retry{}},
		"behind":   {Seq: 5, Behind: &behind},
		"behind0":  {Seq: 5, Behind: &zero},
		"index":    {Seq: 6, Index: map[string][]string{"b": {"x"}, "a": {"y", "z"}, odd: nil, "empty": {}}, IndexSize: map[string]int{"a": 2000, "b": 1}},
		"value":    {Seq: 8, Value: &value},
		"tiny":     {Seq: 8, Value: &tiny},
		"huge":     {Seq: 8, Value: &huge},
		"req":      {Seq: 9, Req: &Request{Method: "GET", Path: "/api/v1/pods", Query: "watch=true&x=<y>", Status: "200"}},
		"reqempty": {Seq: 9, Req: &Request{}},
		"nilkeys":  {Seq: 10, Keys: []string{}},
	} {
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// BenchmarkEventJSON 比較兩種寫法：AppendJSON 與 json.Marshal。
//
//	go test -run '^$' -bench EventJSON ./internal/show
//
// BenchmarkEventJSON compares the two ways to write an event: AppendJSON and
// json.Marshal.
func BenchmarkEventJSON(b *testing.B) {
	e := Event{Seq: 123, T: 4567, Source: "fifo", What: "Updated", Key: "default/demo-7", Detail: "indexer.Update, OnUpdate",
		Op: OpProcess, Stage: "process", Into: "indexer", Cache: CacheSet, Obj: &Object{Phase: "Running", Node: "kwok-node-0", Labels: "app=demo", RV: "1234", Generation: 1}}
	b.Run("AppendJSON", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = e.AppendJSON(buf[:0])
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
