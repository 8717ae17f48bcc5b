package excerpt

import (
	"regexp"
	"strings"
)

var (
	han = regexp.MustCompile(`\p{Han}`)
	// directive 是 //go:、//lint: 這類給工具看的指示：它們不是說明，原樣留著。
	// directive matches tool directives such as //go: and //lint:: they are not prose and stay as they are.
	directive = regexp.MustCompile(`^//[a-z]+:`)
)

// OneLanguage 只留下程式碼註解裡一種語言的部分：zh 為 true 時留繁體中文，否則留英文。這個 repo 的註解區塊
// 都是先中文、後英文（internal/bilingual 檢查每個區塊兩者都有），所以一個區塊裡最後一行含漢字的行之前是中文，
// 之後是英文；單行的「中文 / English」從 " / " 切開。分不出來的區塊原樣保留。程式碼一個字都不動。
//
// OneLanguage keeps one language of the code's comments: Traditional
// Chinese when zh is true, English otherwise. This repository's comment
// blocks put the Chinese first and the English after it (internal/bilingual
// checks that every block has both), so in a block everything up to the
// last line with a Han character is Chinese and the rest is English; a
// single line "中文 / English" is cut at " / ". A block it cannot split is
// kept whole. The code itself is not touched.
func OneLanguage(src string, zh bool) string {
	lines := strings.Split(src, "\n")
	var out []string
	for i := 0; i < len(lines); {
		indent, ok := commentIndent(lines[i])
		if !ok {
			out = append(out, lines[i])
			i++
			continue
		}
		j := i
		for j < len(lines) {
			if in, ok := commentIndent(lines[j]); !ok || in != indent {
				break
			}
			j++
		}
		out = append(out, pick(lines[i:j], indent, zh)...)
		i = j
	}
	return strings.Join(out, "\n")
}

// commentIndent 回傳一整行 // 註解前面的縮排；不是註解行（或是指示）時 ok 為 false。
//
// commentIndent returns the indentation before a line that is a whole //
// comment; ok is false for any other line, directives included.
func commentIndent(line string) (indent string, ok bool) {
	trimmed := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(trimmed, "//") || directive.MatchString(trimmed) {
		return "", false
	}
	return line[:len(line)-len(trimmed)], true
}

// pick 從一個註解區塊裡挑出一種語言的行。區塊以空白的 // 行分段：含漢字的段落是中文，其他文字段落是英文，
// 縮排的段落（程式碼、圖）跟著它前面那一段的語言。一段裡先中文後英文、中間沒有空行時，從最後一行含漢字的行之後切開。
//
// pick picks one language's lines out of a comment block. Blank // lines
// divide the block into paragraphs: a paragraph with Han characters is
// Chinese, other prose is English, and an indented paragraph (code, a
// diagram) goes with the language of the paragraph before it. A paragraph
// of Chinese lines followed by English ones with no blank line between is
// cut after its last line with a Han character.
func pick(block []string, indent string, zh bool) []string {
	text := func(line string) string { return strings.TrimPrefix(strings.TrimPrefix(line, indent), "//") }
	if len(block) == 1 {
		if before, after, ok := strings.Cut(text(block[0]), " / "); ok && han.MatchString(before) && !han.MatchString(after) {
			if zh {
				return []string{indent + "//" + before}
			}
			return []string{indent + "// " + strings.TrimSpace(after)}
		}
		return block
	}
	var paragraphs [][]string
	start := 0
	for k := 0; k <= len(block); k++ {
		if k == len(block) || strings.TrimSpace(text(block[k])) == "" {
			if k > start {
				paragraphs = append(paragraphs, block[start:k])
			}
			start = k + 1
		}
	}
	var chinese, english [][]string
	lastZh := true
	for _, para := range paragraphs {
		last := -1
		for k, line := range para {
			if han.MatchString(line) {
				last = k
			}
		}
		indented := strings.HasPrefix(text(para[0]), "\t") || strings.HasPrefix(text(para[0]), "  ")
		switch {
		case last < 0 && indented:
			if lastZh {
				chinese = append(chinese, para)
			} else {
				english = append(english, para)
			}
		case last < 0:
			english, lastZh = append(english, para), false
		case last == len(para)-1:
			chinese, lastZh = append(chinese, para), true
		default:
			chinese, english, lastZh = append(chinese, para[:last+1]), append(english, para[last+1:]), false
		}
	}
	if len(chinese) == 0 || len(english) == 0 {
		return block
	}
	chosen := english
	if zh {
		chosen = chinese
	}
	var out []string
	for k, para := range chosen {
		if k > 0 {
			out = append(out, indent+"//")
		}
		out = append(out, para...)
	}
	return out
}
