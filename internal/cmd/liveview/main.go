// liveview 在沒有叢集時重播一個錄製檔（步驟以 --record 寫出的），或把它匯出成一個獨立的 HTML 檔。
// 學習者透過 scripts/liveview.sh 執行它。
//
// liveview replays a recording (what a step's --record wrote) with no
// cluster, or exports it as one self-contained HTML file. Learners run it
// through scripts/liveview.sh.
//
//	liveview replay [--ui=ADDR] FILE     serve the page from FILE until Ctrl-C
//	liveview export FILE OUT.html        write one HTML file that replays FILE opened from disk
//
// 錄製檔旁邊有同名的 .tour.json（demo.recording.jsonl 旁的 demo.tour.json）時，重播與匯出都帶著這份解說。
// A .tour.json of the same name beside the recording (demo.tour.json beside
// demo.recording.jsonl) goes with the replay and the export.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

const usage = "usage: scripts/liveview.sh replay [--ui=ADDR] FILE | export FILE OUT.html"

// errUsage 是用錯了指令：以 2 結束，跟步驟的旗標錯誤一樣。 / errUsage is a command used wrongly: exit 2, as a step's flag errors do.
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func main() {
	args := os.Args[1:]
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
		fmt.Println(usage)
		return
	}
	if err := run(args); err != nil {
		fmt.Fprintf(os.Stderr, "liveview: %v\n", err)
		if _, ok := err.(errUsage); ok {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 || (args[0] != "replay" && args[0] != "export") {
		return errUsage{usage}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(new(bytes.Buffer))
	addr := fs.String("ui", "127.0.0.1:0", "replay: where to serve the page")
	if err := fs.Parse(args[1:]); err != nil {
		return errUsage{fmt.Sprintf("%v (%s)", err, usage)}
	}
	want := map[string]int{"replay": 1, "export": 2}[args[0]]
	if fs.NArg() != want {
		return errUsage{usage}
	}
	if _, err := liveview.Remote(*addr); err != nil {
		return errUsage{fmt.Sprintf("--ui %q: %v", *addr, err)}
	}
	raw, err := os.ReadFile(fs.Arg(0))
	if err != nil {
		return err
	}
	rec, err := liveview.ReadRecording(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %v", fs.Arg(0), err)
	}
	if rec.CutOff > 0 {
		// 步驟沒有好好結束：用截斷那一行之前的事件，匯出的檔案也不帶那半行。
		// The step did not exit cleanly: use the events before the cut line, and leave the half line out of an export.
		raw = raw[:bytes.LastIndexByte(raw, '\n')+1]
		fmt.Fprintf(os.Stderr, "liveview: %s: line %d is cut off (the step did not exit cleanly); using the %d events before it\n", fs.Arg(0), rec.CutOff, len(rec.Events))
	}
	tour, err := liveview.TourBeside(fs.Arg(0), rec)
	if err != nil {
		return err
	}
	if args[0] == "export" {
		out, err := os.Create(fs.Arg(1))
		if err != nil {
			return err
		}
		if err := liveview.Export(raw, tour, out); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
		fmt.Printf("liveview: wrote %s (%d events of %s); open it in a browser, no network needed\n", fs.Arg(1), len(rec.Events), rec.Header.Pipeline.Step)
		return nil
	}
	// Ctrl-C 在網址印出之前就要接住：否則一印出就按下的 Ctrl-C 會讓程式被訊號殺掉，而不是好好結束。
	// Ctrl-C is caught before the URL is printed: otherwise a Ctrl-C pressed as soon as it shows kills the program by
	// the signal instead of letting it end cleanly.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	hub := liveview.NewHub()
	hub.Load(rec.Events)
	hub.Close()
	srv, err := liveview.Serve(*addr, hub, rec.Header.Pipeline, nil, liveview.WithTour(tour))
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(os.Stderr, "live view: %s (replaying %d events of %s; Ctrl-C to stop)\n", srv.URL, len(rec.Events), rec.Header.Pipeline.Step)
	<-ctx.Done()
	return nil
}
