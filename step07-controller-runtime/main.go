// step07-controller-runtime 把步驟 06 的 PodTally 控制器改寫成 controller-runtime 的 Reconciler：
// 同一個資源、同一個場景、同樣的 status，一行一行可以對照。
//
// step07-controller-runtime rewrites step 06's PodTally controller as a
// controller-runtime Reconciler: the same resource, the same scene, the same
// status, comparable line by line.
//
//	go run ./step07-controller-runtime [-n NAMESPACE] [--workers 1] [--leader-elect [--lease-duration 15s]] [--metrics-bind-address 127.0.0.1:8080] [--recount 10m] [--reread-on-conflict]
//	    [--sync-period 5s [--reconcile-resyncs]] [--read-service NAME [--fail-on-missing-informer]] [--stamp] [--no-predicate]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/informer-walkthrough/informer-walkthrough/internal/cli"
	"github.com/informer-walkthrough/informer-walkthrough/internal/liveview"
)

func main() {
	opts := options{workers: 1, leaseDuration: 15 * time.Second, metricsAddr: "0", recount: 10 * time.Minute}
	cli.Main(cli.Step{
		Name:            "step07-controller-runtime",
		Pipeline:        func() liveview.Pipeline { return page(opts) },
		RidesOutOutages: true,
		Flags: func(fs *flag.FlagSet) {
			fs.IntVar(&opts.workers, "workers", 1, "MaxConcurrentReconciles: how many reconciles run in parallel")
			fs.BoolVar(&opts.leaderElect, "leader-elect", false, "take part in leader election (a Lease in the namespace): only the leader reconciles")
			fs.DurationVar(&opts.leaseDuration, "lease-duration", 15*time.Second, "with --leader-elect: how long a lease lasts without renewal (renewal deadline 2/3 of it)")
			fs.StringVar(&opts.metricsAddr, "metrics-bind-address", "0", `serve the manager's /metrics here, for example 127.0.0.1:8080 (loopback only; "0": off)`)
			fs.DurationVar(&opts.recount, "recount", 10*time.Minute, "RequeueAfter: recount every tally this often even when nothing changed (0: never)")
			fs.DurationVar(&opts.syncPeriod, "sync-period", 0, "the manager cache's SyncPeriod: resync every informer this often (0: controller-runtime's default, 10h); with GenerationChangedPredicate no resync reconciles")
			fs.BoolVar(&opts.reconcileResyncs, "reconcile-resyncs", false, "let resyncs (updates whose resourceVersion did not change) through the tally predicate, so --sync-period reconciles")
			fs.StringVar(&opts.readService, "read-service", "", "drill: every Reconcile reads this Service through the cached client, a kind the controller does not watch (--trace shows the informer that starts)")
			fs.BoolVar(&opts.failOnMissingInformer, "fail-on-missing-informer", false, "ReaderFailOnMissingInformer: a cached read of a kind with no informer fails instead of starting one")
			fs.BoolVar(&opts.stamp, "stamp", false, "drill: every Reconcile writes the time into status, so status always changes (with --no-predicate: a reconcile storm)")
			fs.BoolVar(&opts.noPredicate, "no-predicate", false, "drill: drop GenerationChangedPredicate, so the controller's own writes reconcile again")
			fs.BoolVar(&opts.showLease, "show-lease", false, "drill: with --leader-elect, a replica that is not the leader prints the Lease's age every second until it takes over")
			fs.DurationVar(&opts.watchDelay, "watch-delay", 0, "drill: hand every watch event to the cache this much late, and read each status write back through the cache at once (0: off)")
			fs.BoolVar(&opts.readYourWrites, "read-your-writes", false, "client.CacheOptions.EnableReadYourWritesConsistency: a cached read first waits until the cache has seen this client's own writes")
			fs.BoolVar(&opts.why, "why", false, "drill: as each Reconcile begins, say what queued its key since the last one (events, RequeueAfter, retries)")
			fs.BoolVar(&opts.rereadOnConflict, "reread-on-conflict", false, "after a 409 Conflict on the status write, read the tally again through the APIReader (one uncached GET) instead of returning the error for a requeue")
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
			if opts.watchDelay < 0 {
				return errors.New("--watch-delay must not be negative")
			}
			if opts.showLease && !opts.leaderElect {
				return errors.New("--show-lease needs --leader-elect")
			}
			if opts.readService != "" {
				if errs := validation.IsDNS1035Label(opts.readService); len(errs) > 0 {
					return fmt.Errorf("--read-service %q is not a Service name: %s", opts.readService, errs[0])
				}
			}
			if opts.syncPeriod != 0 && opts.syncPeriod < time.Second {
				return errors.New("--sync-period must be 0 or at least 1s (client-go's shortest resync)")
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
