package catalog

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// SetUserRole changes a user's role. The last enabled admin keeps theirs:
// without one nobody could manage users from the console again.
func (s *Store) SetUserRole(ctx context.Context, name string, role Role) (User, error) {
	if err := validateUserRole(role); err != nil {
		return User{}, err
	}
	return s.changeUser(ctx, name, func(tx *persist.Tx, u *User) error {
		if u.Role == RoleAdmin && role != RoleAdmin && !u.Disabled() {
			if err := s.keepAnAdmin(ctx, tx, name, "make them read-only"); err != nil {
				return err
			}
		}
		if u.FromIdP() {
			return newErr(fault.Conflict, "role", "user %q signs in through the identity provider %s, whose groups give the role at each sign-in; change the groups there, or grant on the Access tabs", name, u.Issuer)
		}
		if u.Role == role {
			return nil
		}
		u.Role = role
		if _, err := tx.ExecContext(ctx, `UPDATE users SET role = ? WHERE name = ?`, string(role), name); err != nil {
			return err
		}
		// The role's grant (what CreateUser recorded for it) follows the
		// role; grants given on the Access tabs stay.
		if _, err := tx.ExecContext(ctx, `DELETE FROM grants WHERE grantee_kind = ? AND grantee_id = ? AND created_by = 'role'`,
			GranteeUser, name); err != nil {
			return err
		}
		return s.insertRoleGrant(ctx, tx, Grantee{Kind: GranteeUser, ID: name}, role, "", s.now().UTC())
	})
}

// SetUserDisabled disables a user (sign-in refused, every session signed
// out) or enables them again. The last enabled admin cannot be disabled.
func (s *Store) SetUserDisabled(ctx context.Context, name string, disabled bool) (User, error) {
	now := s.now().UTC()
	return s.changeUser(ctx, name, func(tx *persist.Tx, u *User) error {
		if disabled == u.Disabled() {
			return nil
		}
		if !disabled {
			u.DisabledAt = time.Time{}
			_, err := tx.ExecContext(ctx, `UPDATE users SET disabled_at = 0 WHERE name = ?`, name)
			return err
		}
		if u.Role == RoleAdmin {
			if err := s.keepAnAdmin(ctx, tx, name, "disable them"); err != nil {
				return err
			}
		}
		u.DisabledAt, u.SessionsAfter = now, now
		_, err := tx.ExecContext(ctx, `UPDATE users SET disabled_at = ?, sessions_after = ? WHERE name = ?`, micros(now), micros(now), name)
		return err
	})
}

// SessionUser answers the user a console session signed in as at
// signedIn, or why the session no longer counts: fault.NotFound (the user
// was deleted), fault.Forbidden (disabled, or signed out by a password
// reset since).
func (s *Store) SessionUser(ctx context.Context, name string, signedIn time.Time) (User, error) {
	u, err := s.GetUser(ctx, name)
	if err != nil {
		return User{}, err
	}
	if err := CheckSession(u, signedIn); err != nil {
		return User{}, err
	}
	return u, nil
}

// CheckSession is SessionUser's rule for a user already read: nil when a
// session u signed in at signedIn still counts.
func CheckSession(u User, signedIn time.Time) error {
	if u.Disabled() {
		return errUserDisabled(u.Name)
	}
	if !u.SessionsAfter.IsZero() && signedIn.Before(u.SessionsAfter) {
		return &fault.Error{Kind: fault.Forbidden, Field: "session",
			Message: "You were signed out: your password was reset or your account changed. Sign in again."}
	}
	return nil
}

// changeUser reads a user in a write transaction and applies fn, which
// updates the row and the copy it is handed.
func (s *Store) changeUser(ctx context.Context, name string, fn func(tx *persist.Tx, u *User) error) (User, error) {
	var u User
	err := s.inTx(ctx, func(tx *persist.Tx) error {
		var err error
		u, err = scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE name = ?`, name))
		if errors.Is(err, sql.ErrNoRows) {
			return newErr(fault.NotFound, "username", "user %q does not exist", name)
		}
		if err != nil {
			return dbErr("get user", err)
		}
		if err := fn(tx, &u); err != nil {
			if _, ok := fault.As(err); ok {
				return err
			}
			return dbErr("update user", err)
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// keepAnAdmin refuses a change that would leave no enabled admin but name.
func (s *Store) keepAnAdmin(ctx context.Context, tx *persist.Tx, name, change string) error {
	var others int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE role = ? AND disabled_at = 0 AND name <> ?`,
		string(RoleAdmin), name).Scan(&others); err != nil {
		return dbErr("count admins", err)
	}
	if others == 0 {
		return newErr(fault.Conflict, "username",
			"%s is the only enabled admin; make another user admin before you %s, or nobody could manage users", name, change)
	}
	return nil
}

// RandomPassword is a password for an admin to hand over (a new user's, a
// reset one): as long and as random as the first admin's.
func RandomPassword() string { return randomBase62(generatedPasswordLen) }
