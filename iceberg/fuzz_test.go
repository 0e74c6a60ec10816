package iceberg

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/floe/floe/jsonstrict"
)

// Fuzz targets run as ordinary tests over testdata/fuzz/<Name>/ and the seeds
// below; `make fuzz` explores each for a bounded time.

// FuzzSchema: a schema body either fails to decode, is refused by the limits
// with a sentence, or is within them and survives a JSON round trip intact.
func FuzzSchema(f *testing.F) {
	for _, s := range []string{
		`{"type":"struct","fields":[{"id":1,"name":"a","required":true,"type":"long"}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"d","required":false,"type":"decimal(38,38)"},{"id":2,"name":"f","required":false,"type":"fixed[16]"}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"d","required":false,"type":"decimal(99999999999,2)"}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"m","required":false,"type":{"type":"map","key-id":2,"key":"string","value-id":3,"value":{"type":"list","element-id":4,"element":"int","element-required":true},"value-required":false}}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"s","required":false,"type":{"type":"struct","fields":[{"id":2,"name":"t","required":false,"type":{"type":"struct","fields":[]}}]}}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"a","name":"b","required":false,"type":"long"}]}`,
		`{"type":"struct","fields":[{"id":1,"name":"x","required":false,"type":"fixed[0]"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if jsonstrict.Check(body) != nil {
			return
		}
		var s Schema
		if json.Unmarshal(body, &s) != nil {
			return
		}
		if err := checkSchemaLimits(s.Fields); err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal without a sentence")
			}
			return
		}
		if depth(Type{Struct: s.Fields}) > MaxSchemaDepth+1 {
			t.Fatalf("accepted a schema %d deep", depth(Type{Struct: s.Fields}))
		}
		if collectIDs(Type{Struct: s.Fields}, map[int]bool{}) != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("marshal an accepted schema: %v", err)
		}
		var back Schema
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-read %s: %v", out, err)
		}
		if !reflect.DeepEqual(normal(back.Fields), normal(s.Fields)) {
			t.Fatalf("round trip changed the schema:\n%s", out)
		}
	})
}

func depth(t Type) int {
	switch {
	case t.Primitive != "":
		return 0
	case t.List != nil:
		return 1 + depth(t.List.Element)
	case t.Map != nil:
		return 1 + max(depth(t.Map.Key), depth(t.Map.Value))
	}
	d := 0
	for _, f := range t.Struct {
		d = max(d, depth(f.Type))
	}
	return 1 + d
}

// normal re-marshals fields so nil and empty slices compare equal.
func normal(fs []Field) string {
	if len(fs) == 0 {
		return "[]" // no fields and a missing "fields" key are the same schema; marshalling writes []
	}
	b, _ := json.Marshal(fs)
	return string(b)
}
