// kindnetd 是 kind 的 kindnetd 的最小替身：kind v0.33.0 的 kindnetd 沒有以 Go 模組發布，
// 沒有 registry 的機器拿不到它。它只做讓 Pod 跑得起來的部分：依本節點的 spec.podCIDRs
// 寫出 /etc/cni/net.d/10-kindnet.conflist（ptp + host-local + portmap，節點映像檔裡就有這三個外掛），
// 並替其他每個節點的 podCIDR 維持一條經由該節點 InternalIP 的路由。
// 它不做 masquerade，不執行 NetworkPolicy，也不是 NRI 外掛。
//
// kindnetd is a minimal stand-in for kind's kindnetd: kind v0.33.0's kindnetd
// is not published as a Go module, so a machine without a registry cannot get
// it. It does only what pods need to run: it writes
// /etc/cni/net.d/10-kindnet.conflist from this node's spec.podCIDRs (ptp +
// host-local + portmap, the three plugins the node image ships) and keeps a
// route to every other node's podCIDRs through that node's InternalIP. It does
// not masquerade, enforce NetworkPolicy, or act as an NRI plugin.
package main

import (
	"context"
	"encoding/json"
	"log"
	"net"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/vishvananda/netlink"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// confPath 是 containerd 找 CNI 設定的地方。 / confPath is where containerd looks for the CNI config.
const confPath = "/etc/cni/net.d/10-kindnet.conflist"

func main() {
	cfg, err := rest.InClusterConfig()
	if err != nil {
		log.Fatalf("in-cluster config: %v", err)
	}
	// 跟 kindnetd 一樣直接連 API server，不必等 kube-proxy 把 Service 位址接通。
	// Like kindnetd, talk to the API server directly, without waiting for kube-proxy to wire the Service address.
	if ep := os.Getenv("CONTROL_PLANE_ENDPOINT"); ep != "" {
		cfg.Host = "https://" + ep
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	hostIP := os.Getenv("HOST_IP")
	log.Printf("kindnetd stand-in on %s, API server %s", hostIP, cfg.Host)
	for {
		if err := sync(client, hostIP); err != nil {
			log.Printf("sync: %v", err)
		}
		time.Sleep(10 * time.Second)
	}
}

// sync 寫出本節點的 CNI 設定，並加上通往其他節點 Pod 網段的路由。
//
// sync writes this node's CNI config and adds the routes to the other nodes' pod ranges.
func sync(client kubernetes.Interface, hostIP string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for i := range nodes.Items {
		node := &nodes.Items[i]
		ips := internalIPs(node)
		if slices.Contains(ips, hostIP) {
			if len(node.Spec.PodCIDRs) > 0 {
				if err := writeConf(node.Spec.PodCIDRs); err != nil {
					log.Printf("writing %s: %v", confPath, err)
				}
			}
			continue
		}
		for _, cidr := range node.Spec.PodCIDRs {
			_, dst, err := net.ParseCIDR(cidr)
			if err != nil {
				continue
			}
			for _, ip := range ips {
				gw := net.ParseIP(ip)
				if gw == nil || (gw.To4() == nil) != (dst.IP.To4() == nil) {
					continue
				}
				if err := netlink.RouteReplace(&netlink.Route{Dst: dst, Gw: gw}); err != nil {
					log.Printf("route to %s via %s: %v", dst, gw, err)
				}
			}
		}
	}
	return nil
}

func internalIPs(node *corev1.Node) []string {
	var ips []string
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ips = append(ips, a.Address)
		}
	}
	return ips
}

// writeConf 只在內容變了時寫檔，先寫暫存檔再改名，containerd 不會讀到寫了一半的檔案。
//
// writeConf writes only when the content changed, to a temporary file that is
// then renamed, so containerd never reads a half-written file.
func writeConf(podCIDRs []string) error {
	var ranges [][]map[string]string
	var routes []map[string]string
	for _, cidr := range podCIDRs {
		ranges = append(ranges, []map[string]string{{"subnet": cidr}})
		dst := "0.0.0.0/0"
		if ip, _, err := net.ParseCIDR(cidr); err == nil && ip.To4() == nil {
			dst = "::/0"
		}
		routes = append(routes, map[string]string{"dst": dst})
	}
	conf, err := json.MarshalIndent(map[string]any{
		"cniVersion": "0.4.0",
		"name":       "kindnet",
		"plugins": []any{
			map[string]any{
				"type":   "ptp",
				"ipMasq": false,
				"mtu":    1500,
				"ipam": map[string]any{
					"type":    "host-local",
					"dataDir": "/run/cni-ipam-state",
					"routes":  routes,
					"ranges":  ranges,
				},
			},
			map[string]any{"type": "portmap", "capabilities": map[string]bool{"portMappings": true}},
		},
	}, "", "  ")
	if err != nil {
		return err
	}
	if old, err := os.ReadFile(confPath); err == nil && string(old) == string(conf) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(confPath), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(confPath+".tmp", conf, 0o644); err != nil {
		return err
	}
	log.Printf("writing %s for %v", confPath, podCIDRs)
	return os.Rename(confPath+".tmp", confPath)
}
