package param

import (
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
)

// A DesignOrFile is how a scenario gives a structure (a graph, a
// compatibility graph): a design key naming a generator, with the parameter
// keys each design takes, or a file key naming an edge-list file.
type DesignOrFile struct {
	What      string // "graph", "compatibility graph"
	DesignKey string // "topology", "compat"
	FileKey   string // "graph", "compat_graph"
	Designs   []string
	Params    map[string][]string // per design, the parameter keys it takes
}

// Check validates which keys a scenario gives: a design or a file, not both
// and not neither; for a design, only the parameter keys it takes; for a
// file, none, and a regular file. params are the parameter keys given, with
// their values as messages write them. The ranges of the parameters are the
// caller's to check.
func (c DesignOrFile) Check(who, design, file string, params [][2]string) error {
	if file != "" {
		if design != "" {
			return fmt.Errorf("%s = %q: give either %s or %s (an edge-list file), not both", c.FileKey, file, c.DesignKey, c.FileKey)
		}
		if len(params) > 0 {
			return fmt.Errorf("%s = %s: a %s from a file takes no %s", params[0][0], params[0][1], c.What, params[0][0])
		}
		st, err := os.Stat(file)
		if err != nil {
			if pe, ok := err.(*fs.PathError); ok { // the path is quoted already
				err = pe.Err
			}
			return fmt.Errorf("%s = %q: %v", c.FileKey, file, err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s = %q: not a regular file", c.FileKey, file)
		}
		return nil
	}
	keys, ok := c.Params[design]
	if !ok {
		all := strings.Join(c.Designs, ", ")
		if design == "" {
			return fmt.Errorf("%s: required for %s; one of %s (or %s: an edge-list file)", c.DesignKey, who, all, c.FileKey)
		}
		return fmt.Errorf("%s = %q: unknown; must be one of %s", c.DesignKey, design, all)
	}
	for _, kv := range params {
		if !slices.Contains(keys, kv[0]) {
			return fmt.Errorf("%s = %s: %s %s takes no %s", kv[0], kv[1], c.DesignKey, design, kv[0])
		}
	}
	return nil
}
