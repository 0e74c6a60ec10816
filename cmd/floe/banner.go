package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// printStartBox prints where the console is and, on the first start, the
// admin password that was generated for it, framed so it stands out from
// the log lines around it. The password is printed here and nowhere else:
// not in a log line, where log shippers would keep it.
func printStartBox(w io.Writer, consoleURL, adminPassword string) {
	lines := []string{"floe is running", "", "Console:  " + consoleURL}
	if adminPassword != "" {
		lines = append(lines,
			"User:     admin",
			"Password: "+adminPassword,
			"",
			"This password is shown once. Change it with",
			"  floe user passwd admin")
	}
	width := 0
	for _, l := range lines {
		width = max(width, utf8.RuneCountInString(l))
	}
	bar := strings.Repeat("─", width+2)
	var b strings.Builder
	b.WriteString("\n┌" + bar + "┐\n")
	for _, l := range lines {
		b.WriteString("│ " + l + strings.Repeat(" ", width-utf8.RuneCountInString(l)) + " │\n")
	}
	b.WriteString("└" + bar + "┘\n\n")
	fmt.Fprint(w, b.String())
}
