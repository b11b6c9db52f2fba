package main

import (
	"strconv"
	"strings"

	mcpwasm "github.com/mcpwasm/mcpwasm/sdk-guest/go"
)

const (
	maxDiffLines = 50000 // per text
	maxEdits     = 2000  // inserted plus deleted lines, after the common head and tail
)

func diffTool(c *mcpwasm.Call) (*mcpwasm.Result, error) {
	a := struct {
		A              string `json:"a"`
		B              string `json:"b"`
		Context        int    `json:"context_lines"`
		ALabel         string `json:"a_label"`
		BLabel         string `json:"b_label"`
		IgnoreTrailing bool   `json:"ignore_trailing_whitespace"`
	}{Context: 3, ALabel: "a", BLabel: "b"}
	if err := c.Bind(&a); err != nil {
		return nil, err
	}
	if a.Context < 0 || a.Context > 100 {
		return nil, errorf("context_lines must be between 0 and 100, not %d", a.Context)
	}
	al, bl := splitLines(a.A), splitLines(a.B)
	if len(al) > maxDiffLines || len(bl) > maxDiffLines {
		return nil, errorf("the texts have %d and %d lines; diff compares at most %d lines each, so diff smaller pieces", len(al), len(bl), maxDiffLines)
	}
	ops, ok := diffLines(al, bl, a.IgnoreTrailing)
	if !ok {
		return nil, errorf("the texts differ in more than %d lines; diff smaller pieces", maxEdits)
	}
	u := unified(ops, al, bl, a.ALabel, a.BLabel, a.Context)
	if u == "" {
		return mcpwasm.Text("no differences"), nil
	}
	return mcpwasm.Text(u), nil
}

// splitLines splits s into lines that keep their "\n"; the last line lacks
// it if s does not end with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// op is one line of the edit script: ' ' both texts have it, '-' only a,
// '+' only b. ai and bi index the lines in a and b.
type op struct {
	kind   byte
	ai, bi int
}

// diffLines is Myers' O((N+M)D) shortest edit script, after stripping the
// common head and tail. It gives up (false) past maxEdits changes, which
// also bounds its memory to about maxEdits² int32s.
func diffLines(a, b []string, ignoreTrailing bool) ([]op, bool) {
	ids := map[string]int32{}
	intern := func(lines []string) []int32 {
		out := make([]int32, len(lines))
		for i, l := range lines {
			if ignoreTrailing {
				l = strings.TrimRight(l, " \t\r\n")
			}
			id, ok := ids[l]
			if !ok {
				id = int32(len(ids))
				ids[l] = id
			}
			out[i] = id
		}
		return out
	}
	A, B := intern(a), intern(b)
	head := 0
	for head < len(A) && head < len(B) && A[head] == B[head] {
		head++
	}
	tail := 0
	for tail < len(A)-head && tail < len(B)-head && A[len(A)-1-tail] == B[len(B)-1-tail] {
		tail++
	}
	var ops []op
	for i := 0; i < head; i++ {
		ops = append(ops, op{' ', i, i})
	}
	mid, ok := myers(A[head:len(A)-tail], B[head:len(B)-tail])
	if !ok {
		return nil, false
	}
	for _, o := range mid {
		ops = append(ops, op{o.kind, o.ai + head, o.bi + head})
	}
	for i := 0; i < tail; i++ {
		ops = append(ops, op{' ', len(A) - tail + i, len(B) - tail + i})
	}
	return ops, true
}

func myers(A, B []int32) ([]op, bool) {
	n, m := len(A), len(B)
	if n+m == 0 {
		return nil, true
	}
	// trace[d] holds v[k] for k in [-d-1, d+1] as it was before step d.
	v := make([]int32, 2*(maxEdits+2)+1)
	off := maxEdits + 2
	var trace [][]int32
	for d := 0; d <= maxEdits; d++ {
		trace = append(trace, append([]int32(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = int(v[off+k+1])
			} else {
				x = int(v[off+k-1]) + 1
			}
			y := x - k
			for x < n && y < m && A[x] == B[y] {
				x, y = x+1, y+1
			}
			v[off+k] = int32(x)
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

func backtrack(trace [][]int32, x, y int) []op {
	var rev []op
	for d := len(trace) - 1; d >= 0; d-- {
		v := trace[d]
		at := func(k int) int { return int(v[k+d+1]) }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x, y = x-1, y-1
			rev = append(rev, op{' ', x, y})
		}
		if d == 0 {
			break
		}
		if x == prevX {
			rev = append(rev, op{'+', x, prevY})
		} else {
			rev = append(rev, op{'-', prevX, y})
		}
		x, y = prevX, prevY
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}

// unified formats an edit script as diff -u does: hunks of changes with
// ctx lines of context, merged when they are close. It returns "" when the
// script has no changes.
func unified(ops []op, a, b []string, aLabel, bLabel string, ctx int) string {
	var sb strings.Builder
	i := 0
	for {
		for i < len(ops) && ops[i].kind == ' ' {
			i++
		}
		if i == len(ops) {
			break
		}
		start := i - ctx
		if start < 0 {
			start = 0
		}
		// Extend the hunk while the next change is within 2*ctx lines.
		end, same := i, 0
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end, same = j, 0
				continue
			}
			if same++; same > 2*ctx {
				break
			}
		}
		stop := end + 1 + ctx
		if stop > len(ops) {
			stop = len(ops)
		}
		if sb.Len() == 0 {
			sb.WriteString("--- " + aLabel + "\n+++ " + bLabel + "\n")
		}
		writeHunk(&sb, ops[start:stop], a, b)
		i = stop
	}
	return sb.String()
}

func writeHunk(sb *strings.Builder, ops []op, a, b []string) {
	aStart, bStart, aLen, bLen := -1, -1, 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			if aStart < 0 {
				aStart = o.ai
			}
			aLen++
		}
		if o.kind != '-' {
			if bStart < 0 {
				bStart = o.bi
			}
			bLen++
		}
	}
	// An empty range is named by the line before it, as diff -u does.
	if aStart < 0 {
		aStart = ops[0].ai - 1
	}
	if bStart < 0 {
		bStart = ops[0].bi - 1
	}
	sb.WriteString("@@ -" + hunkRange(aStart, aLen) + " +" + hunkRange(bStart, bLen) + " @@\n")
	for _, o := range ops {
		line := ""
		switch o.kind {
		case '+':
			line = b[o.bi]
		default:
			line = a[o.ai]
		}
		sb.WriteByte(o.kind)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

func hunkRange(start, n int) string {
	switch n {
	case 0:
		return strconv.Itoa(start+1) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(n)
}
