package liveview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// 錄製檔是 JSON Lines：第一行是檔頭（格式名稱、版本、步驟的 Pipeline），之後每一行是一筆 show.Event。
// 版本只在欄位的意思改變時才加一；讀的一方拒絕不認得的版本，而不是猜。格式的說明在 docs/en/live-view.md。
// A recording is JSON Lines: the first line is a header (the format's name, its
// version, the step's Pipeline), then one show.Event per line. The version
// goes up only when a field changes meaning; a reader refuses a version it
// does not know rather than guess. The format is described in
// docs/en/live-view.md.
// 版本 2 的事件帶著型別化欄位（op、stage、obj…），頁面只讀它們；版本 1 只有印出的文字，頁面不再讀它。
// Version 2's events carry typed fields (op, stage, obj, …), the only thing
// the page reads; version 1 had only the printed text, which the page no
// longer reads.

// RecordingFormat 與 RecordingVersion 寫在每個錄製檔的第一行。
//
// RecordingFormat and RecordingVersion open every recording's first line.
const (
	RecordingFormat  = "informer-walkthrough-recording"
	RecordingVersion = 2
)

// Header 是錄製檔的第一行。
//
// Header is a recording's first line.
type Header struct {
	Format   string   `json:"format"`
	Version  int      `json:"version"`
	Pipeline Pipeline `json:"pipeline"`
}

// Recording 是讀進來的錄製檔。
//
// Recording is a recording read back.
type Recording struct {
	Header Header
	Events []show.Event
	// CutOff 是最後一行被截斷時它的行號（步驟沒有好好結束，例如被 kill），否則是 0。那一行之前的事件照常讀進來。
	//
	// CutOff is the number of the last line when it was cut off (the step did
	// not exit cleanly: killed, say), else 0. The events before it are read
	// as usual.
	CutOff int
}

// Recorder 是一個 show.Sink，把每一筆事件寫成一行 JSON，並且立刻寫進檔案：步驟被 kill、終端機被關掉，
// 檔案裡也有到那一刻為止的每一筆事件。寫入的錯誤留到 Close 才回報，不讓步驟停下。
//
// Recorder is a show.Sink that writes each event as one JSON line, to the
// file at once: when the step is killed or its terminal closed, the file
// holds every event up to that moment. A write error is kept for Close to
// report, so the step never stops for it.
type Recorder struct {
	mu  sync.Mutex
	w   *bufio.Writer
	c   io.Closer
	err error
	buf []byte
}

// NewRecorder 寫出檔頭，回傳一個把事件寫進 w 的 Recorder；Close 也關掉 w。
//
// NewRecorder writes the header and returns a Recorder writing events to w;
// Close closes w too.
func NewRecorder(w io.WriteCloser, p Pipeline) (*Recorder, error) {
	r := &Recorder{w: bufio.NewWriter(w), c: w}
	header, err := json.Marshal(Header{Format: RecordingFormat, Version: RecordingVersion, Pipeline: p})
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(r.w, "%s\n", header); err != nil {
		return nil, err
	}
	return r, r.w.Flush()
}

func (r *Recorder) Emit(e show.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.buf = append(e.AppendJSON(r.buf[:0]), '\n')
	_, err := r.w.Write(r.buf)
	if err == nil {
		err = r.w.Flush()
	}
	r.err = err
}

// Close 把緩衝寫出、關掉檔案，回報第一個寫入錯誤。
//
// Close flushes, closes the file and reports the first write error.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.err, r.w.Flush(), r.c.Close())
}

// ReadRecording 讀一個錄製檔。錯誤只有一行，指出是第幾行；不認得的版本直接說出來。
// 最後一行沒有換行而且讀不懂時，那是寫到一半被截斷的行：不算錯誤，記在 CutOff。
// 中間某一行壞掉時，除了錯誤，也回傳在那之前讀到的事件。
//
// ReadRecording reads a recording. An error is one line naming the line
// number; an unknown version says so. A last line with no newline that does
// not parse was cut off mid-write: no error, it is noted in CutOff. When a
// line before it is broken, the events read before that come back along
// with the error.
func ReadRecording(r io.Reader) (Recording, error) {
	var rec Recording
	data, err := io.ReadAll(r)
	if err != nil {
		return rec, err
	}
	if i := bytes.LastIndexByte(data, '\n'); len(data) > 0 && data[len(data)-1] != '\n' && i >= 0 && !json.Valid(data[i+1:]) {
		rec.CutOff = bytes.Count(data, []byte("\n")) + 1
		data = data[:i+1]
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			if err := json.Unmarshal(sc.Bytes(), &rec.Header); err != nil || rec.Header.Format != RecordingFormat {
				return rec, fmt.Errorf("line 1: not an informer-walkthrough recording (want a %q header)", RecordingFormat)
			}
			if rec.Header.Version == 1 {
				return rec, fmt.Errorf("line 1: recording version 1 holds printed text only, which this program no longer reads (it reads version %d): record it again with --record", RecordingVersion)
			}
			if rec.Header.Version != RecordingVersion {
				return rec, fmt.Errorf("line 1: recording version %d is unknown (this program reads version %d)", rec.Header.Version, RecordingVersion)
			}
			continue
		}
		var e show.Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return rec, fmt.Errorf("line %d: %v", line, err)
		}
		if e.Seq == 0 {
			return rec, fmt.Errorf("line %d: an event without a seq", line)
		}
		rec.Events = append(rec.Events, e)
	}
	if err := sc.Err(); err != nil {
		return rec, fmt.Errorf("line %d: %v", line+1, err)
	}
	if line == 0 {
		return rec, errors.New("line 1: the recording is empty")
	}
	return rec, nil
}
