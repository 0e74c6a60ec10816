package preview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/floe/floe/plugin/plugintest"
)

func TestDecodeEachType(t *testing.T) {
	res, err := Decode(allTypesIPC(t, 3), 10)
	if err != nil {
		t.Fatal(err)
	}
	if res.RowsRead != 3 || len(res.Columns) != len(allTypesSchema.Fields()) {
		t.Fatalf("rows %d, columns %d", res.RowsRead, len(res.Columns))
	}
	col := map[string]int{}
	for i, c := range res.Columns {
		col[c.Name] = i
	}
	for _, tc := range []struct {
		column, want string
		cut          bool
	}{
		{"i8", "-8", false}, {"i16", "-16", false}, {"i32", "0", false}, {"i64", "1099511627776", false},
		{"u8", "8", false}, {"u16", "16", false}, {"u32", "32", false}, {"u64", "9223372036854775808", false},
		{"f32", "1.5", false}, {"f64", "0.25", false}, {"s", "héllo", false},
		{"b", "true", false}, {"d", "2026-03-04", false}, {"ts", "2026-03-04 05:06:07", false},
		{"vec", "[0, 0.25, 0.5, 0.75, 1, …] (768)", true},
		{"tags", `["a", "b"]`, false},
		{"meta", `{k: "x", n: null}`, false},
	} {
		t.Run(tc.column, func(t *testing.T) {
			c := res.Rows[0][col[tc.column]]
			if c.Text != tc.want || c.Null || c.Truncated != tc.cut {
				t.Fatalf("cell = %+v, want %q (cut %v)", c, tc.want, tc.cut)
			}
			if null := res.Rows[1][col[tc.column]]; !null.Null || null.Text != "" {
				t.Fatalf("null row rendered as %+v", null)
			}
		})
	}
	t.Run("empty string is not null", func(t *testing.T) {
		for _, name := range []string{"s", "ls"} {
			c := res.Rows[2][col[name]]
			if c.Null || c.Text != "" {
				t.Fatalf("%s: %+v", name, c)
			}
		}
	})
	t.Run("large_utf8 cut at a rune boundary", func(t *testing.T) {
		c := res.Rows[0][col["ls"]]
		if !c.Truncated || !utf8.ValidString(c.Text) || utf8.RuneCountInString(c.Text) != MaxCellRunes+1 {
			t.Fatalf("cut cell: %d runes, valid %v, truncated %v", utf8.RuneCountInString(c.Text), utf8.ValidString(c.Text), c.Truncated)
		}
	})
	if want := "fixed_size_list<item: float32, nullable>[768]"; res.Columns[col["vec"]].Type != want {
		t.Errorf("vector type = %q, want %q", res.Columns[col["vec"]].Type, want)
	}
}

func TestDecodeCaps(t *testing.T) {
	t.Run("row limit", func(t *testing.T) {
		res, err := Decode(allTypesIPC(t, 250), MaxRowLimit)
		if err != nil || res.RowsRead != MaxRowLimit || len(res.Rows) != MaxRowLimit || !res.Truncated {
			t.Fatalf("rows %d truncated %v err %v", res.RowsRead, res.Truncated, err)
		}
	})
	t.Run("two streams back to back", func(t *testing.T) {
		data := append(allTypesIPC(t, 3), allTypesIPC(t, 4)...)
		res, err := Decode(data, 100)
		if err != nil || res.RowsRead != 7 {
			t.Fatalf("rows %d err %v", res.RowsRead, err)
		}
	})
	t.Run("garbage", func(t *testing.T) {
		if _, err := Decode([]byte("not arrow at all"), 10); err == nil {
			t.Fatal("garbage decoded")
		}
	})
	t.Run("split chunks rejoin", func(t *testing.T) {
		var joined []byte
		for _, c := range plugintest.Split(allTypesIPC(t, 5), 1000) {
			joined = append(joined, c...)
		}
		res, err := Decode(joined, 100)
		if err != nil || res.RowsRead != 5 {
			t.Fatalf("rows %d err %v", res.RowsRead, err)
		}
	})
	t.Run("clip", func(t *testing.T) {
		s, cut := clip(strings.Repeat("日", 250), 200)
		if !cut || utf8.RuneCountInString(s) != 201 || !utf8.ValidString(s) {
			t.Fatalf("clip: %d runes", utf8.RuneCountInString(s))
		}
		if s, cut := clip("short", 200); cut || s != "short" {
			t.Fatal("short text clipped")
		}
	})
}
