package docs_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// floedGuide is the guide whose reference tables list floed's settings.
const floedGuide = "docs/floed.md"

// machineDefaults are the flags whose default "floed -h" prints from the
// machine it runs on (the state directory under $HOME, the host name): the
// guide gives the rule instead.
var machineDefaults = []string{"owner", "state"}

// helpFlag is a flag as "floed -h" lists it.
type helpFlag struct {
	variable string // its FLOE_* variable; "" for none
	def      string // the default it prints; "" for none
}

// floedHelp builds floed and returns the flags of its -h and the variables
// it lists as having no flag.
func floedHelp(t *testing.T) (flags map[string]helpFlag, envOnly []string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "floed")
	build := exec.Command("go", "build", "-o", bin, "./cmd/floed")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/floed: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "-h")
	// floed refuses to start, -h included, beside a FLOE_* variable it
	// does not know: run it without the caller's.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FLOE_") && !strings.HasPrefix(kv, "NOEQ_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("floed -h: %v\n%s", err, out)
	}

	var (
		flagLine = regexp.MustCompile(`^  -([a-z][a-z0-9-]*)\b`)
		envLine  = regexp.MustCompile(`^  ([A-Z][A-Z0-9_]*)$`)
		variable = regexp.MustCompile(`\(\$(FLOE_[A-Z0-9_]+)(, comma-separated)?\)`)
		def      = regexp.MustCompile(`\(default (.*)\)$`)
	)
	flags = make(map[string]helpFlag)
	section, cur := "", ""
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "flags:", line == "environment without a flag:":
			section = line
		case line == "" || !strings.HasPrefix(line, " "):
			section = ""
		case section == "flags:":
			if m := flagLine.FindStringSubmatch(line); m != nil {
				cur = m[1]
				flags[cur] = helpFlag{}
				continue
			}
			f := flags[cur]
			if m := variable.FindStringSubmatch(line); m != nil {
				f.variable = m[1]
			}
			if m := def.FindStringSubmatch(line); m != nil {
				f.def = strings.Trim(m[1], `"`)
			}
			flags[cur] = f
		case section == "environment without a flag:":
			if m := envLine.FindStringSubmatch(line); m != nil {
				envOnly = append(envOnly, m[1])
			}
		}
	}
	if len(flags) < 10 || len(envOnly) == 0 {
		t.Fatalf("floed -h: read %d flags and %d variables without a flag, want more; the output:\n%s", len(flags), len(envOnly), out)
	}
	return flags, envOnly
}

// tableRow is a row of one of the guide's tables.
type tableRow struct {
	line  int
	cells []string
}

// tablesWithHeader returns the rows of every table in text whose header
// row is header, the header and separator rows left out.
func tablesWithHeader(t *testing.T, text, header string) []tableRow {
	t.Helper()
	var rows []tableRow
	in := false
	width := len(splitRow(header))
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == header:
			in = true
		case !strings.HasPrefix(line, "|"):
			in = false
		case in && strings.Trim(line, "|- ") == "":
		case in:
			cells := splitRow(line)
			if len(cells) != width {
				t.Errorf("%s:%d: a row of %d cells, want %d: %s", floedGuide, i+1, len(cells), width, line)
				continue
			}
			rows = append(rows, tableRow{i + 1, cells})
		}
	}
	return rows
}

// splitRow returns the cells of a table row, trimmed.
func splitRow(line string) []string {
	cells := strings.Split(strings.Trim(line, "|"), "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

// codeSpans returns the inline code of a cell, without its backquotes.
func codeSpans(cell string) []string {
	var spans []string
	for _, m := range regexp.MustCompile("`([^`]*)`").FindAllStringSubmatch(cell, -1) {
		spans = append(spans, m[1])
	}
	return spans
}

// TestFloedGuide_Flags keeps docs/floed.md's reference tables in step with
// "floed -h": every flag it lists is in a table, with its variable and
// default; every flag and variable in the tables exists.
func TestFloedGuide_Flags(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, floedGuide))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	help, envOnly := floedHelp(t)

	rows := tablesWithHeader(t, text, "| flag | variable | default | meaning |")
	if len(rows) == 0 {
		t.Fatalf("%s: no table with the header | flag | variable | default | meaning |", floedGuide)
	}
	documented := make(map[string]int) // flag -> the line of its row
	for _, r := range rows {
		names := codeSpans(r.cells[0])
		if len(names) == 0 {
			t.Errorf("%s:%d: no flag in the first cell: %q", floedGuide, r.line, r.cells[0])
		}
		vars := codeSpans(r.cells[1])
		for _, v := range vars {
			if !strings.HasPrefix(v, "FLOE_") {
				t.Errorf("%s:%d: %q in the variable column, want FLOE_... or none", floedGuide, r.line, v)
			}
		}
		for _, n := range names {
			if !regexp.MustCompile(`^--?[a-z][a-z0-9-]*$`).MatchString(n) {
				t.Errorf("%s:%d: %q in the flag column is not a flag", floedGuide, r.line, n)
				continue
			}
			name := strings.TrimLeft(n, "-")
			if prev, ok := documented[name]; ok {
				t.Errorf("%s:%d: -%s is in the tables twice (line %d too)", floedGuide, r.line, name, prev)
			}
			documented[name] = r.line
			f, ok := help[name]
			if !ok {
				t.Errorf("%s:%d: -%s is not a flag of floed -h", floedGuide, r.line, name)
				continue
			}
			if f.variable != "" && !slices.Contains(vars, f.variable) {
				t.Errorf("%s:%d: -%s: floed -h names the variable %s, the table %q", floedGuide, r.line, name, f.variable, r.cells[1])
			}
			if f.def != "" && !slices.Contains(machineDefaults, name) && !slices.Contains(codeSpans(r.cells[2]), f.def) {
				t.Errorf("%s:%d: -%s: floed -h gives the default %q, the table %q", floedGuide, r.line, name, f.def, r.cells[2])
			}
		}
		// A row's variable belongs to one of its flags.
		for _, v := range vars {
			found := false
			for _, n := range names {
				if help[strings.TrimLeft(n, "-")].variable == v {
					found = true
				}
			}
			if !found {
				t.Errorf("%s:%d: the variable %s is not that of %s in floed -h", floedGuide, r.line, v, strings.Join(names, ", "))
			}
		}
	}
	for name := range help {
		if _, ok := documented[name]; !ok {
			t.Errorf("%s: floed -h lists -%s, which no reference table has", floedGuide, name)
		}
	}

	var vars []string
	for _, r := range tablesWithHeader(t, text, "| variable | meaning |") {
		vars = append(vars, codeSpans(r.cells[0])...)
	}
	slices.Sort(vars)
	slices.Sort(envOnly)
	if !slices.Equal(vars, envOnly) {
		t.Errorf("%s: the table of variables without a flag lists %v; floed -h, %v", floedGuide, vars, envOnly)
	}
}
