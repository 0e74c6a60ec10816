package handlers

import (
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// maxKeyNameLen keeps key names to a label, not a document.
const maxKeyNameLen = 100

// ListAPIKeys renders /api-keys, with a key just created shown once.
func (h *Handlers) ListAPIKeys(w http.ResponseWriter, r *http.Request) {
	v, err := h.apiKeysView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if v.Secret != "" {
		w.Header().Set("Cache-Control", "no-store") // the secret must not linger in caches
	}
	h.render(w, r, http.StatusOK, views.APIKeysPage(v))
}

func (h *Handlers) apiKeysView(r *http.Request) (views.APIKeysView, error) {
	keys, err := h.store.ListAPIKeys(r.Context())
	if err != nil {
		return views.APIKeysView{}, err
	}
	buckets, err := h.allBuckets(r.Context())
	if err != nil {
		return views.APIKeysView{}, err
	}
	v := views.APIKeysView{Page: h.page(r, "API keys", "api-keys")}
	if k, ok := h.takeSecret(r); ok && k.Secret != "" {
		v.Secret, v.Created, v.AccessKeyID, v.SecretAccessKey, v.CreatedExpires = k.Secret, k.Name, k.AccessKeyID, k.SecretAccessKey, k.ExpiresAt
	}
	now := time.Now()
	for _, k := range keys {
		row := views.APIKeyRow{ID: k.ID, AccessKeyID: k.AccessKeyID, Name: k.Name, Role: string(k.Role), Bucket: k.Bucket,
			CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, Expired: !k.ExpiresAt.IsZero() && !now.Before(k.ExpiresAt)}
		if m, ok := keyMark(k); ok {
			row.System, row.Warning = m.Label, m.Warning
			v.SystemKeys = append(v.SystemKeys, row)
			continue
		}
		v.Keys = append(v.Keys, row)
	}
	// People's expired keys stay listed for a while, so their owners see
	// when the refusals began (catalog.ExpiredKeyListed).
	expired, err := h.store.ListExpiredAPIKeys(r.Context())
	if err != nil {
		return views.APIKeysView{}, err
	}
	for _, k := range expired {
		v.Keys = append(v.Keys, views.APIKeyRow{ID: k.ID, AccessKeyID: k.AccessKeyID, Name: k.Name, Role: string(k.Role), Bucket: k.Bucket,
			CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt, Expired: true})
	}
	for _, b := range buckets {
		v.Buckets = append(v.Buckets, b.Name)
	}
	sortKeyRows(r, &v)
	return v, nil
}

// CreateAPIKey creates a key and redirects to the list, which shows its
// secret once.
func (h *Handlers) CreateAPIKey(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSpace(r.PostFormValue("name"))
	role := catalog.Role(r.PostFormValue("role"))
	bucket := r.PostFormValue("bucket")
	expiresIn := strings.TrimSpace(r.PostFormValue("expires_in"))
	// A key's role becomes its grant on its scope: making one is the
	// scope's managers' to do.
	if err := h.Require(r.Context(), identity.Manage, identity.Resource{Bucket: bucket}); err != nil {
		h.Forbidden(w, r, err)
		return
	}

	err := validateKey(name, role)
	var ttl time.Duration
	if err == nil {
		ttl, err = catalog.ParseKeyLifetime(expiresIn)
	}
	if err == nil && bucket != "" {
		if _, berr := h.store.GetBucket(r.Context(), bucket); errors.Is(berr, fault.NotFound) {
			err = catalog.Invalid("bucket", "There is no bucket "+bucket+"; pick one from the list or every bucket.")
		} else if berr != nil {
			err = berr
		}
	}
	var secret string
	var key catalog.APIKey
	if err == nil {
		key, secret, err = h.store.CreateAPIKey(r.Context(), name, role, bucket, ttl)
	}
	if err != nil {
		field, msg, status, ok := fieldError(err, "name")
		if !ok {
			h.fail(w, r, err)
			return
		}
		v, verr := h.apiKeysView(r)
		if verr != nil {
			h.fail(w, r, verr)
			return
		}
		h.logError(r, status, err)
		v.Name, v.Role, v.Bucket, v.ExpiresIn, v.Errors = name, string(role), bucket, expiresIn, views.FieldErrors{field: msg}
		h.render(w, r, status, views.APIKeysPage(v))
		return
	}
	// Post-redirect-get: a reload of the list cannot create a second key.
	h.holdSecret(r, revealed{Name: key.Name, Secret: secret, AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, ExpiresAt: key.ExpiresAt})
	redirect(w, r, "/api-keys")
}

func validateKey(name string, role catalog.Role) error {
	switch {
	case name == "":
		return catalog.Invalid("name", "Give the key a name, e.g. the client that will use it.")
	case utf8.RuneCountInString(name) > maxKeyNameLen:
		return catalog.Invalid("name", "A key name is at most 100 characters.")
	case role != catalog.RoleReadWrite && role != catalog.RoleReadonly:
		return catalog.Invalid("role", "Role must be readwrite or readonly.")
	}
	return nil
}

// RevokeAPIKey deletes a key; clients using it stop working at once.
func (h *Handlers) RevokeAPIKey(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	name := id
	scope := identity.Resource{} // an unknown key: only a manager of everything learns it is unknown
	if keys, err := h.store.ListAPIKeys(r.Context()); err == nil {
		for _, k := range keys {
			if k.ID == id {
				name, scope = k.Name, identity.Resource{Bucket: k.Bucket}
			}
		}
	}
	if err := h.Require(r.Context(), identity.Manage, scope); err != nil {
		h.Forbidden(w, r, err)
		return
	}
	if err := h.store.RevokeAPIKey(r.Context(), id); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Key "+name+" revoked; clients using it are refused from now on.")
	redirect(w, r, "/api-keys")
}
