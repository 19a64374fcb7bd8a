package csma

import (
	"fmt"
	"io"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/internal/atomicfile"
)

// WriteTrace writes the run's trace (Options.Trace) as CSV to path, which
// must not exist (see EncodeTrace for the columns). The file appears complete
// or not at all: it is written to a temporary file in the same directory,
// synced, then hard-linked to path, which fails rather than replace a file
// created meanwhile.
func WriteTrace(path string, res *Result) error {
	if res.Trace == nil {
		return fmt.Errorf("theta_trace: the run kept no trace")
	}
	if err := atomicfile.Write(path, false, func(w io.Writer) error { return EncodeTrace(w, res) }); err != nil {
		return fmt.Errorf("theta_trace: %w", err)
	}
	return nil
}

// EncodeTrace writes the run's trace (Options.Trace) as CSV to w: one row
// per replication and window, with the columns replication, window, time
// (the window's end), theta_0..theta_{n-1} (after the update) and
// activity_0..activity_{n-1} (measured in the window).
func EncodeTrace(w io.Writer, res *Result) error {
	if res.Trace == nil {
		return fmt.Errorf("theta_trace: the run kept no trace")
	}
	var buf []byte
	buf = append(buf, "replication,window,time"...)
	for _, col := range []string{"theta", "activity"} {
		for i := range res.Nodes {
			buf = append(buf, ","+col+"_"...)
			buf = strconv.AppendInt(buf, int64(i), 10)
		}
	}
	buf = append(buf, '\n')
	for r, rows := range res.Trace {
		for m, row := range rows {
			buf = strconv.AppendInt(buf, int64(r), 10)
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(m+1), 10)
			buf = append(buf, ',')
			buf = strconv.AppendFloat(buf, res.WindowEnds[m], 'g', -1, 64)
			for _, x := range row {
				buf = append(buf, ',')
				buf = strconv.AppendFloat(buf, x, 'g', -1, 64)
			}
			buf = append(buf, '\n')
			if _, err := w.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	_, err := w.Write(buf)
	return err
}
