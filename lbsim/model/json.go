package model

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
)

// A Field is a key of a JSON object and its value, for MarshalObject.
type Field struct {
	Key   string
	Value any
}

// MarshalObject writes the struct v (or a pointer to one) as a JSON object,
// the one encoding of the models' results: its exported fields in their
// order, named by their json tags (a field tagged "-" is left out, and one
// tagged ",omitempty" when empty, as encoding/json has it), then the extra
// fields, with every float64 and []float64 NaN-safe (JSONNumber,
// JSONNumbers: null for NaN and infinities, which JSON has no number for).
// An extra field with the key of a field takes that field's place (and is
// written even when empty): a value computed from several fields stands
// where the struct declares it. Other values are written by encoding/json
// (so a nested type's own MarshalJSON applies). A result type's MarshalJSON
// is then one call:
//
//	func (r *Result) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }
func MarshalObject(v any, extra ...Field) ([]byte, error) { return marshal(fields(v, extra)) }

// MarshalSorted is MarshalObject with the keys in sorted order, the order
// encoding/json writes a map in: for results whose JSON was first written
// from a map (lbsim run's), so that their bytes stay what they were.
func MarshalSorted(v any, extra ...Field) ([]byte, error) {
	fs := fields(v, extra)
	slices.SortStableFunc(fs, func(a, b Field) int { return strings.Compare(a.Key, b.Key) })
	return marshal(fs)
}

// fields lists the keys and values MarshalObject writes, in its order.
func fields(v any, extra []Field) []Field {
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	var out []Field
	placed := make([]bool, len(extra))
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		x := rv.Field(i).Interface()
		if e := slices.IndexFunc(extra, func(e Field) bool { return e.Key == name }); e >= 0 {
			x, placed[e] = extra[e].Value, true
		} else if slices.Contains(strings.Split(opts, ","), "omitempty") && isEmpty(rv.Field(i)) {
			continue
		}
		out = append(out, Field{Key: name, Value: x})
	}
	for e, f := range extra {
		if !placed[e] {
			out = append(out, f)
		}
	}
	return out
}

// marshal writes fs as a JSON object in their order, NaN-safe.
func marshal(fs []Field) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(f.Key)
		if err != nil {
			return nil, err
		}
		val, err := json.Marshal(nanSafe(f.Value))
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// isEmpty is encoding/json's empty value for omitempty: false, 0, a nil
// pointer or interface, an empty array, slice, map or string.
func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// nanSafe is JSONNumber of a float64, JSONNumbers of a []float64, else x.
func nanSafe(x any) any {
	switch x := x.(type) {
	case float64:
		return JSONNumber(x)
	case []float64:
		return JSONNumbers(x)
	}
	return x
}

// UnmarshalObject reads into the struct that v points to what MarshalObject
// (or MarshalSorted) wrote: v is zeroed, then each of its exported fields
// takes the value under its json key, null as NaN for a float64 and for the
// entries of a []float64 (null leaves other fields zero, and so does an
// absent key; unknown keys are ignored). Nested values are read by
// encoding/json (so a nested type's own UnmarshalJSON applies). A result
// type's UnmarshalJSON is then one call, the inverse of its MarshalJSON.
func UnmarshalObject(data []byte, v any) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero()
	rt := rv.Type()
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		b, ok := raw[name]
		if !ok {
			continue
		}
		null := string(b) == "null"
		switch x := rv.Field(i).Addr().Interface().(type) {
		case *float64:
			if null {
				*x = math.NaN()
				continue
			}
			if err := json.Unmarshal(b, x); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			continue
		case *[]float64:
			if null {
				continue
			}
			var ps []*float64
			if err := json.Unmarshal(b, &ps); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			*x = make([]float64, len(ps))
			for j, p := range ps {
				(*x)[j] = math.NaN()
				if p != nil {
					(*x)[j] = *p
				}
			}
			continue
		}
		if null {
			continue
		}
		if err := json.Unmarshal(b, rv.Field(i).Addr().Interface()); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}
