// step07-controller-runtime 把步驟 06 的 PodTally 控制器改寫成 controller-runtime 的 Reconciler：
// 同一個資源、同一個情境、同樣的 status，一行一行可以對照。
//
// step07-controller-runtime rewrites step 06's PodTally controller as a
// controller-runtime Reconciler: the same resource, the same scene, the same
// status, comparable line by line.
//
//	go run ./step07-controller-runtime [-n NAMESPACE] [--workers 1] [--leader-elect [--lease-duration 15s]] [--metrics-bind-address 127.0.0.1:8080] [--recount 10m]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	opts := options{workers: 1, leaseDuration: 15 * time.Second, metricsAddr: "0", recount: 10 * time.Minute}
	cli.Main(cli.Step{
		Name:            "step07-controller-runtime",
		Pipeline:        pipeline,
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opts.workers, "workers", 1, "MaxConcurrentReconciles: how many reconciles run in parallel")
			fs.BoolVar(&opts.leaderElect, "leader-elect", false, "take part in leader election (a Lease in the namespace): only the leader reconciles")
			fs.DurationVar(&opts.leaseDuration, "lease-duration", 15*time.Second, "with --leader-elect: how long a lease lasts without renewal (renewal deadline 2/3 of it)")
			fs.StringVar(&opts.metricsAddr, "metrics-bind-address", "0", `serve the manager's /metrics here, for example 127.0.0.1:8080 (loopback only; "0": off)`)
			fs.DurationVar(&opts.recount, "recount", 10*time.Minute, "RequeueAfter: recount every tally this often even when nothing changed (0: never)")
		},
		Validate: func() error {
			if opts.workers < 1 {
				return errors.New("--workers must be at least 1")
			}
			if opts.leaseDuration < 3*time.Second {
				return errors.New("--lease-duration must be at least 3s")
			}
			if opts.recount < 0 {
				return errors.New("--recount must not be negative")
			}
			if opts.metricsAddr != "0" {
				host, _, err := net.SplitHostPort(opts.metricsAddr)
				if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
					return fmt.Errorf("--metrics-bind-address %q: give a loopback address and port, such as 127.0.0.1:8080", opts.metricsAddr)
				}
			}
			return nil
		},
	}, func(ctx context.Context, env *cli.Env) error {
		return run(ctx, env.Config, env.Namespace, opts, env.Out)
	})
}

// pipeline 是這一步在即時頁面（--ui）上的階段。workqueue 沒有深度：controller-runtime 預設的 priority queue
// 直接回報給 controller-runtime 自己的 metrics，不管 client-go 手上是哪個 provider，頁面的 metrics 拿不到它。
//
// pipeline is this step's stages on the live page (--ui). The workqueue has
// no depth: controller-runtime's default priority queue reports to
// controller-runtime's own metrics directly, whatever provider client-go
// holds, so the page's metrics never see it.
func pipeline() liveview.Pipeline {
	tallies := liveview.StageOf("tallies", "tallies")
	tallies.Opaque = true
	tallies.Caption = liveview.Text{
		En: "the manager's cache: a shared informer for PodTally; For with GenerationChangedPredicate",
		Zh: "manager 的快取：PodTally 的共享 informer；For 加上 GenerationChangedPredicate",
	}
	pods := liveview.StageOf("pods", "pods")
	pods.Opaque = true
	pods.Caption = liveview.Text{
		En: "the manager's cache: pods, metadata only (builder.OnlyMetadata); a map function finds the tallies",
		Zh: "manager 的快取：只看 metadata 的 Pod（builder.OnlyMetadata）；map 函式找出 tally",
	}
	workqueue := liveview.StageOf("workqueue")
	workqueue.Caption = liveview.Text{
		En: "the controller's priority queue; no depth here: it reports to controller-runtime's own metrics",
		Zh: "控制器的 priority queue；這裡沒有深度：它回報給 controller-runtime 自己的 metrics",
	}
	workers := liveview.StageOf("workers", "podtally")
	workers.Label = liveview.Text{En: "Reconcile", Zh: "Reconcile"}
	workers.Caption = liveview.Text{
		En: "MaxConcurrentReconciles goroutines calling TallyReconciler.Reconcile",
		Zh: "MaxConcurrentReconciles 個 goroutine 呼叫 TallyReconciler.Reconcile",
	}
	return liveview.Pipeline{
		Step:    "step07-controller-runtime",
		Title:   liveview.Text{En: "Step 07: the same controller in controller-runtime", Zh: "步驟 07：同一個控制器，用 controller-runtime 寫"},
		Chapter: liveview.Chapter("07-controller-runtime"),
		Stages:  []liveview.Stage{liveview.StageOf("api", "request"), tallies, pods, workqueue, workers},
		Panels:  []string{"workqueue"},
	}
}
