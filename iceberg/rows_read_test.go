package iceberg

import "testing"

func TestCapCell(t *testing.T) {
	long := ""
	for range 150 {
		long += "é日"
	}
	c := capCell(long)
	if !c.Truncated || len([]rune(c.Text)) != MaxCellRunes {
		t.Fatalf("cap = %d runes, truncated %v", len([]rune(c.Text)), c.Truncated)
	}
	if c := capCell(""); c.Null || c.Text != "" || c.Truncated {
		t.Fatalf("empty string cell = %+v", c)
	}
}
