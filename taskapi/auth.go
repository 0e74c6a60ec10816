package taskapi

import (
	"net/http"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// rights reads what the caller the edge authenticated may do, and refuses
// at once one that may see nothing in the bucket (before the request is
// parsed any further, so a refusal says nothing about the bucket).
func (h *handler) rights(r *http.Request, bucket string) (authz.Rights, *apiError) {
	p, ok := edge.PrincipalFrom(r.Context())
	if !ok {
		return authz.Rights{}, unauthenticated("an API key is required: send it as x-api-key: <key> or Authorization: Bearer <key>")
	}
	rights, err := h.authz.Rights(r.Context(), p)
	if err != nil {
		return authz.Rights{}, fromService(err)
	}
	if b := (identity.Resource{Bucket: bucket}); !rights.Visible(b) {
		return authz.Rights{}, refused(rights.Decide(identity.Read, b))
	}
	return rights, nil
}

// refused renders the authorizer's refusal.
func refused(err error) *apiError {
	if fault.KindOf(err) == fault.Unauthenticated {
		return unauthenticated(fault.Message(err, "an API key is required"))
	}
	return forbidden(fault.Message(err, "permission denied"))
}
