package main

import (
	"testing"
	"time"

	"github.com/informer-walkthrough/informer-walkthrough/internal/scene"
	"github.com/informer-walkthrough/informer-walkthrough/internal/testenv"
)

// 情境：演練「這次同步為什麼會跑？」。--why --sync-time 3s：第一次同步說它是為了初始清單的 OnAdd；
// 同步的三秒裡標籤變了兩次，兩個變化都讓 key 排進佇列（正在同步，所以 Done 之後再交出去一次），
// 下一次同步先說它是為了這兩個 OnUpdate，合在一起，然後讀到最新的標籤。
//
// The story: the drill "why did this sync run?". --why --sync-time 3s: the
// first sync says it is for the initial list's OnAdd; during its three
// seconds the label changes twice, both changes queue the key (it is being
// synced, so it is handed out again after Done), and the next sync first
// says it is for those two OnUpdates together, then reads the latest label.
func TestWhyDrill(t *testing.T) {
	ctx := t.Context()
	c := testenv.Plain(t)
	cs, ns := c.Client(), c.Namespace(t)
	testenv.CreatePod(t, cs, ns, "busy", map[string]string{"v": "1"})
	opts := defaults
	opts.why = true
	opts.syncTime = 3 * time.Second
	out := startStep(t, ns, opts)
	out.Wait(t, 1, "-- worker1: "+ns+"/busy synced for 1 event(s) since its last sync: OnAdd")
	out.Wait(t, 1, " sync      "+ns+"/busy ", "labels=v=1")
	for _, v := range []string{"2", "3"} {
		if _, err := scene.Label(ctx, cs, ns, "busy", "v", &v); err != nil {
			t.Fatal(err)
		}
	}
	out.Wait(t, 1, " sync      "+ns+"/busy ", "labels=v=3")
	testenv.WantOrder(t, out.String(),
		"-- worker1: "+ns+"/busy synced for 2 event(s) since its last sync: OnUpdate (labels v=1 -> v=2), OnUpdate (labels v=2 -> v=3)",
		" sync      "+ns+"/busy ", "labels=v=3")
}
