package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/admission"
	"github.com/lbsim/notebooks/lbsim/csma"
	"github.com/lbsim/notebooks/lbsim/flows"
	"github.com/lbsim/notebooks/lbsim/param"
	"github.com/lbsim/notebooks/lbsim/redundancy"
	"github.com/lbsim/notebooks/lbsim/trickle"
)

var updateREADME = flag.Bool("update", false, "rewrite the generated tables of README.md")

// The table of scenario keys in README.md is generated from the key
// declarations (lbsim.Keys); this test fails when it is out of date, and
// `go test ./cmd/lbsim -run TestREADMEKeyTable -update` rewrites it.
func TestREADMEKeyTable(t *testing.T) {
	tables := []struct {
		begin string
		keys  *param.Set
	}{
		{"<!-- keys: lbsim run; generated from lbsim.Keys by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n", lbsim.Keys},
		{"<!-- keys: lbsim redundancy; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			redundancy.Model.Keys},
		{"<!-- keys: lbsim admission; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			admission.Model.Keys},
		{"<!-- keys: lbsim csma; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			csma.Model.Keys},
		{"<!-- keys: lbsim flows; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			flows.Model.Keys},
		{"<!-- keys: lbsim trickle; generated from its declarations by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n",
			trickle.Model.Keys},
	}
	const end = "<!-- /keys -->"
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	stale := false
	for _, tb := range tables {
		i := strings.Index(s, tb.begin)
		j := strings.Index(s[max(i, 0):], end) + max(i, 0)
		if i < 0 || j < i {
			t.Fatalf("README.md has no generated key table (markers %q ... %q)", tb.begin, end)
		}
		var b bytes.Buffer
		tb.keys.MarkdownTable(&b, nil)
		if s[i+len(tb.begin):j] != b.String() {
			stale = true
			s = s[:i+len(tb.begin)] + b.String() + s[j:]
		}
	}
	if stale && *updateREADME {
		if err := os.WriteFile("README.md", []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if stale {
		t.Errorf("a key table of README.md is out of date; run go test ./cmd/lbsim -run TestREADMEKeyTable -update")
	}
}
