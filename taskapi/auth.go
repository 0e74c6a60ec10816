package taskapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
)

// authorize checks the caller's API key (x-api-key, or Authorization:
// Bearer) against the bucket: any key scoped to it may read; writing needs a
// readwrite key.
func (h *handler) authorize(r *http.Request, bucket string, write bool) *apiError {
	if h.anon {
		return nil
	}
	secret := strings.TrimSpace(r.Header.Get("x-api-key"))
	if secret == "" {
		if scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "Bearer") {
			secret = strings.TrimSpace(token)
		}
	}
	if secret == "" {
		return unauthenticated("an API key is required: send it as x-api-key or Authorization: Bearer (create one with floe token create)")
	}
	key, err := h.store.VerifyAPIKey(r.Context(), secret)
	if errors.Is(err, catalog.ErrNotFound) || errors.Is(err, catalog.ErrInvalid) {
		return unauthenticated("the API key is unknown, revoked or expired; create a new one with floe token create")
	}
	if err != nil {
		return internal(err)
	}
	if !key.CanRead(bucket) {
		return forbidden("this API key is scoped to bucket " + key.Bucket + ", not " + bucket)
	}
	if write && !key.CanWrite(bucket) {
		return forbidden("this API key is read-only; submitting and deleting tasks need a readwrite key")
	}
	return nil
}
