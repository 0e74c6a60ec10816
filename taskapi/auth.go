package taskapi

import (
	"net/http"

	"github.com/floe/floe/edge"
)

// authorize checks the key the edge authenticated against the bucket: any
// key scoped to it may read; writing needs a readwrite key.
func authorize(r *http.Request, bucket string, write bool) *apiError {
	p, ok := edge.PrincipalFrom(r.Context())
	if !ok {
		return unauthenticated("an API key is required: send it as x-api-key: <key> or Authorization: Bearer <key>")
	}
	key := p.Key
	if !key.CanRead(bucket) {
		return forbidden("this API key is scoped to bucket " + key.Bucket + ", not " + bucket)
	}
	if write && !key.CanWrite(bucket) {
		return forbidden("this API key is read-only; submitting and deleting tasks need a readwrite key")
	}
	return nil
}
