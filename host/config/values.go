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
// The error names the key (and its line, outside arrays of tables).
func checkValues(data []byte, v reflect.Value, key toml.Key, where string, inArray bool) error {
	switch x := v.Interface().(type) {
	case Duration:
		switch {
		case x.err != nil:
			return valueError(data, key, where, inArray, x.err)
		case x.Duration < 0:
			return valueError(data, key, where, inArray, fmt.Errorf("%s is negative", x.Duration))
		}
		return nil
	case Size:
		if x.err != nil {
			return valueError(data, key, where, inArray, x.err)
		}
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			k := key
			if !f.Anonymous {
				name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
				if name == "" || name == "-" {
					continue
				}
				k = append(append(toml.Key(nil), key...), name)
			}
			if err := checkValues(data, v.Field(i), k, where, inArray); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			w := fmt.Sprintf("%s #%d", key, i+1)
			if err := checkValues(data, v.Index(i), key, w, true); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, mk := range v.MapKeys() {
			k := append(append(toml.Key(nil), key...), fmt.Sprint(mk.Interface()))
			if err := checkValues(data, v.MapIndex(mk), k, where, inArray); err != nil {
				return err
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return checkValues(data, v.Elem(), key, where, inArray)
		}
	}
	return nil
}

func valueError(data []byte, key toml.Key, where string, inArray bool, err error) error {
	if inArray {
		return fmt.Errorf("%s: %s: %v", where, key[len(key)-1], err)
	}
	if line := keyLine(data, key); line > 0 {
		return fmt.Errorf("line %d: %s: %v", line, key, err)
	}
	return fmt.Errorf("%s: %v", key, err)
}
