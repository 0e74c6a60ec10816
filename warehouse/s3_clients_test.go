package warehouse

import (
	"maps"
	"testing"
)

func TestClientSettings(t *testing.T) {
	ctx := t.Context()
	root := mustParse(t, "s3://bkt/wh")
	tbl := root.MustJoin("b", "ns", "t.lance")
	cases := []struct {
		name    string
		cfg     S3Config
		mode    VendMode
		lance   map[string]string
		iceberg map[string]string
	}{
		{"self-hosted http, path style, no keys", S3Config{Endpoint: "http://127.0.0.1:8333", Region: "eu-1", PathStyle: true, AccessKey: "AK", SecretKey: "SK"}, VendOff,
			map[string]string{"aws_endpoint": "http://127.0.0.1:8333", "aws_region": "eu-1", "allow_http": "true", "aws_virtual_hosted_style_request": "false"},
			map[string]string{"s3.endpoint": "http://127.0.0.1:8333", "client.region": "eu-1", "s3.path-style-access": "true"}},
		{"https, virtual hosted, static keys", S3Config{Endpoint: "https://s3.example.com", Region: "eu-1", AccessKey: "AK", SecretKey: "SK", SessionToken: "TOK"}, VendStatic,
			map[string]string{"aws_endpoint": "https://s3.example.com", "aws_region": "eu-1", "aws_virtual_hosted_style_request": "true",
				"aws_access_key_id": "AK", "aws_secret_access_key": "SK", "aws_session_token": "TOK"},
			map[string]string{"s3.endpoint": "https://s3.example.com", "client.region": "eu-1", "s3.path-style-access": "false",
				"s3.access-key-id": "AK", "s3.secret-access-key": "SK", "s3.session-token": "TOK"}},
		{"AWS itself", S3Config{Region: "us-west-2", AccessKey: "AK", SecretKey: "SK"}, VendOff,
			map[string]string{"aws_region": "us-west-2", "aws_virtual_hosted_style_request": "true"},
			map[string]string{"client.region": "us-west-2", "s3.path-style-access": "false"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := OpenS3(ctx, root, c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			creds, err := b.Vend(ctx, c.mode, tbl, AccessWrite)
			if err != nil {
				t.Fatal(err)
			}
			if got := b.LanceStorageOptions(creds); !maps.Equal(got, c.lance) {
				t.Errorf("Lance storage_options = %v\nwant %v", got, c.lance)
			}
			if got := b.IcebergConfig(creds); !maps.Equal(got, c.iceberg) {
				t.Errorf("Iceberg config = %v\nwant %v", got, c.iceberg)
			}
		})
	}
	b, _ := OpenS3(ctx, root, S3Config{AccessKey: "AK", SecretKey: "SK"})
	if _, err := b.Vend(ctx, VendStatic, mustParse(t, "s3://other/x"), AccessWrite); err == nil {
		t.Error("Vend handed out keys for a location outside the warehouse")
	}
}

func TestParseVendMode(t *testing.T) {
	for in, want := range map[string]VendMode{"": VendOff, "off": VendOff, "STATIC": VendStatic, "sts": VendSTS} {
		if got, err := ParseVendMode(in); got != want || err != nil {
			t.Errorf("ParseVendMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"always", "sts-ish"} {
		if _, err := ParseVendMode(in); err == nil {
			t.Errorf("ParseVendMode(%q) accepted", in)
		}
	}
}
