package plugin

import (
	"context"
	"errors"
	"testing"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// TestSubmitJobAsksTheAuthorizer (#22): every job submitted outside
// detection is decided for its submitter on the job's table — maintain by
// default, write for a job that says so —, and a submission naming nobody
// is refused.
func TestSubmitJobAsksTheAuthorizer(t *testing.T) {
	db, st := openStore(t, t.TempDir())
	t.Cleanup(func() { st.Close(); db.Close() })
	ctx := context.Background()
	if _, err := st.CreateBucket(ctx, catalog.CreateBucketInput{Name: "lnc", Format: catalog.FormatLance}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateNamespace(ctx, "lnc", []string{"ns"}, nil); err != nil {
		t.Fatal(err)
	}
	tb, _, err := st.CreateTable(ctx, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "lnc", Namespace: []string{"ns"}, Name: "t"}, Format: catalog.FormatLance})
	if err != nil {
		t.Fatal(err)
	}
	user := func(name string) identity.Principal { return identity.Principal{Kind: identity.User, ID: name} }
	for who, priv := range map[string]string{"reader": "read", "maint": "maintain", "writer": "write"} {
		if _, _, err := st.AddGrant(ctx, catalog.Grant{Grantee: catalog.Grantee{Kind: "user", ID: who}, Bucket: "lnc", Namespace: []string{"ns"}, Privilege: priv}); err != nil {
			t.Fatal(err)
		}
	}
	p, err := New(Config{DB: db, Store: st, Logger: quietLogger(), Authz: authz.New(st)})
	if err != nil {
		t.Fatal(err)
	}
	stop := start(t, p)
	t.Cleanup(func() { p.Shutdown(ctx); stop() })
	for i, c := range []struct {
		by   identity.Principal
		need identity.Privilege
		want fault.Kind // "" allowed
	}{
		{identity.Principal{}, "", fault.Unauthenticated},
		{user("reader"), "", fault.Forbidden},
		{user("maint"), "", ""},
		{user("writer"), "", fault.Forbidden},
		{user("writer"), identity.Write, ""},
		{user("maint"), identity.Write, fault.Forbidden},
	} {
		_, err := p.SubmitJob(ctx, JobSpec{Type: "lance_compact", ObjectID: tb.ID, DedupeKey: string(rune('a' + i)), By: c.by, Need: c.need})
		if got := fault.KindOf(err); got != c.want || (c.want == "" && err != nil && !errors.Is(err, ErrDuplicateJob)) {
			t.Errorf("%s needing %q: %v, want %q", c.by, c.need, err, c.want)
		}
	}
}
