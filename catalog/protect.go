package catalog

import (
	"context"
	"fmt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// ProtectedProperty, set to "true" on a table's or a namespace's
// properties, protects it: the table, the namespace, and everything that
// contains one (its namespaces and its bucket) refuse drop, purge,
// cascade, overwrite and rename unless the caller forces it. It is a
// property so it travels with the format's own metadata: Lance describes
// and Iceberg loads show it, and an Iceberg table keeps it in its metadata
// file. A bucket, which has no properties, keeps it in a column.
const ProtectedProperty = "floe.protected"

// FieldProtected is the Field of every refusal protection makes, so a
// surface can tell it from other conflicts.
const FieldProtected = "protected"

// FieldRecentlyDeleted is the Field of a refusal because a recently deleted
// table still holds what the request wants (its location): undrop it or
// purge it first.
const FieldRecentlyDeleted = "recently_deleted"

// IsProtected reports whether properties carry floe.protected=true.
func IsProtected(props map[string]string) bool { return props[ProtectedProperty] == "true" }

// Protected reports whether the table is protected.
func (t Table) Protected() bool { return IsProtected(t.Properties) }

// Protected reports whether the namespace is protected.
func (n Namespace) Protected() bool { return IsProtected(n.Properties) }

// checkProtectedValue refuses a floe.protected property that is neither
// true nor false, so a typo never reads as "unprotected".
func checkProtectedValue(props map[string]string) error {
	if v, ok := props[ProtectedProperty]; ok && v != "true" && v != "false" {
		return Invalid(ProtectedProperty, fmt.Sprintf("%s must be true or false, not %q", ProtectedProperty, v))
	}
	return nil
}

// forceHint is how every protection refusal ends: what to do instead.
const forceHint = "unprotect it first, or repeat the request with force (needs the manage privilege)"

func protectedTableErr(t Table, op string) error {
	return newErr(fault.Conflict, FieldProtected,
		"table %q in namespace %q of bucket %q is protected (%s=true), so it refuses %s; %s",
		t.Name, JoinNamespace(t.Namespace), t.Bucket, ProtectedProperty, op, forceHint)
}

func protectedNamespaceErr(bucket, ns, op string) error {
	return newErr(fault.Conflict, FieldProtected,
		"namespace %q of bucket %q is protected (%s=true), so it refuses %s; %s",
		ns, bucket, ProtectedProperty, op, forceHint)
}

func protectedBucketErr(bucket, op string) error {
	return newErr(fault.Conflict, FieldProtected,
		"bucket %q is protected, so it refuses %s; %s", bucket, op, forceHint)
}

// protectedInsideErr names the protected thing that makes its container
// refuse: "namespace "a" holds protected table "t" (in a.b)".
func protectedInsideErr(container, op, what string) error {
	return newErr(fault.Conflict, FieldProtected,
		"%s holds %s, so it refuses %s; unprotect that first, or repeat the request with force (needs the manage privilege)",
		container, what, op)
}

// checkTableProtection refuses op on a protected table unless forced.
func checkTableProtection(t Table, op string, force bool) error {
	if t.Protected() && !force {
		return protectedTableErr(t, op)
	}
	return nil
}

// CheckTableProtection is checkTableProtection for the format libraries
// (an Iceberg register that overwrites, a commit) that change a table
// through their own path.
func CheckTableProtection(t Table, op string, force bool) error {
	return checkTableProtection(t, op, force)
}

// checkSubtreeProtection refuses op on a namespace subtree (or a whole
// bucket when ns is "") when a namespace or a table in it is protected,
// unless forced. container names the thing acted on for the sentence.
func checkSubtreeProtection(bucket, container, op string, nss []Namespace, tables []Table, force bool) error {
	if force {
		return nil
	}
	for _, n := range nss {
		if n.Protected() {
			return protectedInsideErr(container, op, fmt.Sprintf("protected namespace %q", n.Name()))
		}
	}
	for _, t := range tables {
		if t.Protected() {
			return protectedInsideErr(container, op,
				fmt.Sprintf("protected table %q (in namespace %q)", t.Name, JoinNamespace(t.Namespace)))
		}
	}
	return nil
}

// SetBucketProtected protects a bucket or lifts its protection.
func (s *Store) SetBucketProtected(ctx context.Context, name string, on bool) (Bucket, error) {
	if err := validateBucket("bucket", name); err != nil {
		return Bucket{}, err
	}
	var b Bucket
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if b, err = s.getBucket(ctx, tx, name); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE buckets SET protected = ? WHERE name = ?`, boolInt(on), name); err != nil {
			return dbErr("protect bucket", err)
		}
		b.Protected = on
		return nil
	})
	return b, err
}

// SetNamespaceProtected protects a namespace or lifts its protection (its
// floe.protected property).
func (s *Store) SetNamespaceProtected(ctx context.Context, bucket string, levels []string, on bool) (Namespace, error) {
	if on {
		return s.UpdateNamespaceProperties(ctx, bucket, levels, nil, map[string]string{ProtectedProperty: "true"})
	}
	return s.UpdateNamespaceProperties(ctx, bucket, levels, []string{ProtectedProperty}, nil)
}

// SetTableProtected protects a Lance table or lifts its protection (its
// floe.protected property). An Iceberg table keeps its properties in its
// metadata file, so it is protected through a commit that sets the
// property (iceberg.Tables.SetProtected), never here: a catalog-only
// property would be lost at the table's next commit.
func (s *Store) SetTableProtected(ctx context.Context, ref TableRef, on bool) (Table, error) {
	if err := validateRef(ref); err != nil {
		return Table{}, err
	}
	var t Table
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		if t, err = s.getTable(ctx, tx, ref); err != nil {
			return err
		}
		if t.Format == FormatIceberg {
			return newErr(fault.Conflict, "format",
				"table %q is an Iceberg table: its properties live in its metadata, so protect it with a commit that sets %s (the console and floe table protect do that)", t.Name, ProtectedProperty)
		}
		if on {
			t.Properties[ProtectedProperty] = "true"
		} else {
			delete(t.Properties, ProtectedProperty)
		}
		t, err = s.updateEntry(ctx, tx, t)
		return err
	})
	if err != nil {
		return Table{}, err
	}
	return t, nil
}
