package lbsim_test

import (
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"
)

// The Go release is pinned in four places that must agree: go.mod, the two
// tools modules (GoNB, goimports; gopls) and the Dockerfile's base image,
// which sets GOTOOLCHAIN=local, so an older image would refuse the modules.
func TestVersionPinsAgree(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+\.\d+)$`)
	want := ""
	for _, mod := range []string{"go.mod", "tools/go.mod", "tools/gopls/go.mod"} {
		m := goLine.FindStringSubmatch(read(mod))
		if m == nil {
			t.Fatalf("%s: no go directive with a full version (go X.Y.Z)", mod)
		}
		if want == "" {
			want = m[1]
		} else if m[1] != want {
			t.Errorf("%s requires go %s, go.mod %s", mod, m[1], want)
		}
	}
	from := regexp.MustCompile(`(?m)^FROM golang:(\S+)-bookworm`).FindStringSubmatch(read("Dockerfile"))
	if from == nil || from[1] != want {
		t.Errorf("Dockerfile: base image %v, want golang:%s-bookworm (the exact release the modules require)", from, want)
	}
}
