package kernelhelpers

import (
	"fmt"
	"math"
	"strings"

	"github.com/lbsim/notebooks/lbsim"
)

// Table is an HTML table of values; cells are escaped, floats printed with 5
// significant digits.
type Table struct {
	caption string
	headers []string
	rows    [][]any
}

// NewTable makes a table; Title sets its caption.
// Typical use: kernelhelpers.NewTable(headers, rows).Display().
func NewTable(headers []string, rows [][]any, options ...Option) *Table {
	c := newConfig(options)
	return &Table{caption: c.title, headers: headers, rows: rows}
}

// ResultsTable tabulates lbsim results, one row each: policy, N, lambda, mean
// tasks per server, mean sojourn and waiting probability with 95% half-widths.
func ResultsTable(results []*lbsim.Result, options ...Option) *Table {
	rows := make([][]any, 0, len(results))
	pm := func(v, h float64) string {
		if math.IsNaN(h) {
			return fmt.Sprintf("%.5g", v)
		}
		return fmt.Sprintf("%.5g ± %.2g", v, h)
	}
	for _, r := range results {
		if r == nil {
			continue
		}
		rows = append(rows, []any{r.Policy, r.Scenario.Servers, r.Scenario.Lambda,
			pm(r.MeanTasksPerServer, r.MeanTasksPerServerCI95),
			pm(r.MeanSojourn, r.MeanSojournCI95),
			pm(r.WaitProbability, r.WaitProbabilityCI95),
			r.Replications})
	}
	return NewTable([]string{"policy", "N", "λ", "tasks per server", "mean sojourn", "P(wait)", "replications"}, rows, options...)
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return fmtFloat(x)
	case float32:
		return fmtFloat(float64(x))
	case string:
		return x
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func fmtFloat(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.5g", x)
}

// HTML returns the <table>.
func (t *Table) HTML() string {
	var b strings.Builder
	b.WriteString(`<table class="lbsim-table" style="border-collapse:collapse;font-variant-numeric:tabular-nums">`)
	if t.caption != "" {
		b.WriteString(`<caption style="font-weight:bold;text-align:left">` + escape(t.caption) + `</caption>`)
	}
	if len(t.headers) > 0 {
		b.WriteString("<thead><tr>")
		for _, h := range t.headers {
			b.WriteString(`<th style="text-align:right;padding:2px 10px;border-bottom:1px solid #999">` + escape(h) + "</th>")
		}
		b.WriteString("</tr></thead>")
	}
	b.WriteString("<tbody>")
	for _, row := range t.rows {
		b.WriteString("<tr>")
		for _, v := range row {
			b.WriteString(`<td style="text-align:right;padding:2px 10px">` + escape(cell(v)) + "</td>")
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return b.String()
}

// Display shows the table as the output of the current cell (nothing outside a notebook).
func (t *Table) Display() {
	if !inNotebook() {
		return
	}
	displayHTML(t.HTML())
	syncDisplay()
}
