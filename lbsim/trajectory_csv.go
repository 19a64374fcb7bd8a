package lbsim

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
)

// WriteCSV writes the trajectory as CSV: a header time,q1,...,qK,q1_ci95,...,qK_ci95
// and one row per grid time. Half-widths that are not numbers (a single
// replication) are written as NaN.
func (tr *Trajectory) WriteCSV(w io.Writer) error {
	levels := 0
	for _, row := range tr.Occupancy {
		levels = max(levels, len(row))
	}
	bw := bufio.NewWriter(w)
	bw.WriteString("time")
	for _, suffix := range []string{"", "_ci95"} {
		for i := 1; i <= levels; i++ {
			fmt.Fprintf(bw, ",q%d%s", i, suffix)
		}
	}
	bw.WriteByte('\n')
	var buf []byte
	for k, t := range tr.Times {
		buf = strconv.AppendFloat(buf[:0], t, 'g', -1, 64)
		for _, row := range [][]float64{tr.Occupancy[k], tr.CI95[k]} {
			for i := range levels {
				x := 0.0
				if i < len(row) {
					x = row[i]
				}
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
			}
		}
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}
