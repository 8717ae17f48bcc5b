//go:build race

package testenv

// RaceEnabled 說這個測試執行檔是不是帶著 race detector 建的（go test -race）；是的話，Build 也用 -race
// 建步驟的執行檔，讓以執行檔跑的測試一樣在 detector 底下。
//
// RaceEnabled says whether this test binary was built with the race detector
// (go test -race); if so, Build builds the step's binary with -race too, so
// the tests that run the binary are under the detector as well.
const RaceEnabled = true
