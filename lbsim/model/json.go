package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// A Field is a key of a JSON object and its value, for MarshalObject.
type Field struct {
	Key   string
	Value any
}

// MarshalObject writes the struct v (or a pointer to one) as a JSON object,
// the one encoding of the models' results: its exported fields in their
// order, named by their json tags (a field tagged "-" is left out), then
// the extra fields, with every float64 and []float64 NaN-safe (JSONNumber,
// JSONNumbers: null for NaN and infinities, which JSON has no number for).
// Other values are written by encoding/json (so a nested type's own
// MarshalJSON applies). A result type's MarshalJSON is then one call:
//
//	func (r *Result) MarshalJSON() ([]byte, error) { return model.MarshalObject(r) }
func MarshalObject(v any, extra ...Field) ([]byte, error) {
	rv := reflect.Indirect(reflect.ValueOf(v))
	rt := rv.Type()
	var b bytes.Buffer
	b.WriteByte('{')
	first := true
	write := func(key string, x any) error {
		if !first {
			b.WriteByte(',')
		}
		first = false
		k, err := json.Marshal(key)
		if err != nil {
			return err
		}
		val, err := json.Marshal(nanSafe(x))
		if err != nil {
			return err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(val)
		return nil
	}
	for i := range rt.NumField() {
		f := rt.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		if err := write(name, rv.Field(i).Interface()); err != nil {
			return nil, err
		}
	}
	for _, e := range extra {
		if err := write(e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
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
