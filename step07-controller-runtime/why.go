package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// whyLog 是演練「這次 Reconcile 為什麼會跑？」（--why），步驟 04 的 --why 搬到 controller-runtime：
// 每個讓 key 排進佇列的東西（tally 的事件、對應到它的 Pod 事件、被刪掉的報告、RequeueAfter、錯誤之後的重試）
// 都在放進佇列之前記下來；Reconcile 開始時說出從上一次 Reconcile 開始到現在記下的全部。nil 的 whyLog 什麼也不記。
//
// whyLog is the drill "why did this Reconcile run?" (--why), step 04's --why
// in controller-runtime: everything that queues a key (a tally's event, a
// pod event mapped to it, a deleted report, RequeueAfter, a retry after an
// error) is noted before it is queued, and a Reconcile says, as it begins,
// everything noted since the last one began. A nil whyLog notes nothing.
type whyLog struct {
	mu      sync.Mutex
	reasons map[string][]string
}

// newWhyLog 在 on 為 true 時回傳一個 whyLog，否則 nil。 / newWhyLog returns a whyLog when on is true, nil otherwise.
func newWhyLog(on bool) *whyLog {
	if !on {
		return nil
	}
	return &whyLog{reasons: map[string][]string{}}
}

// add 記下 key 排進佇列的一個理由。 / add notes one reason key was queued.
func (w *whyLog) add(key, reason string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.reasons[key] = append(w.reasons[key], reason)
}

// say 在 Reconcile 開始時印出 key 從上一次 Reconcile 開始到現在的理由，並清掉它們。
//
// say prints, as a Reconcile begins, key's reasons since the last one began,
// and clears them.
func (w *whyLog) say(out io.Writer, key string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	reasons := w.reasons[key]
	delete(w.reasons, key)
	w.mu.Unlock()
	if len(reasons) == 0 {
		return
	}
	show.With(show.At("podtally"), show.About(key)).Note(out, "podtally: %s reconciled for %d reason(s) since its last Reconcile: %s", key, len(reasons), strings.Join(reasons, ", "))
}

// after 記下 Reconcile 的結果會引來的下一次執行：錯誤之後的限速重試，或 RequeueAfter。
//
// after notes the next run a Reconcile's result brings: a rate-limited retry
// after an error, or RequeueAfter.
func (w *whyLog) after(key string, requeueAfter time.Duration, err error) {
	switch {
	case w == nil:
	case err != nil:
		w.add(key, "retry after an error ("+show.Reason(err)+")")
	case requeueAfter > 0:
		w.add(key, "RequeueAfter "+requeueAfter.String())
	}
}

// whyTallies 包住 tally 的 predicate：放行的事件在排進佇列之前記下理由。
//
// whyTallies wraps the tally predicate: an event it lets through notes its
// reason before it is queued.
func whyTallies(inner predicate.Predicate, why *whyLog) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc: func(e event.CreateEvent) bool {
			ok := inner.Create(e)
			if ok {
				why.add(show.Key(e.Object), fmt.Sprintf("tally OnAdd (generation %d)", e.Object.GetGeneration()))
			}
			return ok
		},
		UpdateFunc: func(e event.UpdateEvent) bool {
			ok := inner.Update(e)
			if ok {
				why.add(show.Key(e.ObjectNew), fmt.Sprintf("tally OnUpdate (generation %d -> %d)", e.ObjectOld.GetGeneration(), e.ObjectNew.GetGeneration()))
			}
			return ok
		},
		DeleteFunc: func(e event.DeleteEvent) bool {
			ok := inner.Delete(e)
			if ok {
				why.add(show.Key(e.Object), "tally OnDelete")
			}
			return ok
		},
		GenericFunc: inner.Generic,
	}
}

// whyReports 包住報告的 predicate：報告被刪掉時，在它的擁有者排進佇列之前記下理由。
//
// whyReports wraps the reports' predicate: a deleted report notes the
// reason before its owner is queued.
func whyReports(inner predicate.Predicate, why *whyLog) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  inner.Create,
		UpdateFunc:  inner.Update,
		GenericFunc: inner.Generic,
		DeleteFunc: func(e event.DeleteEvent) bool {
			ok := inner.Delete(e)
			if ok {
				if ref := metav1.GetControllerOf(e.Object); ref != nil {
					why.add(e.Object.GetNamespace()+"/"+ref.Name, "report "+show.Key(e.Object)+" OnDelete")
				}
			}
			return ok
		},
	}
}
