package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// Grantee kinds: who a grant is for.
const (
	GranteeUser   = "user"   // a console user (local, or from the identity provider), by name
	GranteeGroup  = "group"  // every member of a group, by the group's name
	GranteeAPIKey = "apikey" // an API key, by its id (k_…)
)

// Privileges a grant gives, weakest first (identity.Privilege names the
// same four; the catalog keeps its own words so it imports no caller).
var privileges = []string{"read", "write", "maintain", "manage"}

// maxGranteeID bounds a grantee's name: user and group names from an
// identity provider are e-mail addresses or paths, far below this.
const maxGranteeID = 255

// Grantee is who a grant is for.
type Grantee struct {
	Kind string // GranteeUser, GranteeGroup or GranteeAPIKey
	ID   string
}

// String is "kind:id", as the CLI and the console write a grantee.
func (g Grantee) String() string { return g.Kind + ":" + g.ID }

// ParseGrantee reads "user:NAME", "group:NAME" or "apikey:ID".
func ParseGrantee(s string) (Grantee, error) {
	kind, id, ok := strings.Cut(s, ":")
	g := Grantee{Kind: kind, ID: id}
	if !ok {
		return Grantee{}, Invalid("grantee", fmt.Sprintf("grantee %q must be user:NAME, group:NAME or apikey:ID", s))
	}
	return g, g.validate()
}

func (g Grantee) validate() error {
	switch g.Kind {
	case GranteeUser, GranteeGroup, GranteeAPIKey:
	default:
		return Invalid("grantee", fmt.Sprintf("grantee kind %q is not one of user, group, apikey", g.Kind))
	}
	if g.ID == "" || len(g.ID) > maxGranteeID || !utf8.ValidString(g.ID) {
		return Invalid("grantee", fmt.Sprintf("a grantee's name is 1–%d characters of UTF-8", maxGranteeID))
	}
	for _, r := range g.ID {
		if r < 0x20 || r == 0x7f {
			return Invalid("grantee", "a grantee's name has no control characters")
		}
	}
	return nil
}

// Grant gives Grantee Privilege on a place and everything inside it. The
// place is everything (Bucket ""), a bucket, a namespace (Namespace set) or
// a table or view (Table set too). A grant names a place, not an object: a
// table created there later is covered, and a table dropped and created
// again under its name is covered again.
type Grant struct {
	Grantee   Grantee
	Bucket    string
	Namespace []string
	Table     string
	Privilege string // read, write, maintain, manage
	CreatedAt time.Time
	CreatedBy string // the principal that granted; "migration" or "role" for grants that came with a role
}

// Place is the grant's place as grants are written: "*", "b", "b/ns.sub",
// "b/ns.sub/t" (identity.Resource's String).
func (g Grant) Place() string { return PlaceString(g.Bucket, g.Namespace, g.Table) }

// PlaceString writes a place: "*", "b", "b/ns.sub", "b/ns.sub/t".
func PlaceString(bucket string, ns []string, table string) string {
	if bucket == "" {
		return "*"
	}
	s := bucket
	if len(ns) > 0 {
		s += "/" + JoinNamespace(ns)
		if table != "" {
			s += "/" + table
		}
	}
	return s
}

// ParsePlace reads a place written by PlaceString.
func ParsePlace(s string) (bucket string, ns []string, table string, err error) {
	if s == "*" || s == "" {
		return "", nil, "", nil
	}
	parts := strings.Split(s, "/")
	if len(parts) > 3 {
		return "", nil, "", Invalid("place", fmt.Sprintf("place %q must be *, BUCKET, BUCKET/NAMESPACE or BUCKET/NAMESPACE/TABLE (levels joined by .)", s))
	}
	bucket = parts[0]
	if len(parts) > 1 {
		ns = SplitNamespace(parts[1])
	}
	if len(parts) > 2 {
		table = parts[2]
	}
	return bucket, ns, table, validatePlace(bucket, ns, table)
}

func validatePlace(bucket string, ns []string, table string) error {
	if bucket == "" {
		if len(ns) > 0 || table != "" {
			return Invalid("place", "a namespace or table needs its bucket")
		}
		return nil
	}
	if err := validateBucket("bucket", bucket); err != nil {
		return err
	}
	if len(ns) == 0 {
		if table != "" {
			return Invalid("place", "a table needs its namespace")
		}
		return nil
	}
	if err := validateNamespace(ns); err != nil {
		return err
	}
	if table != "" {
		return ValidateTableName(table)
	}
	return nil
}

func validatePrivilege(p string) error {
	for _, q := range privileges {
		if p == q {
			return nil
		}
	}
	return Invalid("privilege", fmt.Sprintf("privilege %q is not one of read, write, maintain, manage", p))
}

// roleGrant is the privilege a role gives on its scope, which is what the
// role always meant: admin users and readwrite keys manage (and so write
// and maintain), readonly reads; RoleNone gives nothing (grants decide).
func roleGrant(r Role) string {
	switch r {
	case RoleAdmin, RoleReadWrite:
		return "manage"
	case RoleReadonly:
		return "read"
	}
	return ""
}

const grantColumns = `grantee_kind, grantee_id, bucket, namespace, table_name, privilege, created_at, created_by`

// insertRoleGrant records the grant a new user's or key's role gives it,
// in the transaction that creates it.
func (s *Store) insertRoleGrant(ctx context.Context, q querier, who Grantee, role Role, bucket string, at time.Time) error {
	priv := roleGrant(role)
	if priv == "" {
		return nil
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO grants(`+grantColumns+`) VALUES (?, ?, ?, '', '', ?, ?, 'role')
		ON CONFLICT DO NOTHING`, who.Kind, who.ID, bucket, priv, micros(at)); err != nil {
		return dbErr("insert the role's grant", err)
	}
	return nil
}

// AddGrant records g (created false when it was there already). The place
// must exist (a bucket, namespace, table or view) and so must an API key
// grantee; a user or group may be one the identity provider has not
// signed in yet.
func (s *Store) AddGrant(ctx context.Context, g Grant) (Grant, bool, error) {
	if err := s.checkGrant(g); err != nil {
		return Grant{}, false, err
	}
	g.CreatedAt = s.now().UTC()
	var created bool
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		if err := s.placeExists(ctx, tx, g.Bucket, g.Namespace, g.Table); err != nil {
			return err
		}
		if g.Grantee.Kind == GranteeAPIKey {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM api_keys WHERE id = ?`, g.Grantee.ID).Scan(&one)
			if errors.Is(err, sql.ErrNoRows) {
				return newErr(fault.NotFound, "grantee", "API key %q does not exist; floe grant list or the API keys page shows the keys' ids", g.Grantee.ID)
			}
			if err != nil {
				return dbErr("find the grantee", err)
			}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO grants(`+grantColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, g.Grantee.Kind, g.Grantee.ID, g.Bucket, JoinNamespace(g.Namespace), g.Table,
			g.Privilege, micros(g.CreatedAt), g.CreatedBy)
		if err != nil {
			return dbErr("insert grant", err)
		}
		n, _ := res.RowsAffected()
		created = n > 0
		return nil
	})
	return g, created, err
}

func (s *Store) checkGrant(g Grant) error {
	if err := g.Grantee.validate(); err != nil {
		return err
	}
	if err := validatePrivilege(g.Privilege); err != nil {
		return err
	}
	return validatePlace(g.Bucket, g.Namespace, g.Table)
}

// placeExists is fault.NotFound unless the place names something there
// is: everything, a bucket, a namespace, a table or a view.
func (s *Store) placeExists(ctx context.Context, q querier, bucket string, ns []string, table string) error {
	if bucket == "" {
		return nil
	}
	if _, err := s.getBucket(ctx, q, bucket); err != nil {
		return err
	}
	if len(ns) == 0 {
		return nil
	}
	if err := s.requireNamespace(ctx, q, bucket, JoinNamespace(ns)); err != nil {
		return err
	}
	if table == "" {
		return nil
	}
	ref := TableRef{Bucket: bucket, Namespace: ns, Name: table}
	if _, ok, err := s.findTable(ctx, q, ref); err != nil || ok {
		return err
	}
	if _, ok, err := findView(ctx, q, ref); err != nil || ok {
		return err
	}
	return tableNotFound(ref)
}

// RemoveGrant deletes g (fault.NotFound when there is no such grant). The
// last grant of manage on everything to a user or group is refused
// (fault.Conflict): nobody could then grant anything in the console.
func (s *Store) RemoveGrant(ctx context.Context, g Grant) error {
	if err := s.checkGrant(g); err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *persist.Tx) error {
		if g.Bucket == "" && g.Privilege == "manage" && g.Grantee.Kind != GranteeAPIKey {
			var others int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM grants WHERE bucket = '' AND privilege = 'manage'
				AND grantee_kind <> 'apikey' AND NOT (grantee_kind = ? AND grantee_id = ?)`, g.Grantee.Kind, g.Grantee.ID).Scan(&others); err != nil {
				return dbErr("count managers", err)
			}
			if others == 0 {
				return newErr(fault.Conflict, "grantee", "%s holds the last grant of manage on everything; grant it to another user or group first, or nobody could grant anything in the console", g.Grantee)
			}
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM grants WHERE grantee_kind = ? AND grantee_id = ? AND bucket = ?
			AND namespace = ? AND table_name = ? AND privilege = ?`,
			g.Grantee.Kind, g.Grantee.ID, g.Bucket, JoinNamespace(g.Namespace), g.Table, g.Privilege)
		if err != nil {
			return dbErr("delete grant", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return newErr(fault.NotFound, "grant", "%s holds no %s grant on %s; floe grant list shows what it holds", g.Grantee, g.Privilege, g.Place())
		}
		return nil
	})
}

// GrantFilter selects grants for ListGrants; the zero filter is all.
type GrantFilter struct {
	// Grantee, when set, keeps that grantee's grants.
	Grantee *Grantee
	// Covering, when set, keeps the grants that cover the place: on it or
	// on any place that contains it ("*" always covers).
	Covering *Grant
	// Within, when set, keeps the grants on the place and inside it.
	Within *Grant
}

// maxListedGrants bounds one listing: the console's Access tab and the
// CLI show grants to people; a catalog with more around one place has
// lost track of them anyway.
const maxListedGrants = 10_000

// ListGrants lists the grants the filter keeps, ordered by place, grantee
// and privilege.
func (s *Store) ListGrants(ctx context.Context, f GrantFilter) ([]Grant, error) {
	var where []string
	var args []any
	if f.Grantee != nil {
		where = append(where, `grantee_kind = ? AND grantee_id = ?`)
		args = append(args, f.Grantee.Kind, f.Grantee.ID)
	}
	if c := f.Covering; c != nil {
		// Everything, the bucket, each namespace level down to the
		// place's own, and the table.
		alts := []string{`bucket = ''`}
		if c.Bucket != "" {
			alts = append(alts, `(bucket = ? AND namespace = '')`)
			args = append(args, c.Bucket)
			for i := range c.Namespace {
				alts = append(alts, `(bucket = ? AND namespace = ? AND table_name = '')`)
				args = append(args, c.Bucket, JoinNamespace(c.Namespace[:i+1]))
			}
			if c.Table != "" && len(c.Namespace) > 0 {
				alts = append(alts, `(bucket = ? AND namespace = ? AND table_name = ?)`)
				args = append(args, c.Bucket, JoinNamespace(c.Namespace), c.Table)
			}
		}
		where = append(where, "("+strings.Join(alts, " OR ")+")")
	}
	if w := f.Within; w != nil && w.Bucket != "" {
		switch {
		case len(w.Namespace) == 0:
			where = append(where, `bucket = ?`)
			args = append(args, w.Bucket)
		case w.Table == "":
			ns := JoinNamespace(w.Namespace)
			lo, hi := subtreeBounds(ns)
			where = append(where, `bucket = ? AND (namespace = ? OR (namespace >= ? AND namespace < ?))`)
			args = append(args, w.Bucket, ns, lo, hi)
		default:
			where = append(where, `bucket = ? AND namespace = ? AND table_name = ?`)
			args = append(args, w.Bucket, JoinNamespace(w.Namespace), w.Table)
		}
	}
	q := `SELECT ` + grantColumns + ` FROM grants`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += fmt.Sprintf(` ORDER BY bucket, namespace, table_name, grantee_kind, grantee_id, privilege LIMIT %d`, maxListedGrants)
	return s.queryGrants(ctx, s.ro, q, args...)
}

func (s *Store) queryGrants(ctx context.Context, q querier, query string, args ...any) ([]Grant, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, dbErr("list grants", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var g Grant
		var ns string
		var at int64
		if err := rows.Scan(&g.Grantee.Kind, &g.Grantee.ID, &g.Bucket, &ns, &g.Table, &g.Privilege, &at, &g.CreatedBy); err != nil {
			return nil, dbErr("read grant", err)
		}
		g.Namespace, g.CreatedAt = SplitNamespace(ns), fromMicros(at)
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, dbErr("list grants", err)
	}
	return out, nil
}

// moveTableGrants moves the grants on a table's (or view's) own name to its
// new name, in the rename's transaction: what was granted on the table
// follows it, while grants on the namespaces it leaves and enters stay
// where they are. Grants someone left on the new name before (a table
// dropped there once) give way.
func moveTableGrants(ctx context.Context, q querier, from, to TableRef) error {
	fromNS, toNS := JoinNamespace(from.Namespace), JoinNamespace(to.Namespace)
	if _, err := q.ExecContext(ctx, `DELETE FROM grants WHERE bucket = ? AND namespace = ? AND table_name = ?`,
		to.Bucket, toNS, to.Name); err != nil {
		return dbErr("clear grants on the new name", err)
	}
	if _, err := q.ExecContext(ctx, `UPDATE grants SET namespace = ?, table_name = ? WHERE bucket = ? AND namespace = ? AND table_name = ?`,
		toNS, to.Name, from.Bucket, fromNS, from.Name); err != nil {
		return dbErr("move the table's grants", err)
	}
	// Its resource policy (S3 Tables) goes with it too.
	if _, err := q.ExecContext(ctx, `DELETE FROM resource_policies WHERE bucket = ? AND namespace = ? AND table_name = ?`,
		to.Bucket, toNS, to.Name); err != nil {
		return dbErr("clear the policy on the new name", err)
	}
	if _, err := q.ExecContext(ctx, `UPDATE resource_policies SET namespace = ?, table_name = ? WHERE bucket = ? AND namespace = ? AND table_name = ?`,
		toNS, to.Name, from.Bucket, fromNS, from.Name); err != nil {
		return dbErr("move the table's policy", err)
	}
	return nil
}
