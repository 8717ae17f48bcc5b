package v1alpha1

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// 給產生器的標記（marker），跟下面的說明隔一行空白，go doc 就不會把它們當成說明：
// code-generator 讀 +genclient 與 +k8s:…，controller-gen 讀 +kubebuilder:…。
// Markers for the generators, one blank line apart from the doc comment
// below so that go doc does not take them for documentation: code-generator
// reads +genclient and +k8s:…, controller-gen reads +kubebuilder:….
// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tally;tallies,categories=informer-lab
// +kubebuilder:printcolumn:name="Selector",type=string,JSONPath=`.spec.selector`
// +kubebuilder:printcolumn:name="Count",type=integer,JSONPath=`.status.count`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// PodTally 數出它的 namespace 裡符合 spec.selector 的 Pod，結果寫在 status。
// 使用者寫 spec；控制器只寫 status（透過 status 子資源），從不寫 spec。
//
// PodTally counts the pods in its namespace that match spec.selector and
// writes the result to status. Users write spec; the controller writes only
// status (through the status subresource), never spec.
type PodTally struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PodTallySpec   `json:"spec"`
	Status PodTallyStatus `json:"status,omitempty"`
}

// PodTallySpec 是使用者要的：數哪些 Pod。
//
// PodTallySpec is what the user asks for: which pods to count.
type PodTallySpec struct {
	// Selector 是標籤選擇器，寫法與 kubectl -l 相同，例如 "app=demo" 或 "tier in (web,db)"。
	// 空字串選中 namespace 裡的每一個 Pod。
	//
	// Selector is a label selector in kubectl -l's syntax, for example
	// "app=demo" or "tier in (web,db)". The empty string selects every pod
	// in the namespace.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// PodTallyStatus 是控制器觀察到的。
//
// PodTallyStatus is what the controller observed.
type PodTallyStatus struct {
	// ObservedGeneration 是控制器最後一次處理的 metadata.generation。
	// ObservedGeneration is the metadata.generation the controller last acted on.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Count 是符合的 Pod 數。 / Count is how many pods match.
	// +optional
	Count int32 `json:"count"`
	// Pods 是符合的 Pod 名稱，依字母排序。 / Pods are the matching pods' names, sorted.
	// +optional
	// +listType=set
	Pods []string `json:"pods,omitempty"`
	// Conditions 只有一種，Ready：選擇器無法解析時為 False，並說明原因。
	// Conditions has one type, Ready: False with the reason when the selector does not parse.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// 給產生器的標記，跟 PodTally 的一樣。 / Markers for the generators, as PodTally's.
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:object:root=true

// PodTallyList 是 LIST 的回應。 / PodTallyList is what a LIST returns.
type PodTallyList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []PodTally `json:"items"`
}

// SameStatus 比較兩個 status，不看 condition 的 lastTransitionTime（每次算出來的都是現在）：步驟 06 與 07 的控制器
// 靠它決定要不要寫。
//
// SameStatus compares two statuses, ignoring the conditions'
// lastTransitionTime (a freshly computed one always says now): the
// controllers of steps 06 and 07 decide with it whether to write.
func SameStatus(a, b PodTallyStatus) bool {
	if a.ObservedGeneration != b.ObservedGeneration || a.Count != b.Count || !slices.Equal(a.Pods, b.Pods) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}
