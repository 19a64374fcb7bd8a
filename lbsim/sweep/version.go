package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
)

// Version identifies the code that computed a point: the module version and
// VCS revision from the build information, the Go version, and the SHA-256
// of the executable (which tells builds apart when the VCS stamp is missing,
// as with -buildvcs=false).
type Version struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Revision string `json:"revision,omitempty"`
	VCSTime  string `json:"vcs_time,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	Go       string `json:"go"`
	Platform string `json:"platform"`
	Binary   string `json:"binary_sha256,omitempty"`
}

var (
	versionOnce sync.Once
	version     Version
)

// CurrentVersion describes the running program.
func CurrentVersion() Version {
	versionOnce.Do(func() {
		version = Version{Version: "devel", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
		if bi, ok := debug.ReadBuildInfo(); ok {
			version.Module = bi.Main.Path
			if v := bi.Main.Version; v != "" && v != "(devel)" {
				version.Version = v
			}
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					version.Revision = s.Value
				case "vcs.time":
					version.VCSTime = s.Value
				case "vcs.modified":
					version.Modified = s.Value == "true"
				}
			}
		}
		if exe, err := os.Executable(); err == nil {
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				if _, err := io.Copy(h, f); err == nil {
					version.Binary = hex.EncodeToString(h.Sum(nil))
				}
				f.Close()
			}
		}
	})
	return version
}

// sameCode reports whether two versions are the same code: equal module,
// version, revision, modified flag and Go version, and, when either has no
// VCS revision or has uncommitted changes, the same executable.
func sameCode(a, b Version) bool {
	if a.Module != b.Module || a.Version != b.Version || a.Revision != b.Revision ||
		a.Modified != b.Modified || a.Go != b.Go {
		return false
	}
	if a.Revision == "" || a.Modified {
		return a.Binary == b.Binary
	}
	return true
}
