package param

import (
	"reflect"
	"testing"
)

// Lists on the command line: comma-separated values or VALUExCOUNT runs.
func TestListSyntax(t *testing.T) {
	parse := func(in string) ([]float64, error) {
		x, err := ParseFlag(Floats, in)
		if x == nil {
			return nil, err
		}
		return x.([]float64), err
	}
	for in, want := range map[string][]float64{
		"":          nil,
		"1":         {1},
		"0.5, 2 ,3": {0.5, 2, 3},
		"0.5x2,2x3": {0.5, 0.5, 2, 2, 2},
		"1e-1x2,4":  {0.1, 0.1, 4},
		"0x1p-2":    {0.25}, // a hexadecimal float, not a run
		"0x1p-2x2":  {0.25, 0.25},
		"3X2":       {3, 3},
	} {
		got, err := parse(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{",", "1,,2", "ax2", "1x0", "1x-1", "1x", "x3", "1x2x", "1xx2"} {
		if got, err := parse(in); err == nil {
			t.Errorf("%q: got %v, want an error", in, got)
		}
	}
	ints, err := ParseFlag(Ints, "3x2,0,1e2")
	if err != nil || !reflect.DeepEqual(ints, []int{3, 3, 0, 100}) {
		t.Errorf("ints: %v, %v", ints, err)
	}
}
