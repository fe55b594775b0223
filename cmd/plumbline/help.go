package main

import "embed"

// helpFiles are the commands' help texts, one help/NAME.txt per command,
// kept as text so that they read (and are reviewed) as the prose they are.
//
//go:embed help/*.txt
var helpFiles embed.FS

// helpText returns the help text of the command name.
func helpText(name string) string {
	b, err := helpFiles.ReadFile("help/" + name + ".txt")
	if err != nil {
		panic("plumbline: no help text for " + name)
	}
	return string(b)
}
