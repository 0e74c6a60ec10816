package s3test

import (
	"crypto/rand"
	"encoding/json"
	"os"
	"testing"
)

// VendRoleARN is the one role a store started by NewWithSTS defines: its
// trust policy admits the store's admin identity, its attached policy
// allows every S3 action, so what a session may do is decided by the
// session policy the caller passes to AssumeRole.
const VendRoleARN = "arn:aws:iam::000000000000:role/floe-vend"

// NewWithSTS starts a store of the test's own with weed's STS service on
// (its advanced IAM file), stopped at cleanup. The shared store runs
// without it: an IAM file makes weed deny by default, which the other
// packages' tests have no reason to meet.
func NewWithSTS(t testing.TB) *Store {
	t.Helper()
	_, err := weedPath()
	unavailable(t, err)
	s, err := start(t.TempDir(), true, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// writeIAM writes weed's advanced IAM file: an STS signing key, the role
// VendRoleARN trusted by the identity named user, and the policy that role
// carries.
func writeIAM(path, user string) error {
	key := make([]byte, 32)
	rand.Read(key)
	type stmt struct {
		Effect    string         `json:"Effect"`
		Principal map[string]any `json:"Principal,omitempty"`
		Action    []string       `json:"Action"`
		Resource  []string       `json:"Resource,omitempty"`
	}
	type doc struct {
		Version   string `json:"Version"`
		Statement []stmt `json:"Statement"`
	}
	cfg := map[string]any{
		"sts": map[string]any{
			"tokenDuration":    "1h",
			"maxSessionLength": "12h",
			"issuer":           "floe-s3test",
			"signingKey":       key, // []byte marshals as base64, as weed reads it
		},
		"policy": map[string]any{"defaultEffect": "Deny"},
		"roles": []map[string]any{{
			"roleName": "floe-vend",
			"roleArn":  VendRoleARN,
			"trustPolicy": doc{"2012-10-17", []stmt{{
				Effect:    "Allow",
				Principal: map[string]any{"AWS": "arn:aws:iam::000000000000:user/" + user},
				Action:    []string{"sts:AssumeRole"},
			}}},
			"attachedPolicies": []string{"floe-vend-s3"},
		}},
		"policies": []map[string]any{{
			"name": "floe-vend-s3",
			"document": doc{"2012-10-17", []stmt{{
				Effect: "Allow", Action: []string{"s3:*"}, Resource: []string{"arn:aws:s3:::*", "arn:aws:s3:::*/*"},
			}}},
		}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}
