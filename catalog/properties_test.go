package catalog

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
)

// TestPropertyBounds: namespace and Lance table properties keep the
// Iceberg library's bounds, floe.* keys stay floe's, an Iceberg table's
// properties are not changed behind its metadata, and a stale version
// token is a conflict.
func TestPropertyBounds(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "vec"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateNamespace(ctx, "vec", []string{"prod"}, nil); err != nil {
		t.Fatal(err)
	}
	many := map[string]string{}
	for i := range MaxProperties + 1 {
		many[fmt.Sprint("k", i)] = "v"
	}
	_, err := s.UpdateNamespaceProperties(ctx, "vec", []string{"prod"}, nil, many)
	wantKind(t, err, fault.Invalid)
	_, err = s.UpdateNamespaceProperties(ctx, "vec", []string{"prod"}, nil, map[string]string{strings.Repeat("k", MaxPropertyKeyBytes+1): "v"})
	wantKind(t, err, fault.Invalid)
	if ns, err := s.UpdateNamespaceProperties(ctx, "vec", []string{"prod"}, nil, map[string]string{"owner": "ops"}); err != nil || ns.Properties["owner"] != "ops" {
		t.Fatalf("a fine update: %v %v", ns.Properties, err)
	}

	lt, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: TableRef{Bucket: "vec", Namespace: []string{"prod"}, Name: "items"}, Format: FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.UpdateTableProperties(ctx, lt.ID, lt.VersionToken, nil, map[string]string{"model": "e5"})
	if err != nil || got.Properties["model"] != "e5" || got.VersionToken == lt.VersionToken {
		t.Fatalf("UpdateTableProperties = %+v, %v", got, err)
	}
	_, err = s.UpdateTableProperties(ctx, lt.ID, lt.VersionToken, nil, map[string]string{"model": "e6"})
	wantKind(t, err, fault.Conflict)
	_, err = s.UpdateTableProperties(ctx, lt.ID, "", []string{"floe.stats_source"}, nil)
	wantKind(t, err, fault.Invalid)
	if got, err := s.UpdateTableProperties(ctx, lt.ID, "", []string{"model"}, nil); err != nil || len(got.Properties) != 0 {
		t.Fatalf("remove: %v %v", got.Properties, err)
	}
	if _, err := s.CreateBucket(ctx, CreateBucketInput{Name: "lake", Format: FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateNamespace(ctx, "lake", []string{"raw"}, nil); err != nil {
		t.Fatal(err)
	}
	it, _, err := s.CreateTable(ctx, CreateTableInput{TableRef: TableRef{Bucket: "lake", Namespace: []string{"raw"}, Name: "events"}, Format: FormatIceberg})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.UpdateTableProperties(ctx, it.ID, "", nil, map[string]string{"a": "b"})
	wantKind(t, err, fault.Conflict)
	_, err = s.UpdateTableProperties(ctx, "nope", "", nil, map[string]string{"a": "b"})
	wantKind(t, err, fault.NotFound)
}
