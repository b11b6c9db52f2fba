package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// checkValues walks the whole decoded config for Duration and Size values
// that did not parse, or durations below zero, wherever they are: the
// checks written for particular tables run first, with their own messages,
// and this one makes sure no other key is silently taken as its default.
// Each problem names the key and its line; path is the key's locator path
// (array entries numbered).
// reflect: only over this package's Config, through exported fields.
func checkValues(data []byte, loc *locator, v reflect.Value, key toml.Key, path []any, col *collector) {
	switch x := v.Interface().(type) {
	case Duration:
		switch {
		case x.err != nil:
			col.addNew(fmt.Errorf("%s: %v", key, x.err), valueLineAt(data, loc, key, path))
		case x.Duration < 0:
			col.addNew(fmt.Errorf("%s: %s is negative", key, x.Duration), valueLineAt(data, loc, key, path))
		}
		return
	case Size:
		if x.err != nil {
			col.addNew(fmt.Errorf("%s: %v", key, x.err), valueLineAt(data, loc, key, path))
		}
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			k, p := key, path
			if !f.Anonymous {
				name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
				if name == "" || name == "-" {
					continue
				}
				k = append(append(toml.Key(nil), key...), name)
				p = append(append([]any(nil), path...), name)
			}
			checkValues(data, loc, v.Field(i), k, p, col)
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			checkValues(data, loc, v.Index(i), key, append(append([]any(nil), path...), i), col)
		}
	case reflect.Map:
		for _, mk := range v.MapKeys() {
			name := fmt.Sprint(mk.Interface())
			k := append(append(toml.Key(nil), key...), name)
			checkValues(data, loc, v.MapIndex(mk), k, append(append([]any(nil), path...), name), col)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			checkValues(data, loc, v.Elem(), key, path, col)
		}
	}
}

// valueLineAt is the line of a value: by its path with array entries
// numbered, else by a scan for its key.
func valueLineAt(data []byte, loc *locator, key toml.Key, path []any) int {
	if n := loc.line(path...); n > 0 {
		return n
	}
	return keyLine(data, key)
}
