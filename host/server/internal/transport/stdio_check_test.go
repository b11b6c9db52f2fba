package transport

import (
	"fmt"
	"strings"
	"testing"
)

// An object with many members is checked in linear time: 300,000 members
// took minutes when each was compared with every earlier one.
func TestParseObjectManyMembers(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 300_000; i++ {
		fmt.Fprintf(&b, "%q:%d,", fmt.Sprint("k", i), i)
	}
	b.WriteString(`"k0":1}`)
	if _, err := parseObject([]byte(b.String())); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Fatalf("want the repeated member reported, got %v", err)
	}
}
