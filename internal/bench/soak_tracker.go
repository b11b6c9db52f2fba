package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/mcpwasm/mcpwasm/abi"
)

// tracker counts the answers to every call id and checks each one.
type tracker struct {
	mu      sync.Mutex
	n       int
	counts  []int32
	tools   []soakTool
	waiting map[int]chan struct{}
	run     SoakRun // Outcomes, Unexpected, Examples, Stray, Garbage
}

func newTracker(n int) *tracker {
	return &tracker{n: n, counts: make([]int32, n+1), tools: make([]soakTool, n+1), waiting: map[int]chan struct{}{},
		run: SoakRun{Outcomes: map[string]map[string]int{}}}
}

func (t *tracker) expect(id int, tool soakTool) chan struct{} {
	ch := make(chan struct{}, 1)
	t.mu.Lock()
	t.tools[id] = tool
	t.waiting[id] = ch
	t.mu.Unlock()
	return ch
}

func (t *tracker) giveUp(id int) {
	t.mu.Lock()
	delete(t.waiting, id)
	t.mu.Unlock()
}

// waitAnswered waits until no call is waiting, up to d.
func (t *tracker) waitAnswered(ctx context.Context, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		t.mu.Lock()
		n := len(t.waiting)
		t.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// soakMsg is what the tracker reads of a JSON-RPC message.
type soakMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result *struct {
		IsError bool           `json:"isError"`
		Meta    map[string]any `json:"_meta"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// deliver records one message from the server (a stdout line or an SSE
// event's data).
func (t *tracker) deliver(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return
	}
	var m soakMsg
	if err := json.Unmarshal(raw, &m); err != nil {
		t.mu.Lock()
		t.run.Garbage++
		t.example("not JSON-RPC: %.200s", raw)
		t.mu.Unlock()
		return
	}
	if m.Method != "" || len(m.ID) == 0 {
		return // a notification or a request from the server
	}
	id, err := strconv.Atoi(string(m.ID))
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || id < 1 || id > t.n || t.tools[id].plugin == "" {
		if string(m.ID) != `"init"` {
			t.run.Stray++
			t.example("answer with an unknown id: %.200s", raw)
		}
		return
	}
	t.counts[id]++
	if ch, ok := t.waiting[id]; ok {
		delete(t.waiting, id)
		ch <- struct{}{}
	}
	if t.counts[id] > 1 {
		return // counted as duplicated; its outcome was recorded once
	}
	tool := t.tools[id]
	outcome := "ok"
	switch {
	case m.Error != nil:
		outcome = fmt.Sprintf("rpc %d", m.Error.Code)
	case m.Result == nil:
		outcome = "no result"
	case m.Result.IsError:
		outcome, _ = m.Result.Meta[abi.MetaErrorKey].(string)
		if outcome == "" {
			outcome = "isError without category"
		}
	}
	if t.run.Outcomes[tool.plugin] == nil {
		t.run.Outcomes[tool.plugin] = map[string]int{}
	}
	t.run.Outcomes[tool.plugin][outcome]++
	switch {
	case outcome != tool.want && outcome != "busy":
		t.run.Unexpected++
		t.example("call %d to %s: %s, want %s: %.300s", id, tool.plugin, outcome, tool.want, raw)
	case outcome == "ok" && !bytes.Contains(raw, []byte(fmt.Sprintf(`"soak-%d"`, id))):
		t.run.Unexpected++
		t.example("call %d: the echo does not carry its own arguments: %.300s", id, raw)
	}
}

// sendError records a request that could not be sent or read back.
func (t *tracker) sendError(id int, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.run.SendErrors++
	t.example("call %d to %s: %v", id, t.tools[id].plugin, err)
}

// example keeps the first few unexpected messages (t.mu held).
func (t *tracker) example(format string, args ...any) {
	if len(t.run.Examples) < 10 {
		t.run.Examples = append(t.run.Examples, fmt.Sprintf(format, args...))
	}
}

// fill copies the counts into run.
func (t *tracker) fill(run *SoakRun) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id := 1; id <= t.n; id++ {
		switch t.counts[id] {
		case 0:
			run.Lost++
			if run.Lost <= 3 {
				t.example("call %d to %s: no answer", id, t.tools[id].plugin)
			}
		case 1:
			run.AnsweredOnce++
		default:
			run.Duplicated++
		}
	}
	run.Stray, run.Garbage, run.Outcomes, run.Unexpected = t.run.Stray, t.run.Garbage, t.run.Outcomes, t.run.Unexpected
	run.SendErrors = t.run.SendErrors
	run.Examples = t.run.Examples
}
