package golden

import "strings"

// Example is a command shown in Markdown with its output.
type Example struct {
	Command string // the arguments after "gantry"
	Output  string
}

// Examples finds, in a Markdown text, fenced blocks whose first line is `$ gantry ARGS` and
// whose other lines are that command's output.
func Examples(md string) []Example {
	var out []Example
	lines := strings.SplitAfter(md, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") || i+1 >= len(lines) {
			continue
		}
		cmd, ok := strings.CutPrefix(strings.TrimSpace(lines[i+1]), "$ gantry ")
		if !ok {
			continue
		}
		var body strings.Builder
		j := i + 2
		for ; j < len(lines) && !strings.HasPrefix(lines[j], "```"); j++ {
			body.WriteString(lines[j])
		}
		out = append(out, Example{Command: cmd, Output: body.String()})
		i = j
	}
	return out
}
