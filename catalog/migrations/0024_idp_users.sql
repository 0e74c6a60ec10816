-- Console users who sign in through the organization's OpenID provider
-- (floe serve --oidc-issuer): the row appears at their first sign-in, names
-- them at the provider (issuer and subject, the one pair that is stable
-- there), keeps the groups its groups claim carried the last time (a JSON
-- array of strings) and when that was. Such a user has no password: its
-- password_hash is '' and a local sign-in never matches it. Local users
-- keep '' in the new columns.
ALTER TABLE users ADD COLUMN idp_issuer TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN idp_subject TEXT NOT NULL DEFAULT '';
ALTER TABLE users ADD COLUMN idp_groups TEXT NOT NULL DEFAULT '[]';
ALTER TABLE users ADD COLUMN last_sign_in_at INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX users_by_idp_subject ON users(idp_issuer, idp_subject) WHERE idp_subject <> '';
