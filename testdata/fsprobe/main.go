// fsprobe is a test plugin that performs filesystem operations for the
// host's escape tests. Its one tool, "fs", takes {"ops": [[op, args...]...]}
// and answers one line per operation: "op args -> ok: <result>" or
// "op args -> error: <message>". Operations: read, write, append, readdir,
// stat, lstat, mkdir, remove, rename, symlink, link, readlink.
//
// It is deliberately naive: it tries exactly what it is told, so the host's
// sandbox is what stands between it and the rest of the machine.
package main

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(offset uint64) uint32

//go:wasmimport extism:host/env alloc
func kernelAlloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func storeU8(offset uint64, v uint32)

//go:wasmimport extism:host/env store_u64
func storeU64(offset, v uint64)

//go:wasmimport extism:host/env output_set
func outputSet(h, n uint64)

func input() []byte {
	n := inputLength()
	b := make([]byte, n)
	for i := uint64(0); i < n; i++ {
		b[i] = byte(inputLoadU8(i))
	}
	return b
}

func output(b []byte) {
	n := uint64(len(b))
	h := kernelAlloc(n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		storeU64(h+i, binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < n; i++ {
		storeU8(h+i, uint32(b[i]))
	}
	outputSet(h, n)
}

func main() {}

//go:wasmexport list_tools
func listTools() int32 {
	output([]byte(`{"tools":[{"name":"fs","description":"Runs filesystem operations and reports each result.","inputSchema":{"type":"object","properties":{"ops":{"type":"array","items":{"type":"array","items":{"type":"string"}}}},"required":["ops"]}}]}`))
	return 0
}

//go:wasmexport call_tool
func callTool() int32 {
	var in struct {
		Request struct {
			Arguments struct {
				Ops [][]string `json:"ops"`
			} `json:"arguments"`
		} `json:"request"`
		Context struct {
			Mounts []struct {
				Path     string `json:"path"`
				ReadOnly bool   `json:"read_only"`
			} `json:"mounts"`
		} `json:"context"`
	}
	if err := json.Unmarshal(input(), &in); err != nil {
		output([]byte(`{"content":[{"type":"text","text":"bad input"}],"isError":true}`))
		return 0
	}
	var lines []string
	for _, m := range in.Context.Mounts {
		lines = append(lines, fmt.Sprintf("mount %s ro=%v", m.Path, m.ReadOnly))
	}
	for _, op := range in.Request.Arguments.Ops {
		lines = append(lines, strings.Join(op, " ")+" -> "+run(op))
	}
	res, _ := json.Marshal(map[string]any{"content": []map[string]string{{"type": "text", "text": strings.Join(lines, "\n")}}})
	output(res)
	return 0
}

func arg(op []string, i int) string {
	if i < len(op) {
		return op[i]
	}
	return ""
}

func run(op []string) string {
	result := func(s string, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return "ok: " + s
	}
	switch arg(op, 0) {
	case "read":
		b, err := os.ReadFile(arg(op, 1))
		return result(string(b), err)
	case "write":
		return result("", os.WriteFile(arg(op, 1), []byte(arg(op, 2)), 0o644))
	case "append":
		f, err := os.OpenFile(arg(op, 1), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err == nil {
			_, err = f.WriteString(arg(op, 2))
			f.Close()
		}
		return result("", err)
	case "readdir":
		es, err := os.ReadDir(arg(op, 1))
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		sort.Strings(names)
		return result(strings.Join(names, ","), err)
	case "stat", "lstat":
		st, err := os.Stat(arg(op, 1))
		if arg(op, 0) == "lstat" {
			st, err = os.Lstat(arg(op, 1))
		}
		if err != nil {
			return result("", err)
		}
		return result(fmt.Sprintf("%s size=%d", st.Mode().Type(), st.Size()), nil)
	case "mkdir":
		return result("", os.Mkdir(arg(op, 1), 0o755))
	case "remove":
		return result("", os.Remove(arg(op, 1)))
	case "rename":
		return result("", os.Rename(arg(op, 1), arg(op, 2)))
	case "symlink":
		return result("", os.Symlink(arg(op, 1), arg(op, 2)))
	case "link":
		return result("", os.Link(arg(op, 1), arg(op, 2)))
	case "readlink":
		return result(os.Readlink(arg(op, 1)))
	}
	return "error: unknown op"
}
