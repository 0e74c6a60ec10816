package iceberg

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiffSchemas(t *testing.T) {
	a := SchemaInfo{ID: 0, Columns: []Column{
		{ID: 1, Path: "id", Type: "int", Required: true},
		{ID: 2, Path: "name", Type: "string"},
		{ID: 3, Path: "meta", Type: "struct<src: string>"},
		{ID: 4, Path: "meta.src", Type: "string"},
		{ID: 5, Path: "tags", Type: "list<int>"},
		{ID: 6, Path: "gone", Type: "double", Doc: "old"},
		{ID: 8, Path: "items", Type: "list<struct<x: int>>"},
		{ID: 9, Path: "items.element", Type: "struct<x: int>"},
		{ID: 10, Path: "items.element.x", Type: "int"},
	}}
	b := SchemaInfo{ID: 1, Columns: []Column{
		{ID: 1, Path: "id", Type: "long"},
		{ID: 2, Path: "full_name", Type: "string", Doc: "who"},
		{ID: 3, Path: "meta", Type: "struct<src: string, at: timestamp>"},
		{ID: 4, Path: "meta.src", Type: "string"},
		{ID: 7, Path: "meta.at", Type: "timestamp"},
		{ID: 5, Path: "tags", Type: "list<long>"},
		{ID: 8, Path: "items", Type: "list<struct<x: long>>"},
		{ID: 9, Path: "items.element", Type: "struct<x: long>"},
		{ID: 10, Path: "items.element.x", Type: "long"},
	}}
	var got []string
	for _, c := range DiffSchemas(a, b) {
		got = append(got, fmt.Sprintf("%d %s %s [%s→%s]", c.ID, c.Kind, c.Path, c.From, c.To))
	}
	want := []string{
		"1 type changed id [int→long]",
		"1 made optional id [→]",
		"2 renamed full_name [name→full_name]",
		"2 doc changed full_name [→who]",
		"5 type changed tags [list<int>→list<long>]", // a primitive element has no column of its own
		"6 removed gone [double→]",
		"7 added meta.at [→timestamp]",
		"10 type changed items.element.x [int→long]", // its list and struct say nothing more
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := DiffSchemas(b, b); len(d) != 0 {
		t.Errorf("a schema against itself: %v", d)
	}
}
