package catalog

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"

	"golang.org/x/crypto/bcrypt"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/persist"
)

// dummyHash is compared against when the user does not exist, so an
// unknown name costs the same bcrypt work as a wrong password. Made on first
// use: hashing at package init would slow every binary importing catalog.
func (s *Store) dummyHash() []byte {
	s.dummyOnce.Do(func() {
		s.dummy, _ = bcrypt.GenerateFromPassword([]byte("floe-dummy-password"), s.bcryptCost())
	})
	return s.dummy
}

func (s *Store) bcryptCost() int {
	if s.opts.BcryptCost == 0 {
		return bcrypt.DefaultCost
	}
	return s.opts.BcryptCost
}

// generatedPasswordLen is the length of the admin password made on first
// start when none is given: 20 base62 characters is about 119 bits.
const generatedPasswordLen = 20

func validateUserRole(r Role) error {
	if r != RoleAdmin && r != RoleReadonly {
		return Invalid("role", "user role must be admin or readonly")
	}
	return nil
}

func errBadCredentials() error {
	return newErr(fault.NotFound, "password", "user name or password is wrong; check both and try again")
}

// CreateUser adds a user with a bcrypt-hashed password.
func (s *Store) CreateUser(ctx context.Context, name, password string, role Role) (User, error) {
	if err := validateUserName(name); err != nil {
		return User{}, err
	}
	if err := validateUserRole(role); err != nil {
		return User{}, err
	}
	if err := validatePassword(password); err != nil {
		return User{}, err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.bcryptCost())
	if err != nil {
		return User{}, Invalid("password", "password cannot be hashed: "+err.Error())
	}
	u := User{Name: name, Role: role, CreatedAt: s.now().UTC()}
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO users(name, password_hash, role, created_at) VALUES (?, ?, ?, ?)`,
			name, string(hash), string(role), micros(u.CreatedAt))
		if s.isUniqueViolation(err) {
			return newErr(fault.AlreadyExists, "username", "user %q already exists; pick another name", name)
		}
		if err != nil {
			return dbErr("insert user", err)
		}
		// The role is the user's first grant (admin: manage everything;
		// readonly: read everything); grants decide from then on.
		return s.insertRoleGrant(ctx, tx, Grantee{Kind: GranteeUser, ID: name}, role, "", u.CreatedAt)
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// SetUserPassword replaces a local user's password and signs out every
// session the user signed in before (whoever knew the old password is out
// too). A user of the identity provider has none and gets none: its
// sign-in stays the provider's.
func (s *Store) SetUserPassword(ctx context.Context, name, password string) error {
	if err := validatePassword(password); err != nil {
		return err
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.bcryptCost())
	if err != nil {
		return Invalid("password", "password cannot be hashed: "+err.Error())
	}
	res, err := s.db.ExecContext(ctx, `UPDATE users SET password_hash = ?, sessions_after = ? WHERE name = ? AND idp_subject = ''`,
		string(hash), micros(s.now()), name)
	if err != nil {
		return dbErr("update user", err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	u, err := s.GetUser(ctx, name)
	if err != nil {
		return err
	}
	if u.FromIdP() {
		return newErr(fault.Conflict, "username", "user %q signs in through the identity provider %s and has no password; change it there, or add a local user for break-glass access", name, u.Issuer)
	}
	return newErr(fault.NotFound, "username", "user %q does not exist", name)
}

// Authenticate checks a password in constant time against the stored hash.
// Unknown user or wrong password both give fault.NotFound, and so does a
// user of the identity provider (it has no password; its sign-in is the
// provider's), after the same bcrypt work; the right password of a
// disabled user gives fault.Forbidden (ErrUserDisabled).
func (s *Store) Authenticate(ctx context.Context, name, password string) (User, error) {
	var hash string
	u, err := s.getUser(ctx, `SELECT `+userColumns+`, password_hash FROM users WHERE name = ?`, name, &hash)
	if errors.Is(err, fault.NotFound) || (err == nil && hash == "") {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password))
		return User{}, errBadCredentials()
	}
	if err != nil {
		return User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return User{}, errBadCredentials()
	}
	if u.Disabled() {
		return User{}, errUserDisabled(u.Name)
	}
	return u, nil
}

// ErrUserDisabled is the finer reason of the refusal a disabled user gets.
var ErrUserDisabled = errors.New("user disabled")

func errUserDisabled(name string) error {
	return &fault.Error{Kind: fault.Forbidden, Field: "username", Err: ErrUserDisabled,
		Message: fmt.Sprintf("User %s is disabled; ask an admin to enable it (Users page, or floe user enable %s).", name, name)}
}

// userColumns are what scanUser reads, in its order.
const userColumns = `name, role, created_at, idp_issuer, idp_subject, idp_groups, last_sign_in_at, disabled_at, sessions_after`

// scanUser reads the userColumns of one row, then extra.
func scanUser(sc interface{ Scan(...any) error }, extra ...any) (User, error) {
	var u User
	var role, groups string
	var created, signedIn, disabled, after int64
	if err := sc.Scan(append([]any{&u.Name, &role, &created, &u.Issuer, &u.Subject, &groups, &signedIn, &disabled, &after}, extra...)...); err != nil {
		return User{}, err
	}
	u.Role, u.CreatedAt, u.DisabledAt, u.SessionsAfter = Role(role), fromMicros(created), fromMicros(disabled), fromMicros(after)
	if signedIn != 0 {
		u.LastSignInAt = fromMicros(signedIn)
	}
	u.Groups = decodeGroups(groups)
	return u, nil
}

// getUser runs a one-row user query (userColumns first, then extra).
func (s *Store) getUser(ctx context.Context, query, name string, extra ...any) (User, error) {
	u, err := scanUser(s.ro.QueryRowContext(ctx, query, name), extra...)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, newErr(fault.NotFound, "username", "user %q does not exist", name)
	}
	if err != nil {
		return User{}, dbErr("get user", err)
	}
	return u, nil
}

// GetUser returns a user.
func (s *Store) GetUser(ctx context.Context, name string) (User, error) {
	return s.getUser(ctx, `SELECT `+userColumns+` FROM users WHERE name = ?`, name)
}

// ListUsers lists users by name.
func (s *Store) ListUsers(ctx context.Context) ([]User, error) {
	rows, err := s.ro.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY name`)
	if err != nil {
		return nil, dbErr("list users", err)
	}
	defer rows.Close()
	out := []User{}
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, dbErr("list users", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

// DeleteUser removes a user.
func (s *Store) DeleteUser(ctx context.Context, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM users WHERE name = ?`, name)
	if err != nil {
		return dbErr("delete user", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return newErr(fault.NotFound, "username", "user %q does not exist", name)
	}
	return nil
}

// CountUsers counts users (0 on first start).
func (s *Store) CountUsers(ctx context.Context) (int, error) {
	var n int
	if err := s.ro.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
		return 0, dbErr("count users", err)
	}
	return n, nil
}

// EnsureAdmin creates the user "admin" when no users exist, with password,
// or with a random 20-character one returned in generated when password is
// empty. created is false (and nothing changes) when any user exists.
func (s *Store) EnsureAdmin(ctx context.Context, password string) (generated string, created bool, err error) {
	if password == "" {
		generated = randomBase62(generatedPasswordLen)
		password = generated
	} else if err := validatePassword(password); err != nil {
		return "", false, err
	}
	// Every floe serve start calls this; once there is a user (every start
	// but the first) it answers from one read, without the hash below
	// (about 80 ms of CPU, most of a start).
	if users, err := s.CountUsers(ctx); err != nil {
		return "", false, err
	} else if users > 0 {
		return "", false, nil
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.bcryptCost())
	if err != nil {
		return "", false, Invalid("password", "password cannot be hashed: "+err.Error())
	}
	// Check again and insert under one write lock, so a CLI and a server starting
	// together make one admin.
	err = s.inTx(ctx, func(tx *persist.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil {
			return dbErr("count users", err)
		}
		if n > 0 {
			return nil
		}
		now := s.now()
		if _, err := tx.ExecContext(ctx, `INSERT INTO users(name, password_hash, role, created_at) VALUES ('admin', ?, ?, ?)`,
			string(hash), string(RoleAdmin), micros(now)); err != nil {
			return dbErr("insert admin", err)
		}
		created = true
		return s.insertRoleGrant(ctx, tx, Grantee{Kind: GranteeUser, ID: "admin"}, RoleAdmin, "", now)
	})
	if err != nil || !created {
		return "", false, err
	}
	return generated, true, nil
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 returns n uniformly random base62 characters.
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = rand.Read(buf) // crypto/rand.Read never fails on supported platforms
		for _, b := range buf {
			if b < 248 { // 248 = 4*62: rejecting the rest keeps the draw uniform
				out = append(out, base62[b%62])
				if len(out) == n {
					break
				}
			}
		}
	}
	return string(out)
}
