package lancerest

import (
	"github.com/floe/floe/catalog"
)

// The edge authenticates every request (Config.Auth) and hands the
// operation the caller's key; canRead and canWrite check that key against
// a bucket, until one authorizer decides for every surface.

func canRead(k catalog.APIKey, bucket string) *Error {
	if !k.CanRead(bucket) {
		return forbidden("this API key may not read bucket " + quote(bucket))
	}
	return nil
}

func canWrite(k catalog.APIKey, bucket string) *Error {
	if !k.CanRead(bucket) {
		return forbidden("this API key may not use bucket " + quote(bucket))
	}
	if !k.CanWrite(bucket) {
		return forbidden("this API key is read-only")
	}
	return nil
}
