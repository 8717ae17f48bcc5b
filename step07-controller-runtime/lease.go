package main

import (
	"context"
	"io"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// leaseAge 是 --show-lease：這個副本還不是 leader 時，每秒讀一次 Lease，說出誰拿著它、上次續約是多久以前，
// 旁邊是續約期限與租約期限。leader 還活著時，這段時間在零與一個重試間隔之間來回；leader 被凍住（SIGSTOP）時，
// 距上次續約的時間一路增加；這個副本從它第一次看到那次續約起算租約期限，所以在這段時間比租約期限多一點
// （最多大約兩個加上抖動的重試間隔）時取得 Lease，印出 elected leader，這個 runnable 也就停了。
// 它每秒經 APIReader 直接讀一次 API server：這是演練用的顯示，真正的控制器不該這樣輪詢。
//
// leaseAge is --show-lease: while this replica is not the leader, it reads
// the Lease every second and says who holds it and how long ago it was last
// renewed, beside the renew deadline and the lease duration. With the
// leader alive the age stays between zero and one retry period; with the
// leader frozen (SIGSTOP) it keeps growing; this replica counts the lease
// duration from when it first saw that renewal, so it takes the Lease when
// the age is a little past the lease duration (by up to about two jittered
// retries), prints elected leader, and this runnable stops. It reads the API server directly through
// the APIReader once a second: a display for the drill, not a poll a real
// controller should make.
type leaseAge struct {
	mgr       manager.Manager
	namespace string
	opts      options
	out       io.Writer
}

// NeedLeaderElection 回傳 false：它正是在沒當上 leader 的副本裡執行。
//
// NeedLeaderElection returns false: it runs precisely in the replicas that
// are not the leader.
func (l leaseAge) NeedLeaderElection() bool { return false }

func (l leaseAge) Start(ctx context.Context) error {
	renew := l.opts.leaseDuration * 2 / 3
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-l.mgr.Elected():
			return nil
		case <-tick.C:
		}
		var lease coordinationv1.Lease
		if err := l.mgr.GetAPIReader().Get(ctx, types.NamespacedName{Namespace: l.namespace, Name: leaseName}, &lease); err != nil {
			show.Note(l.out, "lease %s: %v", leaseName, err)
			continue
		}
		holder, age := "nobody", "never renewed"
		if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity != "" {
			holder = *lease.Spec.HolderIdentity
		}
		if lease.Spec.RenewTime != nil {
			age = "renewed " + time.Since(lease.Spec.RenewTime.Time).Round(100*time.Millisecond).String() + " ago"
		}
		show.Note(l.out, "lease %s: held by %s, %s (renew deadline %s, lease duration %s)", leaseName, holder, age, renew.Round(100*time.Millisecond), l.opts.leaseDuration)
	}
}
