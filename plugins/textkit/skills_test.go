package main

import (
	"strings"
	"testing"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/skills"
)

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
