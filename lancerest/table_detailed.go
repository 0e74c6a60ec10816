package lancerest

import (
	"context"
	"encoding/json"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/lancemeta"
	"github.com/floe/floe/observe"
)

// Observer answers a table's latest observation: DescribeTable's detailed
// metadata falls back to it when the manifest cannot be read.
type Observer interface {
	Stats(objectID string, format catalog.Format) (observe.Stats, bool)
}

// tableStats is the spec's TableBasicStats, plus num_rows (live rows),
// which the spec's object does not list and clients may ignore.
type tableStats struct {
	NumDeletedRows uint64 `json:"num_deleted_rows"`
	NumFragments   uint64 `json:"num_fragments"`
	NumRows        uint64 `json:"num_rows"`
}

// statsSourceProperty says where schema and stats came from: "manifest"
// (read now from the version's manifest), "observation" (the manifest could
// not be read; a worker's last look) or "unavailable" (neither).
const statsSourceProperty = "floe.stats_source"

// detailedMetadata fills schema and stats for version (0: latest) of t.
func (s *Server) detailedMetadata(ctx context.Context, t catalog.Table, version uint64, resp *describeTableResponse) {
	m, found, err := lancemeta.Version(ctx, s.store.Storage(), t.Location, version)
	if err == nil && found {
		resp.Schema = &m.Schema
		resp.Stats = &tableStats{NumDeletedRows: m.DeletedRows, NumFragments: uint64(m.Fragments), NumRows: m.Rows()}
		resp.Properties = map[string]string{statsSourceProperty: "manifest"}
		return
	}
	if err != nil {
		s.log.Warn("lance manifest unreadable; describing from the last observation", "table", t.ID, "err", err)
	}
	resp.Properties = map[string]string{statsSourceProperty: "unavailable"}
	if s.observer == nil {
		return
	}
	st, ok := s.observer.Stats(t.ID, catalog.FormatLance)
	if !ok {
		return
	}
	resp.Properties[statsSourceProperty] = "observation"
	if len(st.Schema) > 0 {
		resp.Schema = &lancemeta.Schema{Fields: observedFields(st.Schema)}
	}
	if st.Fragments != nil && st.Rows != nil {
		resp.Stats = &tableStats{NumFragments: uint64(max(*st.Fragments, 0)), NumRows: uint64(max(*st.Rows, 0))}
	}
}

// observedFields converts a worker's Arrow-style fields; nested types keep
// their children, types stay as the worker named them.
func observedFields(in []observe.Field) []lancemeta.Field {
	out := make([]lancemeta.Field, 0, len(in))
	for _, f := range in {
		t := lancemeta.DataType{Type: f.TypeString()}
		var obj struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(f.Type, &obj) == nil && obj.Name != "" {
			t.Type = obj.Name
		}
		if len(f.Children) > 0 {
			t.Fields = observedFields(f.Children)
		}
		out = append(out, lancemeta.Field{Name: f.Name, Nullable: f.Nullable, Type: t, Metadata: f.Metadata})
	}
	return out
}
