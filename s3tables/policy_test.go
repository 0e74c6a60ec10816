package s3tables_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"

	"github.com/floe/floe/catalog"
)

// TestTablePolicyLetsOneKeyReadOneTable (#22): through the AWS SDK, a
// manager puts a table policy — as Terraform's aws_s3tables_table_policy
// sends it — that lets one access key read one table. That key, which held
// nothing before, reads the table and is refused elsewhere (the bucket's
// other table, a write to its own table, another bucket); Get returns the
// policy as it was put; Delete takes the grant away again.
func TestTablePolicyLetsOneKeyReadOneTable(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	ctx := ctxT(t)
	bg := context.Background()
	if _, _, err := e.store.CreateTable(bg, catalog.CreateTableInput{TableRef: catalog.TableRef{Bucket: "shared", Namespace: []string{"ns"}, Name: "other"},
		Format: catalog.FormatIceberg}); err != nil {
		t.Fatal(err)
	}
	reader, _, err := e.store.CreateAPIKey(bg, "policy-reader", catalog.RoleNone, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, admin := e.client(reader), e.client(e.rw)
	shared := arnPrefix + "bucket/shared"
	get := func(c *sdk.Client, name string) error {
		_, err := c.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String(name)})
		return err
	}
	if err := get(rc, "t"); !isAccessDenied(err) {
		t.Fatalf("before the policy the key reads: %v", err)
	}
	tb, err := admin.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	policy := `{
  "Version": "2012-10-17",
  "Statement": [{
    "Sid": "ReadTheOneTable",
    "Effect": "Allow",
    "Principal": {"AWS": "` + reader.AccessKeyID + `"},
    "Action": ["s3tables:GetTable", "s3tables:GetTableMetadataLocation", "s3tables:GetTableData"],
    "Resource": "` + aws.ToString(tb.TableARN) + `"
  }]
}`
	// A key that may only read the table may not put its policy.
	if _, err := e.client(e.ro).PutTablePolicy(ctx, &sdk.PutTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t"),
		ResourcePolicy: aws.String(policy)}); !isAccessDenied(err) {
		t.Fatalf("a read-only key put a policy: %v", err)
	}
	if _, err := admin.PutTablePolicy(ctx, &sdk.PutTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t"),
		ResourcePolicy: aws.String(policy)}); err != nil {
		t.Fatalf("PutTablePolicy: %v", err)
	}

	if err := get(rc, "t"); err != nil {
		t.Fatalf("the policy's key cannot read its table: %v", err)
	}
	if _, err := rc.GetTableMetadataLocation(ctx, &sdk.GetTableMetadataLocationInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")}); err != nil {
		t.Fatalf("GetTableMetadataLocation: %v", err)
	}
	if err := get(rc, "other"); !isAccessDenied(err) {
		t.Errorf("the key reads the bucket's other table: %v", err)
	}
	if _, err := rc.GetTable(ctx, &sdk.GetTableInput{TableBucketARN: aws.String(arnPrefix + "bucket/scoped"), Namespace: aws.String("ns"), Name: aws.String("t")}); !isAccessDenied(err) {
		t.Errorf("the key reads another bucket: %v", err)
	}
	if _, err := rc.DeleteTable(ctx, &sdk.DeleteTableInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")}); !isAccessDenied(err) {
		t.Errorf("the key deletes its table: %v", err)
	}
	tables, err := rc.ListTables(ctx, &sdk.ListTablesInput{TableBucketARN: &shared})
	if err != nil || len(tables.Tables) != 1 || aws.ToString(tables.Tables[0].Name) != "t" {
		t.Errorf("ListTables for the key = %+v, %v; want its one table", tables, err)
	}
	buckets, err := rc.ListTableBuckets(ctx, &sdk.ListTableBucketsInput{})
	if err != nil || len(buckets.TableBuckets) != 1 || aws.ToString(buckets.TableBuckets[0].Name) != "shared" {
		t.Errorf("ListTableBuckets for the key = %+v, %v; want the bucket its table is in", buckets, err)
	}

	got, err := admin.GetTablePolicy(ctx, &sdk.GetTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
	if err != nil || aws.ToString(got.ResourcePolicy) != policy {
		t.Fatalf("GetTablePolicy = %q, %v; want the policy as put", aws.ToString(got.ResourcePolicy), err)
	}

	// Changed elsewhere (the key's grant removed and another added), Get
	// writes the policy the grants now make.
	bob := catalog.Grantee{Kind: catalog.GranteeUser, ID: "bob"}
	if _, _, err := e.store.AddGrant(bg, catalog.Grant{Grantee: bob, Bucket: "shared", Namespace: []string{"ns"}, Table: "t", Privilege: "write"}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.PutPolicy(bg, catalog.Grant{Bucket: "shared", Namespace: []string{"ns"}, Table: "t"}, "{}", "test",
		[]catalog.Grant{{Grantee: catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: reader.ID}, Privilege: "read"}, {Grantee: bob, Privilege: "write"}}); err != nil {
		t.Fatal(err)
	}
	got, err = admin.GetTablePolicy(ctx, &sdk.GetTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
	if err != nil || aws.ToString(got.ResourcePolicy) != "{}" {
		t.Fatalf("GetTablePolicy = %q, %v", aws.ToString(got.ResourcePolicy), err)
	}
	if err := e.store.RemoveGrant(bg, catalog.Grant{Grantee: bob, Bucket: "shared", Namespace: []string{"ns"}, Table: "t", Privilege: "write"}); err != nil {
		t.Fatal(err)
	}
	got, err = admin.GetTablePolicy(ctx, &sdk.GetTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Statement []struct {
			Effect    string
			Principal map[string][]string
			Action    []string
			Resource  []string
		}
	}
	if err := json.Unmarshal([]byte(aws.ToString(got.ResourcePolicy)), &doc); err != nil {
		t.Fatalf("the written policy is not JSON: %v", err)
	}
	if len(doc.Statement) != 1 || doc.Statement[0].Effect != "Allow" || strings.Join(doc.Statement[0].Principal["AWS"], ",") != reader.AccessKeyID ||
		!contains(doc.Statement[0].Action, "s3tables:GetTable") || doc.Statement[0].Resource[0] != aws.ToString(tb.TableARN) {
		t.Errorf("the policy written from the grants: %s", aws.ToString(got.ResourcePolicy))
	}

	if _, err := admin.DeleteTablePolicy(ctx, &sdk.DeleteTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")}); err != nil {
		t.Fatalf("DeleteTablePolicy: %v", err)
	}
	if err := get(rc, "t"); !isAccessDenied(err) {
		t.Errorf("after the delete the key still reads: %v", err)
	}
	var nf *types.NotFoundException
	if _, err := admin.GetTablePolicy(ctx, &sdk.GetTablePolicyInput{TableBucketARN: &shared, Namespace: aws.String("ns"), Name: aws.String("t")}); !errors.As(err, &nf) {
		t.Errorf("GetTablePolicy after delete: %v, want NotFoundException", err)
	}
}

// TestBucketPolicyRefusesWhatFloeCannotHonour: every part of the policy
// grammar floe has no grant for is refused with a sentence saying so.
func TestBucketPolicyRefusesWhatFloeCannotHonour(t *testing.T) {
	e := newTestEnv(t)
	e.seed()
	ctx := ctxT(t)
	shared := arnPrefix + "bucket/shared"
	stmt := func(s string) string { return `{"Version":"2012-10-17","Statement":[` + s + `]}` }
	ak := e.ro.AccessKeyID
	for _, c := range []struct{ policy, want string }{
		{`not json`, "not a policy document"},
		{stmt(`{"Effect":"Deny","Principal":{"AWS":"` + ak + `"},"Action":"s3tables:GetTable"}`), "only allow"},
		{stmt(`{"Effect":"Allow","Principal":"*","Action":"s3tables:GetTable"}`), "never to everyone"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::999999999999:root"},"Action":"s3tables:GetTable"}`), "account 999999999999"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"FLOEDOESNOTEXIST000"},"Action":"s3tables:GetTable"}`), "no floe access key id"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"` + ak + `"},"Action":"s3tables:Get*"}`), "whole action names"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"` + ak + `"},"Action":"s3:GetObject"}`), "not an S3 Tables action"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"` + ak + `"},"Action":"s3tables:GetTable","Condition":{"Bool":{"aws:SecureTransport":"true"}}}`), "no conditions"},
		{stmt(`{"Effect":"Allow","Principal":{"AWS":"` + ak + `"},"Action":"s3tables:GetTable","Resource":"` + arnPrefix + `bucket/scoped"}`), "not this policy's"},
	} {
		_, err := e.client(e.rw).PutTableBucketPolicy(ctx, &sdk.PutTableBucketPolicyInput{TableBucketARN: &shared, ResourcePolicy: aws.String(c.policy)})
		var br *types.BadRequestException
		if !errors.As(err, &br) || !strings.Contains(aws.ToString(br.Message), c.want) {
			t.Errorf("policy %s: %v, want BadRequestException saying %q", c.policy, err, c.want)
		}
	}
	// A bucket policy with a group and a user ARN, and s3tables:* (manage).
	p := stmt(`{"Effect":"Allow","Principal":{"AWS":["arn:aws:iam::` + testAccount + `:group/analysts"]},"Action":["s3tables:GetTable","s3tables:PutTableData"],"Resource":"` + shared + `/*"},` +
		`{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam::` + testAccount + `:user/ops"},"Action":"s3tables:*"}`)
	if _, err := e.client(e.rw).PutTableBucketPolicy(ctx, &sdk.PutTableBucketPolicyInput{TableBucketARN: &shared, ResourcePolicy: aws.String(p)}); err != nil {
		t.Fatalf("PutTableBucketPolicy: %v", err)
	}
	all, err := e.store.ListGrants(context.Background(), catalog.GrantFilter{Grantee: &catalog.Grantee{Kind: "group", ID: "analysts"}})
	if err != nil || len(all) != 1 || all[0].Privilege != "write" || all[0].Place() != "shared" {
		t.Errorf("the group's grants: %+v, %v; want write on shared (PutTableData with GetTable)", all, err)
	}
	ops, err := e.store.ListGrants(context.Background(), catalog.GrantFilter{Grantee: &catalog.Grantee{Kind: "user", ID: "ops"}})
	if err != nil || len(ops) != 1 || ops[0].Privilege != "manage" {
		t.Errorf("the user's grants: %+v, %v; want manage (s3tables:*)", ops, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isAccessDenied(err error) bool {
	var ad *types.AccessDeniedException
	var fb *types.ForbiddenException
	return errors.As(err, &ad) || errors.As(err, &fb)
}
