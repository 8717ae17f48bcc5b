package scene

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/informer-walkthrough/informer-walkthrough/internal/show"
)

// settleTimeout 是等 Pod 跑起來或消失的上限。 / settleTimeout bounds the wait for a pod to run or to be gone.
const settleTimeout = 30 * time.Second

// gcTimeout 是等 garbage collector 刪掉擁有者留下的物件的上限：它每 30 秒才發現一次新的資源種類，
// 再加上處理的時間。
//
// gcTimeout bounds the wait for the garbage collector to delete what an
// owner left: it discovers new kinds of resource only every 30 seconds, plus
// the time to act.
const gcTimeout = 90 * time.Second

// commands 是每個指令接受的參數個數（max < 0 表示沒有上限）與用法。
//
// commands lists each command's argument count (max < 0: no limit) and usage.
var commands = map[string]struct {
	min, max int
	form     string
}{
	"create":   {1, -1, "NAME [KEY=VALUE ...]"},
	"label":    {2, 2, "NAME KEY=VALUE|KEY-"},
	"annotate": {2, 2, "NAME KEY=VALUE|KEY-"},
	"delete":   {1, 1, "NAME"},
	"demo":     {0, 0, ""},
	"burst":    {1, 1, "N"},
	"failing":  {1, 1, "N"},
	"reset":    {0, 0, ""},
	// 步驟 07：刪掉一個 tally 的報告（它的擁有者會再建一份），刪掉 tally 本身（它的 finalizer 先清理），
	// 以及像另一個寫入者那樣蓋掉 tally 的 status.count。
	// Step 07: delete a tally's report (its owner writes it again), the tally itself (its finalizer cleans up first),
	// and overwrite a tally's status.count as another writer would.
	"delete-configmap": {1, 1, "NAME"},
	"delete-tally":     {1, 1, "NAME"},
	"tally-count":      {2, 2, "NAME N"},
}

// CommandList 是錯誤訊息裡列出的指令（scene 指令沒有參數時也列出它）。 / CommandList is the commands an error message lists (scene's command too, when given none).
const CommandList = "create, label, annotate, delete, demo, burst, failing, reset, delete-configmap, delete-tally, tally-count"

// Check 在連線之前檢查指令與參數個數，錯誤的用法不會送出任何請求。
//
// Check checks the command and its argument count before connecting, so a
// wrong usage makes no request.
func Check(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("no command (%s)", CommandList)
	}
	c, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q (%s)", args[0], CommandList)
	}
	if n := len(args) - 1; n < c.min || (c.max >= 0 && n > c.max) {
		return fmt.Errorf("usage: scene %s %s", args[0], c.form)
	}
	if args[0] == "burst" || args[0] == "failing" {
		if n, err := strconv.Atoi(args[1]); err != nil || n < 1 || n > 1000 {
			return fmt.Errorf("%s: N must be a number from 1 to 1000, not %q", args[0], args[1])
		}
	}
	if args[0] == "tally-count" {
		if n, err := strconv.Atoi(args[2]); err != nil || n < 0 || n > 1000000 {
			return fmt.Errorf("tally-count: N must be a number from 0 to 1000000, not %q", args[2])
		}
	}
	return nil
}

// Settings 是 Run 需要的旗標值：demo 兩個變化之間的停頓，以及 create 直接綁定的節點（空字串表示交給 scheduler）。
//
// Settings are the flag values Run needs: the pause between demo's changes,
// and the node create binds to directly (empty: leave it to the scheduler).
type Settings struct {
	Pause time.Duration
	Node  string
}

// Run 執行一個 scene 指令（scripts/scene.sh 與即時頁面的按鈕都經過這裡），每做完一件事就呼叫 say 說一行。
// 先用 Check 檢查參數。
//
// Run runs one scene command (scripts/scene.sh and the live page's buttons
// both come through here), calling say with one line for each thing done.
// Check the arguments first with Check.
func Run(ctx context.Context, cs kubernetes.Interface, ns string, args []string, set Settings, say func(string)) error {
	cmd, args := args[0], args[1:]
	switch cmd {
	case "create":
		labels := map[string]string{}
		for _, kv := range args[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return fmt.Errorf("label %q is not KEY=VALUE", kv)
			}
			labels[k] = v
		}
		pod := Pod(ns, args[0], labels)
		pod.Spec.NodeName = set.Node
		// 等 Pod 跑起來（或沒有節點時不等），下一個變化才不會跟排程、kwok 的狀態更新交錯。
		// Wait until the pod runs (or not at all without nodes), so the next change does not interleave with scheduling and kwok's status updates.
		_, err := CreateRunning(ctx, cs, pod, settleTimeout, say)
		if apierrors.IsAlreadyExists(err) {
			// 照著 README 一步一步做時，before 早就在了：這不是錯誤。
			// Following the READMEs in order, before is already there: not an error.
			say(fmt.Sprintf("pod %s/%s already exists; leaving it as it is", ns, args[0]))
			return nil
		}
		if err != nil {
			return err
		}
		say(fmt.Sprintf("created pod %s/%s (%s)", ns, args[0], show.Labels(labels)))
	case "label", "annotate":
		key, value, err := parseChange(args[1])
		if err != nil {
			return err
		}
		change := Label
		if cmd == "annotate" {
			change = Annotate
		}
		if _, err := change(ctx, cs, ns, args[0], key, value); err != nil {
			return err
		}
		say(fmt.Sprintf("%s pod %s/%s %s", map[string]string{"label": "labelled", "annotate": "annotated"}[cmd], ns, args[0], args[1]))
	case "delete":
		if err := Delete(ctx, cs, ns, args[0]); err != nil {
			return err
		}
		if err := Settle(ctx, cs, ns, args[0], settleTimeout); err != nil {
			return err
		}
		say(fmt.Sprintf("deleted pod %s/%s", ns, args[0]))
	case "demo":
		steps := [][]string{
			{"create", "demo", "app=demo"},
			{"label", "demo", "tier=web"},
			{"delete", "demo"},
		}
		for i, s := range steps {
			if i > 0 {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(set.Pause):
				}
			}
			if err := Run(ctx, cs, ns, s, set, say); err != nil {
				return err
			}
		}
	case "burst":
		n, _ := strconv.Atoi(args[0])
		changed, err := Burst(ctx, cs, ns, n)
		if err != nil {
			return err
		}
		say(fmt.Sprintf("%d label changes (burst=1..%d), then burst- again, on %s", n, n, strings.Join(changed, " ")))
	case "failing":
		n, _ := strconv.Atoi(args[0])
		made, err := Failing(ctx, cs, ns, n)
		if err != nil {
			return err
		}
		say(fmt.Sprintf("created %d pods (failing-1..failing-%d) with informer-lab/fail=true; %d were there already", len(made), n, n-len(made)))
	case "delete-configmap":
		if err := DeleteConfigMap(ctx, cs, ns, args[0], settleTimeout); err != nil {
			return err
		}
		say(fmt.Sprintf("deleted configmap %s/%s", ns, args[0]))
	case "delete-tally":
		uid, err := DeleteTally(ctx, cs, ns, args[0], settleTimeout)
		if err != nil {
			return err
		}
		say(fmt.Sprintf("deleted podtally %s/%s (its finalizers were taken off first)", ns, args[0]))
		gone, err := OwnedConfigMapsGone(ctx, cs, ns, uid, gcTimeout)
		if err != nil {
			return err
		}
		if len(gone) > 0 {
			say(fmt.Sprintf("the garbage collector deleted what it owned: configmap %s", strings.Join(gone, ", ")))
		}
	case "tally-count":
		n, _ := strconv.Atoi(args[1])
		if err := SetTallyCount(ctx, cs, ns, args[0], n); err != nil {
			return err
		}
		say(fmt.Sprintf("set podtally %s/%s status.count to %d (a merge patch to the status subresource, as another writer would)", ns, args[0], n))
	case "reset":
		deleted, err := Reset(ctx, cs, ns, "before")
		if err != nil {
			return err
		}
		if len(deleted) == 0 {
			say(fmt.Sprintf("nothing to reset in %s", ns))
		} else {
			say(fmt.Sprintf("deleted %s from %s", strings.Join(deleted, " "), ns))
		}
	}
	return nil
}

// parseChange 讀取 kubectl 風格的 KEY=VALUE（設定）或 KEY-（移除）。
//
// parseChange reads kubectl's KEY=VALUE (set) or KEY- (remove) form.
func parseChange(s string) (string, *string, error) {
	if k, ok := strings.CutSuffix(s, "-"); ok && !strings.Contains(s, "=") {
		return k, nil, nil
	}
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return "", nil, fmt.Errorf("%q is neither KEY=VALUE nor KEY-", s)
	}
	return k, &v, nil
}
