package catalog

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// IdPSignIn is what the identity provider vouched for at a console sign-in.
type IdPSignIn struct {
	// Issuer and Subject name the user at the provider; required.
	Issuer, Subject string
	// Name is the user name the provider suggests (preferred_username,
	// email or the subject): a new user gets it when it is a valid floe
	// user name nobody has, else a form of it made unique (see idpUserName).
	Name string
	// Groups the provider's groups claim named.
	Groups []string
	// Role is what the user may do (the sign-in decides it from Groups,
	// afresh each time); "" is no role.
	Role Role
}

// Bounds on what a sign-in stores, so a provider's claim cannot grow a
// users row without end: more groups than a person has, or names longer
// than any directory uses, are the provider's mistake.
const (
	maxIdPGroups    = 256
	maxIdPGroupName = 255
	maxIdPSubject   = 255
	maxIdPIssuer    = 2048
)

// SignInIdPUser records a sign-in through the identity provider: the user
// its issuer and subject name, made on the first sign-in (no password),
// with the groups and role of this sign-in and its time. The provider's
// suggested name never takes over an existing user: a local "alice" and
// the provider's "alice" are two users (the second named "alice-<hash>").
func (s *Store) SignInIdPUser(ctx context.Context, in IdPSignIn) (User, error) {
	switch {
	case in.Issuer == "" || len(in.Issuer) > maxIdPIssuer:
		return User{}, Invalid("issuer", "the identity provider's issuer must be 1–2048 characters")
	case in.Subject == "" || len(in.Subject) > maxIdPSubject:
		return User{}, Invalid("subject", "the identity provider's subject (sub) must be 1–255 characters")
	case len(in.Groups) > maxIdPGroups:
		return User{}, Invalid("groups", "the identity provider named more than 256 groups for this user")
	case in.Role != "" && validateUserRole(in.Role) != nil:
		return User{}, validateUserRole(in.Role)
	}
	for _, g := range in.Groups {
		if g == "" || len(g) > maxIdPGroupName {
			return User{}, Invalid("groups", "every group name must be 1–255 characters")
		}
	}
	now := s.now().UTC()
	groups := encodeGroups(in.Groups)
	var u User
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		found, err := scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE idp_issuer = ? AND idp_subject = ?`, in.Issuer, in.Subject))
		switch {
		case err == nil:
			if _, err := tx.ExecContext(ctx, `UPDATE users SET role = ?, idp_groups = ?, last_sign_in_at = ? WHERE name = ?`,
				string(in.Role), groups, micros(now), found.Name); err != nil {
				return dbErr("update user", err)
			}
			u = found
		case errors.Is(err, sql.ErrNoRows):
			name, err := s.freeIdPUserName(ctx, tx, in)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, password_hash, role, created_at, idp_issuer, idp_subject, idp_groups, last_sign_in_at) VALUES (?, '', ?, ?, ?, ?, ?, ?)`,
				name, string(in.Role), micros(now), in.Issuer, in.Subject, groups, micros(now)); s.isUniqueViolation(err) {
				// Another replica made this user (or took the name) since the
				// lookup above; the next sign-in finds it.
				return newErr(fault.Conflict, "username", "another sign-in of the same user finished at the same moment; sign in again")
			} else if err != nil {
				return dbErr("insert user", err)
			}
			u = User{Name: name, CreatedAt: now, Issuer: in.Issuer, Subject: in.Subject}
		default:
			return dbErr("get user", err)
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	u.Role, u.Groups, u.LastSignInAt = in.Role, decodeGroups(groups), fromMicros(micros(now))
	return u, nil
}

// freeIdPUserName picks the name of a new identity-provider user: the
// provider's suggestion made a valid user name, or with a suffix from the
// issuer and subject when that is taken (by a local user or another
// subject), so the same person always gets the same suffix.
func (s *Store) freeIdPUserName(ctx context.Context, tx *persist.Tx, in IdPSignIn) (string, error) {
	sum := sha256.Sum256([]byte(in.Issuer + "\x00" + in.Subject))
	suffix := "-" + hex.EncodeToString(sum[:4])
	base := idpUserName(in.Name)
	if base == "" {
		base = idpUserName(in.Subject)
	}
	if base == "" {
		base = "user"
	}
	for _, name := range []string{base, clip(base, maxUserName-len(suffix)) + suffix} {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE name = ?`, name).Scan(&n); err != nil {
			return "", dbErr("count users", err)
		}
		if n == 0 {
			return name, nil
		}
	}
	return "", newErr(fault.Conflict, "username", "the user names %q and %q are both taken, so this identity-provider user cannot get one; rename or delete one of them (floe user delete)", base, base+suffix)
}

// idpUserName makes a provider's name a floe user name: lower case, every
// character the rules refuse replaced by a hyphen, at most maxUserName
// long; "" when nothing usable is left.
func idpUserName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r < 0x80 && (isLowerAlnum(byte(r)) || r == '_' || r == '.' || r == '-'):
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(clip(b.String(), maxUserName), "-.")
	if validateUserName(name) != nil {
		return ""
	}
	return name
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

func encodeGroups(groups []string) string {
	if len(groups) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(groups) // strings always marshal
	return string(b)
}

// decodeGroups reads idp_groups; a value that is not a JSON array of
// strings (never written by floe) reads as no groups.
func decodeGroups(s string) []string {
	var groups []string
	if json.Unmarshal([]byte(s), &groups) != nil || len(groups) == 0 {
		return nil
	}
	return groups
}
