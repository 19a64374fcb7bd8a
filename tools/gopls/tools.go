//go:build tools

// Package gopls pins gopls in its own module: gopls v0.23.0 requires its own
// pseudo-version of golang.org/x/tools and does not compile against the
// x/tools v0.52.0 pinned for goimports in ../go.mod (minimum version
// selection would force them to be the same).
//
//	cd tools/gopls && go build -o ../../bin/gopls golang.org/x/tools/gopls
package gopls

import _ "golang.org/x/tools/gopls"
