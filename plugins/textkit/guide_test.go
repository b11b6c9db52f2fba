//go:build !wasip1

package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/prompts"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/resources"
	"github.com/mcpwasm/mcpwasm/sdk-guest/go/skills"
)

func TestRegexSyntaxResource(t *testing.T) {
	out, err := resources.List()
	if err != nil {
		t.Fatal(err)
	}
	var l struct {
		Resources []struct{ URI, Name, MimeType string }
	}
	if err := json.Unmarshal(out, &l); err != nil || len(l.Resources) != 1 ||
		l.Resources[0].URI != regexSyntaxURI || l.Resources[0].MimeType != "text/markdown" {
		t.Fatalf("resources: %s (%v)", out, err)
	}
	inv := resources.Invoke(regexSyntaxURI)
	if inv.Err != nil || !strings.Contains(inv.Text(), "RE2") || !strings.Contains(inv.Text(), "backreferences") {
		t.Fatalf("read %s: %v %q", regexSyntaxURI, inv.Err, inv.Text())
	}
	if inv := resources.Invoke("textkit://nothing"); inv.Err == nil || !strings.Contains(inv.Err.Error(), "not found") {
		t.Fatalf("an unknown URI: %v", inv.Err)
	}
}

func TestReviewChangesPrompt(t *testing.T) {
	out, err := prompts.List()
	if err != nil || !strings.Contains(string(out), `"review_changes"`) {
		t.Fatalf("prompts: %s (%v)", out, err)
	}
	inv := prompts.Invoke("review_changes", map[string]string{"before": "one\ntwo\nthree\n", "after": "one\n2\nthree\n", "focus": "numbers"})
	if inv.Err != nil {
		t.Fatal(inv.Err)
	}
	text := inv.Text()
	for _, want := range []string{"--- before\n+++ after\n", "-two\n+2\n", "Pay particular attention to: numbers."} {
		if !strings.Contains(text, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, text)
		}
	}
	if inv := prompts.Invoke("review_changes", map[string]string{"before": "same\n", "after": "same\n"}); inv.Err != nil || !strings.Contains(inv.Text(), "identical") {
		t.Errorf("identical texts: %v %q", inv.Err, inv.Text())
	}
	if inv := prompts.Invoke("review_changes", map[string]string{"before": "x"}); inv.Err == nil || !strings.Contains(inv.Err.Error(), "after") {
		t.Errorf("without after: %v", inv.Err)
	}
	big := strings.Repeat("a\n", 3000)
	if inv := prompts.Invoke("review_changes", map[string]string{"before": big, "after": strings.ReplaceAll(big, "a", "b")}); inv.Err == nil || !strings.Contains(inv.Err.Error(), "2000 lines") {
		t.Errorf("3000 changed lines: %v", inv.Err)
	}
}

// TestSkillEmbedded: textkit ships its review skill, SKILL.md first with
// the frontmatter the host requires, and the checklist it links to.
func TestSkillEmbedded(t *testing.T) {
	l, err := skills.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 1 || l[0].Path != "textkit-review" || len(l[0].Files) != 2 {
		t.Fatalf("skills %+v", l)
	}
	md := *l[0].Files[0].Text
	if l[0].Files[0].Path != "SKILL.md" || !strings.HasPrefix(md, "---\nname: textkit-review\ndescription: ") ||
		!strings.Contains(md, "(references/checklist.md)") || l[0].Files[1].Path != "references/checklist.md" {
		t.Fatalf("files %+v", l[0].Files)
	}
}
