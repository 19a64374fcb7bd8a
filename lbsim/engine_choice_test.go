package lbsim

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// The engines read what a policy declares (Needs) and name no policy: no
// identifier of a type declared in a policy file (policy*.go) appears in
// the engine files, the engine choice, the memory estimate or Run.
func TestEnginesNameNoPolicy(t *testing.T) {
	fset := token.NewFileSet()
	parse := func(pattern string) []*ast.File {
		names, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	policyTypes := map[string]bool{}
	for _, f := range parse("policy_*.go") {
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					policyTypes[s.(*ast.TypeSpec).Name.Name] = true
				}
			}
		}
	}
	if !policyTypes["jsqd"] || !policyTypes["neighbourJSQd"] || !policyTypes["jsqPolicy"] {
		t.Fatalf("policy types found: %v; want jsqd, neighbourJSQd, jsqPolicy among them", policyTypes)
	}
	var engines []*ast.File
	for _, pattern := range []string{"engine*.go", "memory.go", "run.go"} {
		engines = append(engines, parse(pattern)...)
	}
	if len(engines) < 8 {
		t.Fatalf("%d engine files parsed, want at least 8", len(engines))
	}
	for _, f := range engines {
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && policyTypes[id.Name] {
				t.Errorf("%s names the policy type %s", fset.Position(id.Pos()), id.Name)
			}
			return true
		})
	}
}
