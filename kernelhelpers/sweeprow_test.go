package kernelhelpers

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

func sweepRowTable(t *testing.T) *sweep.Table {
	t.Helper()
	csv := "point,degree,servers,topology,replications,q1,q2,q3,q1_ci95,q2_ci95,q3_ci95\n" +
		"0,10,300,er,4,0.9,0.35,0,0.01,0.0318,0\n" +
		"1,10,1000,er,4,0.9,0.34,0.01,0.01,0.02,0.001\n" +
		"2,default,300,complete,4,0.9,0.006,0,0.01,0.001,0\n"
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	tab, err := sweep.LoadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

func TestSweepPointAndRow(t *testing.T) {
	tab := sweepRowTable(t)
	ns, err := SweepSizes(tab)
	if err != nil || len(ns) != 2 || ns[0] != 300 || ns[1] != 1000 {
		t.Fatalf("SweepSizes = %v, %v; want [300 1000]", ns, err)
	}
	// lambda has no column: not filtered on.
	r, err := SweepPoint(tab, "servers", "300", "topology", "er", "lambda", "0.9")
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := RowFloat(r, "degree"); d != 10 {
		t.Errorf("degree %v, want 10", d)
	}
	q, err := RowOccupancy(r)
	if err != nil || len(q) != 2 || q[1] != 0.35 {
		t.Errorf("RowOccupancy = %v, %v; want [0.9 0.35] (trailing zero dropped)", q, err)
	}
	e, err := RowEstimate(r, "q2")
	if err != nil {
		t.Fatal(err)
	}
	// 0.0318 is 3.182 (t_{0.975,3}) times an SE of 0.01.
	if e.Value != 0.35 || e.DF != 3 || math.Abs(e.SE-0.01) > 1e-4 {
		t.Errorf("RowEstimate = %+v; want 0.35 with SE 0.01 and 3 df", e)
	}
	if _, err := SweepPoint(tab, "servers", "300"); err == nil {
		t.Error("two rows matched without an error")
	}
	if _, err := SweepPoint(tab, "servers"); err == nil {
		t.Error("an odd number of arguments accepted")
	}
	if _, err := SweepPoint(tab, "servers", "3000"); err == nil {
		t.Error("no row matched without an error")
	}
}
