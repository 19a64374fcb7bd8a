package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/lbsim/notebooks/lbsim/param"
)

// flags is a flag set that remembers the order of its flags and the
// placeholder of each value, for the help text. Every flag is named like a
// JSON key of the command's configuration, with '-' for '_'.
type flags struct {
	*flag.FlagSet
	order       []string
	placeholder map[string]string
	once        bool // every flag's value wrapped in onceValue
}

// onceValue refuses a second value for its flag: a flag given twice would
// otherwise keep the last value silently.
type onceValue struct {
	flag.Value
	name string
	set  bool
}

func (o *onceValue) Set(s string) error {
	if o.set {
		return fmt.Errorf("--%s given twice (give each flag once)", o.name)
	}
	o.set = true
	return o.Value.Set(s)
}

// onceBool is onceValue for a boolean flag (--flag without a value).
type onceBool struct{ *onceValue }

func (o onceBool) IsBoolFlag() bool { return true }

func newFlags(name string) *flags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run reports errors in one line
	fs.Usage = func() {}
	return &flags{FlagSet: fs, placeholder: map[string]string{}}
}

// add defines the flag --name, shown as "--name PLACEHOLDER" in the help.
func (f *flags) add(name, placeholder, usage string, v flag.Value) {
	f.Var(v, name, usage)
	f.order = append(f.order, name)
	f.placeholder[name] = placeholder
}

// parse parses args, which may mix flags and positional arguments in any
// order ("--" ends the flags), and returns the positional arguments.
func (f *flags) parse(args []string) ([]string, error) {
	if !f.once {
		f.once = true
		f.VisitAll(func(fl *flag.Flag) {
			o := &onceValue{Value: fl.Value, name: fl.Name}
			if b, ok := fl.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
				fl.Value = onceBool{o}
			} else {
				fl.Value = o
			}
		})
	}
	var positional []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, usageErr("%v (see lbsim %s -h)", err, f.Name())
		}
		rest := f.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(positional, rest...), nil
		}
		if len(rest) == 0 {
			return positional, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// configure parses args for a command that reads a model's keys (as flags:
// those keep accepts, nil: all; in files: all) and options of its own: the scenario file they name (if
// any) is split between the keys, returned as values, and the options,
// decoded into cfg; the flags given on the command line override both (the
// command's own flags wrote into fromFlags, of the same type as cfg). keys
// may be nil for a command without model keys.
func (f *flags) configure(args []string, stdin io.Reader, keys *param.Set, keep func(*param.Key) bool, cfg, fromFlags any) (*param.Values, error) {
	var v, fv *param.Values
	if keys != nil {
		fv = keys.New()
		keys.Bind(f.FlagSet, fv, keep)
	}
	positional, err := f.parse(args)
	if err != nil {
		return nil, err
	}
	if v, err = loadFile(positional, stdin, keys, nil, cfg); err != nil {
		return nil, err
	}
	d, s := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(fromFlags).Elem()
	f.Visit(func(fl *flag.Flag) {
		key := jsonKey(fl.Name)
		if keys != nil && keys.Key(key) != nil {
			if fv.Has(key) {
				_ = v.Set(key, fv.Get(key))
			} else {
				v.Delete(key) // an empty list: the default
			}
			return
		}
		i := fieldIndex(d.Type(), key)
		d.FieldByIndex(i).Set(s.FieldByIndex(i))
	})
	return v, nil
}

func jsonKey(flagName string) string { return strings.ReplaceAll(flagName, "-", "_") }

// hasField reports whether struct type t has a field with the JSON key key.
func hasField(t reflect.Type, key string) bool {
	for _, sf := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == key && !sf.Anonymous {
			return true
		}
	}
	return false
}

// fieldIndex finds the field of struct type t with the JSON key key.
func fieldIndex(t reflect.Type, key string) []int {
	for _, sf := range reflect.VisibleFields(t) {
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == key && !sf.Anonymous {
			return sf.Index
		}
	}
	panic(fmt.Sprintf("lbsim: %v has no field with JSON key %q", t, key))
}

// printFlags writes the flags in definition order.
func (f *flags) printFlags(w io.Writer) {
	for _, name := range f.order {
		fl := f.Lookup(name)
		head := "--" + name
		if p := f.placeholder[name]; p != "" {
			head += " " + p
		}
		fmt.Fprintf(w, "  %s\n", head)
		line := "     "
		for _, word := range strings.Fields(fl.Usage) {
			if len(line)+1+len(word) > 79 {
				fmt.Fprintln(w, line)
				line = "     "
			}
			line += " " + word
		}
		fmt.Fprintln(w, line)
	}
}

// maxScenarioBytes bounds a scenario file (a file that never ends, such as
// /dev/zero, is refused instead of filling the memory).
const maxScenarioBytes = param.MaxFileBytes

// loadFile reads the scenario file named by the positional arguments (none,
// a path, or - for stdin): its keys of the set that keep accepts become the
// returned values, the others are decoded strictly into cfg.
func loadFile(positional []string, stdin io.Reader, keys *param.Set, keep func(*param.Key) bool, cfg any) (*param.Values, error) {
	var v *param.Values
	if keys != nil {
		v = keys.New()
	}
	switch len(positional) {
	case 0:
		return v, nil
	case 1:
	default:
		return nil, usageErr("unexpected argument %q: give at most one scenario file", positional[1])
	}
	path := strconv.Quote(positional[0]) // quoted in messages: a path may hold any byte
	var data []byte
	var err error
	if positional[0] == "-" {
		path = "standard input"
		data, err = param.ReadAll(stdin, maxScenarioBytes)
	} else {
		file, oerr := param.Open(positional[0], maxScenarioBytes)
		if oerr != nil {
			return nil, usageErr("scenario file %s: %v", path, pathErr(oerr))
		}
		defer file.Close()
		data, err = io.ReadAll(file)
	}
	if err != nil {
		return nil, usageErr("scenario file %s: %v; a scenario file is a JSON object of keys", path, err)
	}
	var raw map[string]json.RawMessage
	if err := param.DecodeStrict(data, &raw); err != nil {
		return nil, usageErr("%s: %v", path, err)
	}
	model, own := map[string]json.RawMessage{}, map[string]json.RawMessage{}
	for k, x := range raw {
		if keys != nil && keys.Key(k) != nil && (keep == nil || keep(keys.Key(k))) {
			model[k] = x
		} else {
			own[k] = x
		}
	}
	if keys != nil {
		m, _ := json.Marshal(model)
		if v, err = keys.DecodeJSON(m); err != nil {
			return nil, usageErr("%s: %v", path, err)
		}
	}
	o, _ := json.Marshal(own)
	if err := param.DecodeStrict(o, cfg); err != nil {
		if strings.Contains(err.Error(), "unknown field") && keys != nil {
			var names []string
			for k := range own {
				if !hasField(reflect.TypeOf(cfg).Elem(), k) {
					names = append(names, k)
				}
			}
			slices.Sort(names)
			if len(names) > 0 {
				return nil, usageErr("%s: unknown key %q; the keys are %s", path, names[0], strings.Join(keys.Names(), ", "))
			}
		}
		return nil, usageErr("%s: %v", path, err)
	}
	return v, nil
}

// Flag values. Each writes through a pointer only when the flag is given, so
// a flag's zero value never hides a value from the scenario file.

type value[T any] struct {
	p     *T
	parse func(string) (T, error)
}

func (v value[T]) String() string {
	if v.p == nil {
		return ""
	}
	return fmt.Sprint(*v.p)
}

func (v value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

type boolFlag struct{ value[bool] }

func (boolFlag) IsBoolFlag() bool { return true }

func boolValue(p *bool) flag.Value {
	return boolFlag{value[bool]{p, func(s string) (bool, error) {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return false, errors.New("want true or false")
		}
		return b, nil
	}}}
}

func stringValue(p *string) flag.Value {
	return value[string]{p, func(s string) (string, error) { return s, nil }}
}

func intValue(p *int) flag.Value { return value[int]{p, parseInt} }

func floatValue(p *float64) flag.Value { return value[float64]{p, parseFloat} }

// parseInt parses a decimal integer, also written like 1e6.
func parseInt(s string) (int, error) {
	x, err := param.ParseFlag(param.Int, s)
	if err != nil {
		return 0, err
	}
	return x.(int), nil
}

func parseFloat(s string) (float64, error) {
	x, err := param.ParseFlag(param.Float, s)
	if err != nil {
		return 0, err
	}
	return x.(float64), nil
}

// pathErr is err without the path of a *fs.PathError, for messages that
// quote the path themselves.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}
