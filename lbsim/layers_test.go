package lbsim_test

import (
	"go/build"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const module = "github.com/lbsim/notebooks/"

// ourImports returns the packages of this module that pkg imports, directly
// or not, from its non-test files.
func ourImports(t *testing.T, root, pkg string, seen map[string]bool) {
	p, err := build.Default.ImportDir(filepath.Join(root, strings.TrimPrefix(pkg, module)), 0)
	if err != nil {
		t.Fatalf("%s: %v", pkg, err)
	}
	for _, imp := range p.Imports {
		if strings.HasPrefix(imp, module) && !seen[imp] {
			seen[imp] = true
			ourImports(t, root, imp, seen)
		}
	}
}

// The layers of the README's package map: the shared leaves and the theory
// packages compile without the simulator, and the sweep layer knows models
// only by name.
func TestImportsPointDown(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	for _, pkg := range []string{"lbsim/mc", "lbsim/evidence", "lbsim/param", "lbsim/model", "lbsim/sweep", "lbsim/service", "lbsim/pairs", "lbsim/redundancy", "lbsim/admission", "lbsim/csma", "lbsim/flows", "lbsim/trickle",
		"lbsim/graph", "lbsim/compat", "lbsim/meanfield", "lbsim/cavity"} {
		seen := map[string]bool{}
		ourImports(t, root, module+pkg, seen)
		if seen[module+"lbsim"] {
			t.Errorf("%s imports the simulator (package lbsim)", pkg)
		}
	}
}
