package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/lbsim/notebooks/lbsim"
)

var updateREADME = flag.Bool("update", false, "rewrite the generated tables of README.md")

// The table of scenario keys in README.md is generated from the key
// declarations (lbsim.Keys); this test fails when it is out of date, and
// `go test ./cmd/lbsim -run TestREADMEKeyTable -update` rewrites it.
func TestREADMEKeyTable(t *testing.T) {
	const begin, end = "<!-- keys: lbsim run; generated from lbsim.Keys by `go test ./cmd/lbsim -run TestREADMEKeyTable -update` -->\n", "<!-- /keys -->"
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated key table (markers %q ... %q)", begin, end)
	}
	var b bytes.Buffer
	lbsim.Keys.MarkdownTable(&b, nil)
	if got := s[i+len(begin) : j]; got != b.String() {
		if *updateREADME {
			if err := os.WriteFile("README.md", []byte(s[:i+len(begin)]+b.String()+s[j:]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("the key table of README.md is out of date; run go test ./cmd/lbsim -run TestREADMEKeyTable -update")
	}
}
