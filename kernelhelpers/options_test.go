package kernelhelpers

import (
	"strings"
	"testing"
	"time"
)

// An option that does not apply to what it is passed to is refused, naming
// it; the options that apply are accepted.
func TestOptionsThatDoNotApply(t *testing.T) {
	one := []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{0.5, 0.25}}}
	refused := func(what string, err error, option string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "option "+option+" does not apply") {
			t.Errorf("%s with %s: err = %v, want it refused", what, option, err)
		}
	}
	refused("Lines", Lines(one, Levels(3)).Err(), "Levels")
	refused("Sweep", Sweep(one, MeanFieldName("x")).Err(), "MeanFieldName")
	refused("Tails", Tails(one, Positions(nil)).Err(), "Positions")
	refused("Graph", Graph([][2]int{{0, 1}}, [][]int{{0, 1}}, LogY()).Err(), "LogY")
	if err := Tails(one, Levels(3), Title("t"), LinearY()).Err(); err != nil {
		t.Errorf("Tails with Levels, Title, LinearY: %v", err)
	}
	if err := Lines(one, Title("t"), XLabel("x"), LogLog(), NoBand(), Size("1px", "2px")).Err(); err != nil {
		t.Errorf("Lines with plot options: %v", err)
	}
	panics := func(what, option string, f func()) {
		t.Helper()
		defer func() {
			err, _ := recover().(error)
			refused(what, err, option)
		}()
		f()
	}
	panics("NewTable", "XLabel", func() { NewTable([]string{"a"}, nil, XLabel("x")) })
	panics("NewProgressBar", "Title", func() { NewProgressBar("bar", Title("t")) })
	_ = NewProgressBar("bar", Interval(time.Second))
	_ = NewTable([]string{"a"}, nil, Title("t"))
}
