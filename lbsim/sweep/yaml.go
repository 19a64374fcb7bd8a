package sweep

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

// YAML 1.1, which the YAML reader follows, reads plain scalars that JSON
// does not accept as numbers or booleans: 010 as 8, 0x10 as 16, 0o10 and
// 0b11, 1_000 as 1000, +12, .5, .inf, and yes, no, on, off as booleans. A
// sweep file is JSON's data written in YAML, so such a scalar is refused,
// naming its key, rather than silently reinterpreted (`--seed 010` is
// refused on the command line the same way); quoted, it is a string.

// jsonNumber is the JSON grammar of a number; jsonBool its booleans.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)

// yamlNode is a YAML value with, for a scalar, its text as written.
type yamlNode struct {
	mapping  map[string]*yamlNode
	sequence []*yamlNode
	raw      string
	value    any
}

func (n *yamlNode) UnmarshalYAML(unmarshal func(any) error) error {
	if err := unmarshal(&n.mapping); err == nil {
		return nil
	}
	n.mapping = nil
	if err := unmarshal(&n.sequence); err == nil {
		return nil
	}
	n.sequence = nil
	if err := unmarshal(&n.raw); err != nil {
		return nil // not a scalar a string can hold: the JSON conversion decides
	}
	return unmarshal(&n.value)
}

// checkYAMLScalars refuses the plain scalars of a YAML document that YAML
// reads as a number or a boolean written otherwise than JSON writes it. It
// runs on a document that yaml.YAMLToJSONStrict accepted.
func checkYAMLScalars(data []byte) error {
	var root yamlNode
	if err := yamlv2.Unmarshal(data, &root); err != nil {
		return nil // the conversion to JSON has accepted it: nothing to add
	}
	return root.check("")
}

func (n *yamlNode) check(path string) error {
	switch {
	case n.mapping != nil:
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range n.mapping {
				if !yield(k) {
					return
				}
			}
		})
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if c := n.mapping[k]; c != nil {
				if err := c.check(p); err != nil {
					return err
				}
			}
		}
	case n.sequence != nil:
		for i, c := range n.sequence {
			if c != nil {
				if err := c.check(fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	default:
		want := ""
		switch n.value.(type) {
		case int, int64, uint64, float64:
			if !jsonNumber.MatchString(n.raw) {
				want = "a decimal number as JSON writes it (no base prefix, leading zero, digit separator or sign +)"
			}
		case bool:
			if n.raw != "true" && n.raw != "false" {
				want = "true or false"
			}
		}
		if want != "" {
			return fmt.Errorf("%s: %q: YAML reads it as %v; want %s, or quote it for a string",
				strings.TrimPrefix(path, "."), n.raw, n.value, want)
		}
	}
	return nil
}
