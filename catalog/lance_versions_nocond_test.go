package catalog

import (
	"cmp"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
	"golang.org/x/crypto/bcrypt"
)

// noCondLocal is the local disk standing for a store that ignores
// conditional writes (an S3 store run with --s3-conditional-put absent).
type noCondLocal struct{ *warehouse.Local }

func (noCondLocal) ConditionalWrites() bool { return false }

// On a store without conditional writes every new bucket that may hold
// Lance tables is managed, and none can be turned unmanaged; Iceberg
// buckets are left alone (the catalog decides their commits anyway).
func TestManagedOnlyWithoutConditionalWrites(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	local, err := warehouse.OpenLocal(filepath.Join(dir, "warehouse"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, Options{Path: catalogPath(t, dir), Warehouse: local.Root().String(), Backend: noCondLocal{local}, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Storage().ConditionalWrites() {
		t.Fatal("the warehouse says it has conditional writes")
	}
	for _, f := range []Format{FormatLance, FormatUnset} {
		b := mustBucket(t, s, "b-"+strings.ToLower(cmp.Or(string(f), "unset")), f)
		if !b.ManagedVersioning {
			t.Fatalf("a new %q bucket is not managed", f)
		}
		err := s.SetManagedVersioning(ctx, b.Name, false)
		wantKind(t, err, fault.Invalid)
		if !strings.Contains(err.Error(), "If-None-Match") {
			t.Fatalf("the refusal says %q; want it to name If-None-Match", err)
		}
		if on, _ := s.ManagedVersioning(ctx, b.Name); !on {
			t.Fatalf("bucket %s lost managed versioning", b.Name)
		}
	}
	ice := mustBucket(t, s, "ice", FormatIceberg)
	if ice.ManagedVersioning {
		t.Fatal("an Iceberg bucket was made managed")
	}
}
