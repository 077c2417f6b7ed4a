// Command benchcmp compares `go test -bench` output with a baseline file of the same format and
// reports every benchmark whose median ns/op or allocs/op grew by more than 20%. It is a
// threshold check for `make bench`, not a statistics tool: use benchstat for that.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	baseline := flag.String("baseline", "docs/benchmarks.txt", "recorded benchmark output")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchcmp -baseline FILE CURRENT")
		os.Exit(2)
	}
	base, err := read(*baseline)
	if err != nil {
		fmt.Printf("no baseline to compare with: %v\n", err)
		return
	}
	now, err := read(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	regressions := 0
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range now {
			if !yield(k) {
				return
			}
		}
	}) {
		b, ok := base[name]
		if !ok {
			continue
		}
		for _, unit := range []string{"ns/op", "allocs/op"} {
			n, t := median(now[name][unit]), median(b[unit])
			status := "ok"
			if t > 0 && n > 1.2*t {
				status = "REGRESSION"
				regressions++
			}
			fmt.Printf("%-10s %-55s %-9s %12.0f → %12.0f (%+.0f%%)\n", status, name, unit, t, n, 100*(n/t-1))
		}
	}
	fmt.Printf("%d regressions over 20%% against %s\n", regressions, *baseline)
}

// read parses benchmark lines: name, iterations, then value/unit pairs.
func read(path string) (map[string]map[string][]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]map[string][]float64{}
	pkg := ""
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := s.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := pkg + "." + strings.TrimSuffix(fields[0], "-"+lastDash(fields[0]))
		if out[name] == nil {
			out[name] = map[string][]float64{}
		}
		for i := 2; i+1 < len(fields); i += 2 {
			if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
				out[name][fields[i+1]] = append(out[name][fields[i+1]], v)
			}
		}
	}
	return out, s.Err()
}

func lastDash(s string) string {
	if i := strings.LastIndex(s, "-"); i >= 0 {
		return s[i+1:]
	}
	return ""
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
