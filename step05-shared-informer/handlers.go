package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// printer 是 v0.37 寫處理函式的方式（它跟得上，所以它看到的就是快取此刻的內容：頁面的快取表格從它來）：PodDetailedHandlerFuncs 就是
// cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod]，拿到的已經是 *corev1.Pod，不必型別斷言。
// 刪除拿到的是 DeletedPod（cache.DeletedObject[*corev1.Pod]），它把墓碑也包進來：見 deleted。
//
// printer is how v0.37 writes handlers (it keeps up, so what it sees is
// what the cache holds now: the page's cache table comes from it):
// PodDetailedHandlerFuncs is
// cache.TypedResourceEventHandlerDetailedFuncs[*corev1.Pod], so each call gets
// a *corev1.Pod, no type assertion. A delete gets a DeletedPod
// (cache.DeletedObject[*corev1.Pod]), which covers tombstones too: see
// deleted.
func printer(name string, out io.Writer, count *atomic.Int64) coreinformers.PodDetailedHandlerFuncs {
	return coreinformers.PodDetailedHandlerFuncs{
		AddFunc: func(pod *corev1.Pod, isInInitialList bool) {
			show.Line(out, name, "OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList),
				show.OpHandle, show.Cached(pod), show.Initial(isInInitialList))
			count.Add(1)
		},
		UpdateFunc: func(old, pod *corev1.Pod) {
			show.Line(out, name, "OnUpdate", show.Key(pod), show.Changes(old, pod), show.OpHandle, show.Cached(pod))
			count.Add(1)
		},
		DeleteFunc: func(d coreinformers.DeletedPod) {
			show.Line(out, name, "OnDelete", d.GetKey(), deleted(d), show.OpHandle, show.Uncached(d.OptionalObj))
			count.Add(1)
		},
	}
}

// deleted 說明 DeletedObject 帶來了什麼。FinalStateUnknown 是 nil 時，OptionalObj 就是刪除時的最後狀態；
// 不是 nil 時，informer 沒看到刪除事件本身（之後重新 List 才發現），OptionalObj 可能過時，甚至是 nil。
// GetKey 與 GetObjectName 三種情況都可靠。
//
// deleted says what a DeletedObject brought. With FinalStateUnknown nil,
// OptionalObj is the final state; otherwise the informer missed the delete
// event itself (a relist found the pod gone later) and OptionalObj may be
// stale, or nil. GetKey and GetObjectName work in all three cases.
func deleted(d coreinformers.DeletedPod) string {
	switch {
	case d.FinalStateUnknown == nil:
		return "final state: " + show.Pod(d.OptionalObj)
	case d.OptionalObj == nil:
		return "tombstone without an object: only the key is known"
	default:
		return "tombstone; last known, maybe stale: " + show.Pod(d.OptionalObj)
	}
}

// slowHandler 是一個慢的處理函式：每個事件先等 opts.slow，才印出來，並說它落後 printer 幾個事件。
// 每個處理函式有自己的 processorListener（自己的 goroutine 加一個無上限的環形緩衝區），
// 所以 printer 不等它；它還沒處理的通知就排在自己的緩衝區裡，代價是記憶體，不會對 informer 造成背壓。
//
// slowHandler is a slow handler: it waits opts.slow before printing each
// event, and says how many events it is behind printer. Each handler has a
// processorListener of its own (goroutines of its own and an unbounded ring buffer),
// so printer does not wait for it; the notifications it has not handled wait
// in its own buffer, which costs memory and never pushes back on the
// informer.
func slowHandler(ctx context.Context, opts options, out io.Writer, printed *atomic.Int64) coreinformers.PodDetailedHandlerFuncs {
	wait := opts.slowWait
	if wait == nil {
		wait = func(ctx context.Context) bool {
			select {
			case <-time.After(opts.slow):
				return true
			case <-ctx.Done():
				return false
			}
		}
	}
	// done 不必加鎖：同一個處理函式的呼叫由它的 processorListener 一個接一個送來，從不並行。
	// done needs no lock: one handler's calls come one after another from its processorListener, never at once.
	var done int64
	// 它說的是過去（Behind）：頁面把它畫成自己那條 lane 上的舊狀態，不拿它當快取現在的樣子。
	// It tells of the past (Behind): the page draws it as an old state in its own lane, never as what the cache holds now.
	line := func(what, key, detail string, saw show.Field) {
		done++
		behind := printed.Load() - done
		show.Line(out, "slow", what, key, fmt.Sprintf("%s [%d behind printer]", detail, behind), show.OpHandle, saw, show.Behind(behind))
	}
	return coreinformers.PodDetailedHandlerFuncs{
		AddFunc: func(pod *corev1.Pod, isInInitialList bool) {
			if wait(ctx) {
				line("OnAdd", show.Key(pod), show.Pod(pod)+show.InitialList(isInInitialList), show.Saw(pod))
			}
		},
		UpdateFunc: func(old, pod *corev1.Pod) {
			if wait(ctx) {
				line("OnUpdate", show.Key(pod), show.Changes(old, pod), show.Saw(pod))
			}
		},
		DeleteFunc: func(d coreinformers.DeletedPod) {
			if wait(ctx) {
				line("OnDelete", d.GetKey(), deleted(d), show.Gone(d.OptionalObj))
			}
		},
	}
}

// lateHandler 在 Start 之後才加一個處理函式。informer 已經在跑，這個處理函式錯過了初始清單，
// 所以 informer 把快取裡現有的每個物件當作「合成的」新增交給它，標記為初始清單的一部分；
// 它的 handle 在這些都處理完之後才 HasSynced。然後用 RemoveEventHandler 移除它：不再有新的事件排給它
// （移除是非同步的：已經在執行的那一次呼叫仍會做完）。
//
// lateHandler adds a handler after Start. The informer is already running
// and the handler missed the initial list, so the informer hands it every
// object now in the cache as a synthetic add, marked as part of the initial
// list; its handle has synced only once those have run. Then
// RemoveEventHandler removes it: no new events are queued for it (removal is
// asynchronous: a call already under way still finishes).
func lateHandler(ctx context.Context, pods coreinformers.TypedPodInformer, out io.Writer) error {
	var got atomic.Int64
	reg, err := pods.TypedInformer().AddTypedEventHandler(printer("late", out, &got))
	if err != nil {
		return err
	}
	if !cache.WaitFor(ctx, "", reg.HasSyncedChecker()) {
		return nil
	}
	if err := pods.Informer().RemoveEventHandler(reg); err != nil {
		return err
	}
	show.With(show.At("late")).Note(out, "late: added after Start, it got the %s in the cache as synthetic adds (initial list); RemoveEventHandler: no new events are queued for it", show.Pods(int(got.Load())))
	return nil
}
