package main

import (
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
	labv1alpha1 "github.com/informer-walkthrough/informer-walkthrough/step06-custom-resource/apis/lab/v1alpha1"
)

// recheck 是 --wait-for-cache 在 lister 還落後時，多久之後再看一次。
//
// recheck is how soon --wait-for-cache looks again while the lister is
// behind.
const recheck = 200 * time.Millisecond

// wrote 在一次 status 寫入成功之後呼叫：--watch-delay 時立刻從 lister 讀回，說出讀到的是不是剛寫的版本；
// --wait-for-cache 時記下這次寫入取代掉的 resourceVersion（base 的），讓 behind 認得出 lister 還沒跟上。
//
// wrote is called after a successful status write: with --watch-delay it
// reads the tally back from the lister at once and says whether that is the
// version just written; with --wait-for-cache it notes the resourceVersion
// the write replaced (base's), so behind can tell the lister has not caught
// up.
func (c *controller) wrote(worker string, key cache.ObjectName, base, written *labv1alpha1.PodTally) {
	if c.opts.waitForCache {
		c.replacedMu.Lock()
		c.replaced[key] = base.ResourceVersion
		c.replacedMu.Unlock()
	}
	if c.opts.watchDelay == 0 {
		return
	}
	got, err := c.tallies.get(key.Namespace, key.Name)
	if err != nil {
		show.Line(c.out, worker, "readback", key.String(), "Get from the lister: "+err.Error(), show.OpRead, show.From("tallies"))
		return
	}
	verdict := "the lister is behind: the write is not there yet"
	if got.ResourceVersion == written.ResourceVersion {
		verdict = "the lister has the write"
	}
	show.Line(c.out, worker, "readback", key.String(),
		fmt.Sprintf("Get from the lister: count %d (wrote %d); %s", got.Status.Count, written.Status.Count, verdict), show.OpRead, show.From("tallies"))
}

// behind 是 --wait-for-cache 的檢查，client-go 版的「期望」（expectations）：lister 給的 tally 如果還是這個控制器
// 上一次寫入取代掉的那一份（同一個 resourceVersion），那次寫入還沒回到快取，從它算出的東西都是舊的。這時不動作，
// 稍後再把 key 放回佇列。resourceVersion 只比相等，不比大小：它的格式不透明，只有伺服器能比較先後。
//
// behind is --wait-for-cache's check, client-go's version of
// "expectations": when the lister still hands out the very copy this
// controller's last write replaced (the same resourceVersion), that write
// has not come back to the cache yet, and anything worked out from the copy
// is stale. Then it does nothing and puts the key back in the queue
// shortly. resourceVersions are compared for equality only, never for order:
// their format is opaque, and only the server can order them.
func (c *controller) behind(worker string, key cache.ObjectName, cached *labv1alpha1.PodTally) bool {
	if !c.opts.waitForCache {
		return false
	}
	c.replacedMu.Lock()
	replaced, ok := c.replaced[key]
	if ok && replaced != cached.ResourceVersion {
		delete(c.replaced, key)
	}
	c.replacedMu.Unlock()
	if !ok || replaced != cached.ResourceVersion {
		return false
	}
	show.Line(c.out, worker, "sync", key.String(),
		fmt.Sprintf("the lister still has resourceVersion %s, which my last write replaced: not acting on it; again in %s", replaced, recheck),
		show.OpSkip, show.From("tallies"))
	c.queue.AddAfter(key, recheck)
	return true
}
