package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mcpwasm/mcpwasm/internal/scaffold"
)

// cmdNew writes a plugin folder: mcpwasm new LANG DIR.
func cmdNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: mcpwasm new %s DIR\n\n"+
			"Writes DIR/, a plugin named after DIR's last element: one hello tool, a build.sh\n"+
			"that produces NAME.wasm, a README, and the guest SDK in mcpwasm-sdk/.\n", scaffold.LangNames())
	}
	pos, err := parseArgs(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 2 {
		fs.Usage()
		return 2
	}
	lang, ok := scaffold.FindLang(pos[0])
	if !ok {
		fmt.Fprintf(stderr, "mcpwasm new: unknown language %q; choose one of %s\n", pos[0], scaffold.LangNames())
		return 2
	}
	dir := pos[1]
	files, err := scaffold.Write(lang, dir)
	if err != nil {
		fmt.Fprintf(stderr, "mcpwasm new: %v\n", err)
		return 1
	}
	name := filepath.Base(filepath.Clean(dir))
	fmt.Fprintf(stdout, "Wrote %s/: %s %s plugin, %d files (the SDK is in mcpwasm-sdk/).\n\nNext:\n"+
		"  cd %s\n  ./build.sh\n  mcpwasm call %s.wasm hello '{\"name\":\"Ada\"}'\n",
		dir, article(lang.Title), lang.Title, len(files), dir, name)
	return 0
}

// article is "an" before a word that starts with a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("AEIOUaeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
