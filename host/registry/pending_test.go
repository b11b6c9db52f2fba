package registry

import (
	"slices"
	"testing"
)

// A plugin still loading contests a name only if it ranks better and could
// declare it (its prefix, or unprefixed; any URI with resource exports);
// once loaded, it contests nothing.
func TestContested(t *testing.T) {
	r := New()
	r.Loading(Pending{Rank: 0, Name: "a", Tools: true}, Pending{Rank: 1, Name: "b", Unprefixed: true, Prompts: true, Resources: true},
		Pending{Rank: 5, Name: "late", Unprefixed: true, Tools: true})
	for _, c := range []struct {
		owner int
		k     Kind
		name  string
		want  bool
	}{
		{3, KindTool, "a_x", true},        // a's prefix
		{3, KindTool, "c_x", false},       // nobody's: a is prefixed, b exports no tools
		{0, KindTool, "a_x", false},       // a itself is no better than rank 0
		{3, KindPrompt, "anything", true}, // b is unprefixed with prompts
		{3, KindResource, "x:1", true},    // b has resource exports
		{1, KindResource, "x:1", false},   // only a ranks better, and has none
		{4, KindTool, "late_x", false},    // late ranks worse
	} {
		if got := r.Contested(c.owner, c.k, c.name); got != c.want {
			t.Errorf("Contested(%d, %d, %q) = %v, want %v", c.owner, c.k, c.name, got, c.want)
		}
	}
	if got := r.StillLoading(); !slices.Equal(got, []string{"a", "b", "late"}) {
		t.Errorf("StillLoading = %v", got)
	}
	r.Loaded(0)
	if r.Contested(3, KindTool, "a_x") {
		t.Error("a loaded, yet still contests a_x")
	}
}
