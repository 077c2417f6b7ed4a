package cli

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// useColor decides --color: auto colours a terminal only, and never when NO_COLOR is set
// (no-color.org).
func useColor(mode string, w io.Writer) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		f, ok := w.(*os.File)
		return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd())), nil
	}
	return false, usagef("--color must be auto, always or never, not %q", mode)
}

const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
	ansiCyan  = "\x1b[36m"
)

// colorize colours diff's text as git does: additions green, removals red, hunk headers cyan,
// Gateway headers bold.
func colorize(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if body == "" {
			continue
		}
		var c string
		switch {
		case strings.HasPrefix(body, "# "), strings.HasPrefix(body, "+++ "), strings.HasPrefix(body, "--- "):
			c = ansiBold
		case strings.HasPrefix(body, "@@"):
			c = ansiCyan
		case strings.HasPrefix(body, "+"):
			c = ansiGreen
		case strings.HasPrefix(body, "-"), strings.HasPrefix(body, "!"):
			c = ansiRed
		default:
			continue
		}
		lines[i] = c + body + ansiReset + l[len(body):]
	}
	return strings.Join(lines, "")
}
