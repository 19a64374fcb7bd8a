//go:build tools

// Package tools pins the versions of the Go command-line tools used by the
// notebooks (GoNB kernel and goimports; gopls is pinned in ./gopls). It is a separate module so the
// tools' dependencies never leak into the root module.
//
// Build them with scripts/setup.sh (or `make setup`), which runs, e.g.:
//
//	cd tools && go build -o ../bin/gonb github.com/janpfeifer/gonb
package tools

import (
	_ "github.com/janpfeifer/gonb"
	_ "golang.org/x/tools/cmd/goimports"
)
