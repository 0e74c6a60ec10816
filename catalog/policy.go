package catalog

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"slices"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// originPolicy marks the grants a resource policy made (grants.origin).
const originPolicy = "policy"

// maxPolicyGrants bounds the grants one resource policy may make: a
// policy names a handful of principals; thousands are a mistake, and each
// is a row every authorizer index holds.
const maxPolicyGrants = 1000

// Policy is a place's resource policy: the document its client sent (""
// once the grants it made were changed elsewhere, so the document no
// longer says what they are) and the grants it stands for.
type Policy struct {
	Document string
	Grants   []Grant
}

// policyFingerprint identifies a set of grants of one place.
func policyFingerprint(gs []Grant) string {
	keys := make([]string, 0, len(gs))
	for _, g := range gs {
		keys = append(keys, g.Grantee.Kind+"\x00"+g.Grantee.ID+"\x00"+g.Privilege)
	}
	slices.Sort(keys)
	sum := sha256.Sum256([]byte(strings.Join(keys, "\x01")))
	return hex.EncodeToString(sum[:])
}

// PutPolicy makes grants the resource policy of the place at (its Bucket,
// Namespace and Table; grants' own places are ignored): the grants an
// earlier policy made there are replaced, others (a role's, the console's,
// the CLI's) stay. A grant that existed already becomes the policy's.
// document is kept for Policy to answer.
func (s *Store) PutPolicy(ctx context.Context, at Grant, document, by string, grants []Grant) error {
	if err := validatePlace(at.Bucket, at.Namespace, at.Table); err != nil {
		return err
	}
	if len(grants) > maxPolicyGrants {
		return Invalid("resourcePolicy", "a policy makes at most 1,000 grants (principal × privilege); split the principals into groups")
	}
	for i := range grants {
		g := &grants[i]
		g.Bucket, g.Namespace, g.Table, g.CreatedBy = at.Bucket, at.Namespace, at.Table, by
		if err := s.checkGrant(*g); err != nil {
			return err
		}
	}
	now := micros(s.now())
	ns := JoinNamespace(at.Namespace)
	return s.inTx(ctx, func(tx *persist.Tx) error {
		if err := s.placeExists(ctx, tx, at.Bucket, at.Namespace, at.Table); err != nil {
			return err
		}
		for _, g := range grants {
			if g.Grantee.Kind != GranteeAPIKey {
				continue
			}
			var one int
			if err := tx.QueryRowContext(ctx, `SELECT 1 FROM api_keys WHERE id = ?`, g.Grantee.ID).Scan(&one); errors.Is(err, sql.ErrNoRows) {
				return newErr(fault.Invalid, "resourcePolicy", "the policy names API key %s, which does not exist", g.Grantee.ID)
			} else if err != nil {
				return dbErr("find a policy's grantee", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM grants WHERE origin = ? AND bucket = ? AND namespace = ? AND table_name = ?`,
			originPolicy, at.Bucket, ns, at.Table); err != nil {
			return dbErr("replace a policy's grants", err)
		}
		for _, g := range grants {
			if _, err := tx.ExecContext(ctx, `INSERT INTO grants(`+grantColumns+`, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (grantee_kind, grantee_id, bucket, namespace, table_name, privilege) DO UPDATE SET origin = excluded.origin`,
				g.Grantee.Kind, g.Grantee.ID, at.Bucket, ns, at.Table, g.Privilege, now, by, originPolicy); err != nil {
				return dbErr("insert a policy's grant", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO resource_policies(bucket, namespace, table_name, document, fingerprint, updated_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (bucket, namespace, table_name) DO UPDATE SET
			document = excluded.document, fingerprint = excluded.fingerprint, updated_at = excluded.updated_at`,
			at.Bucket, ns, at.Table, document, policyFingerprint(grants), now); err != nil {
			return dbErr("store the policy", err)
		}
		return nil
	})
}

// Policy is the place's resource policy: fault.NotFound when it has none
// (no policy was put, or it was deleted, or every grant it made is gone).
func (s *Store) Policy(ctx context.Context, at Grant) (Policy, error) {
	if err := validatePlace(at.Bucket, at.Namespace, at.Table); err != nil {
		return Policy{}, err
	}
	ns := JoinNamespace(at.Namespace)
	gs, err := s.queryGrants(ctx, s.ro, `SELECT `+grantColumns+` FROM grants WHERE origin = ? AND bucket = ? AND namespace = ? AND table_name = ?
		ORDER BY privilege, grantee_kind, grantee_id`, originPolicy, at.Bucket, ns, at.Table)
	if err != nil {
		return Policy{}, err
	}
	var doc, fp string
	err = s.ro.QueryRowContext(ctx, `SELECT document, fingerprint FROM resource_policies WHERE bucket = ? AND namespace = ? AND table_name = ?`,
		at.Bucket, ns, at.Table).Scan(&doc, &fp)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Policy{}, dbErr("read the policy", err)
	}
	if len(gs) == 0 {
		return Policy{}, newErr(fault.NotFound, "resourcePolicy", "%s has no resource policy", PlaceString(at.Bucket, at.Namespace, at.Table))
	}
	p := Policy{Grants: gs}
	if fp == policyFingerprint(gs) {
		p.Document = doc
	}
	return p, nil
}

// DeletePolicy removes the place's resource policy and the grants it made
// (fault.NotFound when it has none).
func (s *Store) DeletePolicy(ctx context.Context, at Grant) error {
	if err := validatePlace(at.Bucket, at.Namespace, at.Table); err != nil {
		return err
	}
	ns := JoinNamespace(at.Namespace)
	return s.inTx(ctx, func(tx *persist.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM grants WHERE origin = ? AND bucket = ? AND namespace = ? AND table_name = ?`,
			originPolicy, at.Bucket, ns, at.Table)
		if err != nil {
			return dbErr("delete a policy's grants", err)
		}
		n, _ := res.RowsAffected()
		doc, err := tx.ExecContext(ctx, `DELETE FROM resource_policies WHERE bucket = ? AND namespace = ? AND table_name = ?`, at.Bucket, ns, at.Table)
		if err != nil {
			return dbErr("delete the policy", err)
		}
		if d, _ := doc.RowsAffected(); n == 0 && d == 0 {
			return newErr(fault.NotFound, "resourcePolicy", "%s has no resource policy", PlaceString(at.Bucket, at.Namespace, at.Table))
		}
		return nil
	})
}
