package liveview

// CutOff 讓測試確定地重現「訂閱者跟不上被斷開」，不必靠時序。
//
// CutOff lets tests reproduce a subscriber being cut off for falling behind
// deterministically, without relying on timing.
func (h *Hub) CutOff() { h.cutOff() }
