package kernelhelpers_test

import (
	"fmt"

	kh "github.com/lbsim/notebooks/kernelhelpers"
)

// Lines draws series on a chart (Display shows it in the notebook); an
// option that does not apply to a chart is refused, and the chart says so
// (Err, and Display shows the error).
func ExampleLines() {
	q := kh.Series{Name: "λ^i", X: []float64{1, 2, 3}, Y: []float64{0.9, 0.81, 0.729}}
	ch := kh.Lines([]kh.Series{q}, kh.Title("random routing"), kh.LogY(), kh.XLabel("i"))
	fmt.Println("chart error:", ch.Err())
	fmt.Println(kh.Lines([]kh.Series{q}, kh.Interval(0)).Err())
	// Output:
	// chart error: <nil>
	// kernelhelpers.Lines: option Interval does not apply (the options of Lines are Title, Subtitle, XLabel, YLabel, XUnit, YUnit, Size, LogX, LogY, LogLog, LinearY, YMin, NoBand, NoAnimation)
}
