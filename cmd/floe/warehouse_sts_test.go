package main

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/floe/floe/internal/s3test"
	"github.com/floe/floe/warehouse"
)

// --vend-credentials sts: flags that cannot work are refused before
// anything is opened, and a role the store will not let floe assume stops
// the start with a sentence naming it.
func TestServeVendSTSFlags(t *testing.T) {
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"sts without a role", []string{"--vend-credentials", "sts"}, "needs --s3-sts-role-arn"},
		{"role without sts", []string{"--vend-credentials", "static", "--s3-sts-role-arn", "arn:aws:iam::1:role/r"}, "only serve --vend-credentials sts"},
		{"unknown mode", []string{"--vend-credentials", "always"}, "use off, static or sts"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"serve", "--data", t.TempDir(), "--http", "127.0.0.1:0", "--lance", "", "--iceberg", "", "--s3tables", "",
				"--warehouse", "s3://bkt/wh", "--s3-endpoint", "http://127.0.0.1:1"}, tc.args...)
			out, code := run(t, args...)
			if code != 2 || !strings.Contains(out, tc.want) {
				t.Fatalf("code %d, output %q; want 2 and %q", code, out, tc.want)
			}
		})
	}
}

func TestOpenS3WarehouseChecksSTS(t *testing.T) {
	st := s3test.NewWithSTS(t)
	bucket := st.Bucket(t)
	t.Setenv("AWS_ACCESS_KEY_ID", st.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", st.SecretKey)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	flags := func(role string) s3Flags {
		return s3Flags{Endpoint: st.Endpoint, Region: s3test.Region, PathStyle: true, Vend: "sts", STSRoleARN: role}
	}
	if _, err := openS3Warehouse(t.Context(), "s3://"+bucket+"/wh", flags("arn:aws:iam::000000000000:role/nobody"), log); err == nil ||
		!strings.Contains(err.Error(), "cannot vend credentials") || !strings.Contains(err.Error(), "role/nobody") {
		t.Fatalf("untrusted role: err = %v; want a refusal naming the role", err)
	}
	wh, err := openS3Warehouse(t.Context(), "s3://"+bucket+"/wh", flags(st.RoleARN), log)
	if err != nil {
		t.Fatalf("trusted role: %v", err)
	}
	c, err := wh.backend.Vend(t.Context(), wh.vend, wh.wh.Root().MustJoin("b", "ns", "t.lance"), warehouse.AccessWrite)
	if wh.vend != warehouse.VendSTS || err != nil || c.SessionToken == "" {
		t.Fatalf("vend %s: %+v, %v; want session keys", wh.vend, c, err)
	}
}
