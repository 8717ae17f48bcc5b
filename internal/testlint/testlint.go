// Package testlint 檢查 repo 裡的測試怎麼寫（見 contexts_test.go）；這個檔案只放測試用的小工具。
//
// Package testlint checks how the repository's tests are written (see
// contexts_test.go); this file holds only small helpers for those tests.
package testlint

import (
	"os"
	"strconv"
)

// writeFile 寫入一個檔案。 / writeFile writes a file.
func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o600) }

// itoa 把行號寫成字串。 / itoa writes a line number as a string.
func itoa(n int) string { return strconv.Itoa(n) }
