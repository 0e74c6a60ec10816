package taskapi

import (
	"net/http"

	"github.com/floe/floe/apikey"
)

// authorize checks the caller's API key (apikey: x-api-key or Bearer, the
// shared cache; anonymous mode lets only key-less requests through) against
// the bucket: any key scoped to it may read; writing needs a readwrite key.
func (h *handler) authorize(r *http.Request, bucket string, write bool) *apiError {
	key, f := h.auth.Check(r)
	if f != nil {
		if f.Reason == apikey.Failed {
			return fromService(f.Err) // 503 while the database is away, else internal
		}
		return unauthenticated(f.Message)
	}
	if !key.CanRead(bucket) {
		return forbidden("this API key is scoped to bucket " + key.Bucket + ", not " + bucket)
	}
	if write && !key.CanWrite(bucket) {
		return forbidden("this API key is read-only; submitting and deleting tasks need a readwrite key")
	}
	return nil
}
