package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDataGridCells(t *testing.T) {
	g := Grid{
		Columns: []GridColumn{{Name: "a", Type: "utf8"}, {Name: "b", Type: "int64"}},
		Rows: [][]GridCell{
			{{Text: `<script>alert("x")</script> & 'q'`}, {Null: true}},
			{{Text: ""}, {Text: "12345", Truncated: true}},
		},
		Footer: "2 rows read.",
	}
	var buf bytes.Buffer
	if err := DataGrid(g).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		`<td>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; &#39;q&#39;</td>`,
		`data-testid="grid-null">null</span>`,
		`data-testid="grid-empty-string"`,
		`12345<span class="cut-mark"`,
		`2 rows read.`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s", want)
		}
	}
	if strings.Contains(out, "<script>") {
		t.Error("cell text not escaped")
	}
	if n := strings.Count(out, `data-testid="grid-row"`); n != 2 {
		t.Errorf("%d rows", n)
	}
}
