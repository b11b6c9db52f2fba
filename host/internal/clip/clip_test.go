package clip

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc…"},
		{"héllo", 2, "h…"}, // é is two bytes: the cut falls before it
		{"héllo", 3, "hé…"},
		{"abc", 0, "…"},
	} {
		if got := String(c.in, c.n); got != c.want {
			t.Errorf("String(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if got := Bytes([]byte(c.in), c.n); got != c.want {
			t.Errorf("Bytes(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

func TestPrefix(t *testing.T) {
	if got := Prefix("héllo", 2); got != "h" {
		t.Errorf("Prefix = %q, want %q", got, "h")
	}
	if got := Prefix("abc", 5); got != "abc" {
		t.Errorf("Prefix = %q, want %q", got, "abc")
	}
}

// Whatever the input, the result is within n bytes (plus the mark), and
// valid UTF-8 when the input was.
func FuzzString(f *testing.F) {
	f.Add("héllo wörld", 4)
	f.Add(strings.Repeat("日本", 100), 201)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n = n & 0xfff
		got := String(s, n)
		if len(got) > n+len(Mark) {
			t.Fatalf("String(%q, %d) is %d bytes", s, n, len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("String(%q, %d) = %q is not valid UTF-8", s, n, got)
		}
		if b := Bytes([]byte(s), n); b != got {
			t.Fatalf("Bytes = %q, String = %q", b, got)
		}
	})
}
