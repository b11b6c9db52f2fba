package registry

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTaskSupportDeclaration(t *testing.T) {
	for _, tc := range []struct {
		raw, mode, err string
		first          bool
	}{
		{`{"name":"t"}`, ModeForbidden, "", false},
		{`{"name":"t","execution":{}}`, ModeForbidden, "", false},
		{`{"name":"t","execution":{"taskSupport":"optional"}}`, ModeOptional, "", false},
		{`{"name":"t","execution":{"taskSupport":"required","inputFirst":true}}`, ModeRequired, "", true},
		{`{"name":"t","execution":{"taskSupport":"always"}}`, "", `"execution.taskSupport" is "always"`, false},
		{`{"name":"t","execution":{"taskSupport":1}}`, "", `"execution"`, false},
	} {
		ts, err := taskSupport(json.RawMessage(tc.raw))
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.raw, err, tc.err)
		case tc.err == "" && (err != nil || ts.Mode != tc.mode || ts.InputFirst != tc.first):
			t.Errorf("%s: %+v %v", tc.raw, ts, err)
		}
	}
}
