package liveview

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// 解說是資料，不是程式：錄製檔旁邊的 <name>.tour.json，依序列出頁面要停下來的地方。每一站用 seq 指向錄製檔裡的
// 一筆事件，並寫明那筆事件的 op 與 key：重新錄製讓 seq 位移時，解說的測試會失敗，而不是默默指到別的地方。
// 有的站先問一個問題（「接下來會看到幾次同步？」），答案可以驗算：從這一站到 Through 之間，符合 Count 的事件
// 數必須是 Value。
// A tour is data, not code: <name>.tour.json beside the recording lists,
// in order, where the page stops. Each stop points at one event of the
// recording by seq and spells out that event's op and key too: a new
// recording that shifts the seqs fails the tour's test instead of pointing
// elsewhere in silence. Some stops ask a question first ("how many syncs
// will you see next?") whose answer can be checked: the events matching
// Count from this stop through Through must number Value.

// Tour 是一份解說。 / Tour is a tour.
type Tour struct {
	Stops []Stop `json:"stops"`
}

// Stop 是解說的一站。Poster 標出文件截圖與海報圖用的那一刻，Select 是那時選取的 key。
//
// Stop is one stop of a tour. Poster marks the moment the docs' screenshot
// and poster image show, with Select the key selected then.
type Stop struct {
	Seq      uint64    `json:"seq"`
	Op       string    `json:"op"`
	Key      string    `json:"key,omitempty"`
	Caption  Text      `json:"caption"`
	Question *Question `json:"question,omitempty"`
	Poster   bool      `json:"poster,omitempty"`
	Select   string    `json:"select,omitempty"`
}

// Question 是在一站先問、再播放的問題（兩種語言），和它的答案。Count 與 Value 讓答案可以從錄製檔驗算。
//
// Question is asked at a stop before playing on (in both languages), with
// its answer. Count and Value let the answer be checked against the
// recording.
type Question struct {
	En     string `json:"en"`
	Zh     string `json:"zh"`
	Answer Text   `json:"answer"`
	Count  Count  `json:"count"`
	Value  int    `json:"value"`
}

// Count 數這一站之後、到 seq Through 為止（包含），op 是 Op、key 是 Key 的事件；Stage 不是空字串時，只數那個階段的。
//
// Count counts the events after the stop through seq Through (inclusive)
// whose op is Op and whose key is Key; with a Stage, only those at that
// stage.
type Count struct {
	Op      string `json:"op"`
	Key     string `json:"key"`
	Stage   string `json:"stage,omitempty"`
	Through uint64 `json:"through"`
}

// ReadTour 讀一份解說。 / ReadTour reads a tour.
func ReadTour(data []byte) (Tour, error) {
	var t Tour
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, fmt.Errorf("not a tour: %v", err)
	}
	return t, nil
}

// Check 確認解說跟錄製檔對得上：站依 seq 的順序，每一站的事件存在而且 op 與 key 相符，兩種語言都有，
// 每個問題的答案就是錄製檔接下來真的發生的。錯誤一次列出全部。
//
// Check verifies the tour against the recording: stops in seq order, each
// stop's event there with that op and key, both languages present, and each
// question's answer what the recording then really shows. The error lists
// every problem at once.
func (t Tour) Check(events []show.Event) error {
	bySeq := map[uint64]show.Event{}
	for _, e := range events {
		bySeq[e.Seq] = e
	}
	var errs []string
	bad := func(i int, format string, args ...any) {
		errs = append(errs, fmt.Sprintf("stop %d: ", i+1)+fmt.Sprintf(format, args...))
	}
	if len(t.Stops) == 0 {
		return errors.New("the tour has no stops")
	}
	var last uint64
	for i, s := range t.Stops {
		if s.Seq <= last {
			bad(i, "seq %d does not come after the stop before (%d)", s.Seq, last)
		}
		last = s.Seq
		e, ok := bySeq[s.Seq]
		switch {
		case !ok:
			bad(i, "the recording has no event %d", s.Seq)
		case string(e.Op) != s.Op || e.Key != s.Key:
			bad(i, "event %d is op %q key %q, not op %q key %q (re-recorded? move the stop)", s.Seq, e.Op, e.Key, s.Op, s.Key)
		}
		if strings.TrimSpace(s.Caption.En) == "" || strings.TrimSpace(s.Caption.Zh) == "" {
			bad(i, "the caption needs both languages")
		}
		q := s.Question
		if q == nil {
			continue
		}
		if strings.TrimSpace(q.En) == "" || strings.TrimSpace(q.Zh) == "" || strings.TrimSpace(q.Answer.En) == "" || strings.TrimSpace(q.Answer.Zh) == "" {
			bad(i, "the question and its answer need both languages")
		}
		if q.Count.Through <= s.Seq {
			bad(i, "the question counts through event %d, which is not after the stop", q.Count.Through)
			continue
		}
		n := 0
		for _, e := range events {
			if e.Seq > s.Seq && e.Seq <= q.Count.Through && string(e.Op) == q.Count.Op && e.Key == q.Count.Key && (q.Count.Stage == "" || e.Stage == q.Count.Stage) {
				n++
			}
		}
		if n != q.Value {
			bad(i, "the answer says %d, but the recording has %d events of op %q for %q after the stop through %d", q.Value, n, q.Count.Op, q.Count.Key, q.Count.Through)
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// TourPath 是錄製檔旁邊那份解說的路徑：demo.recording.jsonl 的是 demo.tour.json。
//
// TourPath is the path of the tour beside a recording: demo.tour.json for
// demo.recording.jsonl.
func TourPath(recording string) string {
	return strings.TrimSuffix(strings.TrimSuffix(recording, ".jsonl"), ".recording") + ".tour.json"
}

// TourBeside 讀錄製檔旁邊的解說並對照錄製檔檢查它；沒有解說時回傳 nil。
//
// TourBeside reads the tour beside a recording and checks it against the
// recording; with no tour there it returns nil.
func TourBeside(recording string, rec Recording) ([]byte, error) {
	data, err := os.ReadFile(TourPath(recording))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	t, err := ReadTour(data)
	if err == nil {
		err = t.Check(rec.Events)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", TourPath(recording), err)
	}
	return data, nil
}
