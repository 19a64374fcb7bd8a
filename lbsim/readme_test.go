package lbsim_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The README's Go block (the first ```go block of README.md, which shows
// Run, the mean-field fixed point and ScenarioFromKeys) compiles: it is
// wrapped in a main function with its imports and built with go build.
func TestREADMEGoBlockCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n```go\n")
	if !ok {
		t.Fatal("README.md has no ```go block")
	}
	block, _, ok := strings.Cut(rest, "\n```")
	if !ok {
		t.Fatal("README.md's ```go block is not closed")
	}
	for _, want := range []string{"lbsim.Run(", "lbsim.ScenarioFromKeys(", "meanfield."} {
		if !strings.Contains(block, want) {
			t.Fatalf("README.md's Go block does not call %s: is it still the first ```go block?", want)
		}
	}
	src := `package main

import (
	"context"
	"encoding/json"

	"github.com/lbsim/notebooks/lbsim"
	"github.com/lbsim/notebooks/lbsim/meanfield"
)

var _ = json.Marshal
var _ = meanfield.JSQdFixedPoint

func main() {
	ctx := context.Background()
` + block + `
	_, _, _, _, _ = res, err, fixed, sc, file
}
`
	dir, err := os.MkdirTemp(".", ".readme-block-") // inside the module, ignored by ./...
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "main.go")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-o", os.DevNull, file).CombinedOutput()
	if err != nil {
		t.Fatalf("README.md's Go block does not compile:\n%s\n%s", out, src)
	}
}
