package main

import "testing"

func TestExtract(t *testing.T) {
	body := []byte(`{"items":[{"name":"a"},{"name":"b","tags":["x"]}],"n":2}`)
	for path, want := range map[string]string{
		"":               `{"items":[{"name":"a"},{"name":"b","tags":["x"]}],"n":2}`,
		"n":              `2`,
		"items.1.name":   `"b"`,
		"items.1.tags.0": `"x"`,
	} {
		got, err := extract(body, path)
		if err != nil || string(got) != want {
			t.Errorf("%q: %s %v, want %s", path, got, err, want)
		}
	}
	for _, bad := range []string{"missing", "items.7", "items.x", "n.deeper"} {
		if _, err := extract(body, bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := extract([]byte("<html>"), ""); err == nil {
		t.Error("non-JSON accepted")
	}
}
