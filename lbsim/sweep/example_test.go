package sweep_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"strconv"

	"github.com/lbsim/notebooks/lbsim/sweep"
)

// A sweep runs every point of a grid of scenarios, one file per point in a
// directory (a killed sweep resumes from it), and Merge makes one CSV of
// it: here JSQ(2) on 100 servers at two loads, one row per point with the
// mean over replications and its 95% half-width.
func ExampleRun() {
	spec, err := sweep.ParseSpec([]byte(`{
		"seed": 1, "replications": 4,
		"base": {"policy": "jsqd", "d": 2, "servers": 100, "horizon": 200, "warmup": 50},
		"axes": [{"lambda": [0.5, 0.9]}]
	}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "sweep-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	sum, err := sweep.Run(context.Background(), spec, sweep.Options{Out: dir, Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d points, %d run\n", sum.Points, sum.Ran)
	m, err := sweep.Merge(dir, sweep.MergeOptions{Summary: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, err := csv.NewReader(bytes.NewReader(m.CSV)).ReadAll()
	if err != nil {
		fmt.Println(err)
		return
	}
	col := map[string]int{}
	for j, name := range rows[0] {
		col[name] = j
	}
	for _, r := range rows[1:] {
		mean, _ := strconv.ParseFloat(r[col["mean_sojourn"]], 64)
		half, _ := strconv.ParseFloat(r[col["mean_sojourn_ci95"]], 64)
		fmt.Printf("lambda %s: mean sojourn %.3f ± %.2g\n", r[col["lambda"]], mean, half)
	}
	// Output:
	// 2 points, 2 run
	// lambda 0.5: mean sojourn 1.263 ± 0.025
	// lambda 0.9: mean sojourn 2.611 ± 0.18
}
