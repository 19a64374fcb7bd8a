package param

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Bind defines a flag for every key of the set that keep accepts (nil: all)
// on fs. A flag given on the command line sets its key in v, so v holds
// exactly the keys the command line gave.
func (s *Set) Bind(fs *flag.FlagSet, v *Values, keep func(*Key) bool) {
	for _, k := range s.Keys() {
		if keep != nil && !keep(k) {
			continue
		}
		fs.Var(&flagValue{k: k, v: v}, k.Flag(), k.Doc)
	}
}

type flagValue struct {
	k *Key
	v *Values
}

func (f *flagValue) String() string {
	if f == nil || f.v == nil || !f.v.Has(f.k.Name) {
		return ""
	}
	return Format(f.v.Get(f.k.Name))
}

func (f *flagValue) IsBoolFlag() bool { return f.k.Kind == Bool }

func (f *flagValue) Set(s string) error {
	x, err := ParseFlag(f.k.Kind, s)
	if err != nil {
		return err
	}
	if x == nil { // an empty list: absent
		f.v.Delete(f.k.Name)
		return nil
	}
	return f.v.Set(f.k.Name, x)
}

// ParseFlag parses a flag's text as a value of kind. Lists are
// comma-separated items, each a value or a run VALUExCOUNT (COUNT copies);
// the empty string is the empty list (nil).
func ParseFlag(kind Kind, s string) (any, error) {
	switch kind {
	case Int, Uint, Float:
		x, err := parseNumber(kind, strings.TrimSpace(s))
		if err != nil {
			return nil, errors.New(strings.TrimPrefix(err.Error(), strings.TrimSpace(s)+": "))
		}
		return x, nil
	case Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, errors.New("want true or false")
		}
		return b, nil
	case String:
		return s, nil
	case Ints:
		l, err := parseList[int](s, Int)
		if l == nil || err != nil {
			return nil, err
		}
		return l, nil
	case Floats:
		l, err := parseList[float64](s, Float)
		if l == nil || err != nil {
			return nil, err
		}
		return l, nil
	}
	return nil, fmt.Errorf("unknown kind %v", kind)
}

// MaxListLen bounds the expansion of compact lists (VALUExCOUNT).
const MaxListLen = 1 << 27

func parseList[T int | float64](s string, elem Kind) ([]T, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []T
	for item := range strings.SplitSeq(s, ",") {
		item = strings.TrimSpace(item)
		x, err := ParseFlag(elem, item)
		count := 1
		if err != nil {
			i := strings.LastIndexAny(item, "xX")
			if i < 0 {
				return nil, fmt.Errorf("item %q: %v (or VALUExCOUNT)", item, err)
			}
			if x, err = ParseFlag(elem, item[:i]); err != nil {
				return nil, fmt.Errorf("item %q: value %q: %v", item, item[:i], err)
			}
			c, err := strconv.Atoi(item[i+1:])
			if err != nil || c < 1 {
				return nil, fmt.Errorf("item %q: count %q: want an integer >= 1", item, item[i+1:])
			}
			count = c
		}
		if len(out)+count > MaxListLen {
			return nil, fmt.Errorf("more than %d values", MaxListLen)
		}
		out = slices.Grow(out, count) // typed, not boxed: 8 bytes a value
		for range count {
			out = append(out, x.(T))
		}
	}
	return out, nil
}

// helpLine is the one-paragraph description of a key: its doc, range,
// default and the variants that use it.
func (k *Key) helpLine(variantKey string) string {
	line := k.Doc
	var extra []string
	if k.Enum != nil {
		extra = append(extra, "one of "+strings.Join(k.Enum, ", "))
	}
	if k.Range != "" {
		extra = append(extra, k.Range)
	}
	if k.Required {
		extra = append(extra, "required")
	}
	if k.DefaultDoc != "" {
		extra = append(extra, "default "+k.DefaultDoc)
	}
	if k.For != nil && variantKey != "" {
		extra = append(extra, variantKey+" "+strings.Join(k.For, ", "))
	}
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, "; ") + ")"
	}
	return line
}

// PrintFlags writes the help of the flags of the keys keep accepts (nil:
// all), in declaration order, wrapped at 80 columns.
func (s *Set) PrintFlags(w io.Writer, keep func(*Key) bool) {
	for _, k := range s.Keys() {
		if keep != nil && !keep(k) {
			continue
		}
		head := "--" + k.Flag()
		if k.Arg != "" {
			head += " " + k.Arg
		}
		fmt.Fprintf(w, "  %s\n", head)
		line := "     "
		for _, word := range strings.Fields(k.helpLine(s.Variant)) {
			if len(line)+1+len(word) > 79 {
				fmt.Fprintln(w, line)
				line = "     "
			}
			line += " " + word
		}
		fmt.Fprintln(w, line)
	}
}

// MarkdownTable writes the reference table of the keys keep accepts (nil:
// all): key, flag, kind, default, meaning.
func (s *Set) MarkdownTable(w io.Writer, keep func(*Key) bool) {
	fmt.Fprintln(w, "| key | flag | value | default | meaning |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	esc := func(t string) string { return strings.ReplaceAll(t, "|", `\|`) }
	for _, k := range s.Keys() {
		if keep != nil && !keep(k) {
			continue
		}
		value := k.Kind.String()
		if k.Enum != nil {
			value = strings.Join(k.Enum, ", ")
		}
		def := k.DefaultDoc
		if k.Required {
			def = "required"
		}
		if def == "" {
			def = "none"
		}
		doc := k.Doc
		if k.Range != "" {
			doc += " (" + k.Range + ")"
		}
		if k.For != nil && s.Variant != "" {
			doc += "; " + s.Variant + " " + strings.Join(k.For, ", ")
		}
		fmt.Fprintf(w, "| `%s` | `--%s` | %s | %s | %s |\n", k.Name, k.Flag(), esc(value), esc(def), esc(doc))
	}
}
