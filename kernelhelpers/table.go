package kernelhelpers

import (
	"fmt"
	"math"
	"strings"
)

// Table is an HTML table of plain rows: a header and rows of strings and
// numbers (any value; fmt.Stringer and fmt.Sprint otherwise). Cells are
// escaped, floats printed with 5 significant digits, NaN as "–".
type Table struct {
	caption string
	headers []string
	rows    [][]any
}

// NewTable makes a table; Title sets its caption.
// Typical use: kernelhelpers.NewTable(headers, rows).Display().
func NewTable(headers []string, rows [][]any, options ...Option) *Table {
	c := newConfig(options)
	if err := c.refuse("NewTable", tableOptions); err != nil {
		panic(err)
	}
	return &Table{caption: c.title, headers: headers, rows: rows}
}

// PlusMinus formats v ± h (5 and 2 significant digits) for a table cell;
// just v when h is NaN.
func PlusMinus(v, h float64) string {
	if math.IsNaN(h) {
		return fmt.Sprintf("%.5g", v)
	}
	return fmt.Sprintf("%.5g ± %.2g", v, h)
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
