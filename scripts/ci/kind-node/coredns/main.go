// coredns 是只帶 kubeadm 的 Corefile 用到的外掛的 CoreDNS v1.14.6：errors、health、ready、kubernetes、
// prometheus、forward、cache、loop、reload、loadbalance。上游的 coredns 執行檔帶著全部約六十個外掛
// （route53、azure、clouddns、dnstap、trace 等等），多拉進雲端的 SDK，建置時間是這裡的好幾倍；
// 節點裡的 CoreDNS 只會讀 kubeadm 寫的那份 Corefile。這是 CoreDNS 文件說的「以外部的 Go 原始碼建置」：
// 匯入 coremain 與要的外掛，外掛的順序仍由 CoreDNS 自己的 dnsserver.Directives 決定。
// build-kind-node-image.sh 建好它之後，跟 kubeadm 原始碼裡的 Corefile 逐一核對外掛，少一個就失敗。
//
// coredns is CoreDNS v1.14.6 with only the plugins kubeadm's Corefile uses:
// errors, health, ready, kubernetes, prometheus, forward, cache, loop, reload
// and loadbalance. The upstream coredns binary carries all sixty or so plugins
// (route53, azure, clouddns, dnstap, trace and more), which pull in the cloud
// SDKs and take several times as long to build; the CoreDNS in the node only
// ever reads the Corefile kubeadm writes. This is what CoreDNS's docs call
// building with external Go source: import coremain and the plugins you want;
// the plugins' order still comes from CoreDNS's own dnsserver.Directives.
// After building it, build-kind-node-image.sh checks its plugins one by one
// against the Corefile in kubeadm's source, and fails if one is missing.
package main

import (
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() {
	coremain.Run()
}
