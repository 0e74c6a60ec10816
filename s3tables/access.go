package s3tables

import (
	"fmt"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// The edge verifies every request's signature; the authorizer decides what
// the key may do. Each operation asks for the privilege it needs on the
// place it names — see (read it or anything inside) for the bucket first,
// so a caller with nothing there learns nothing about it.

// see is the access of an operation that only needs to see its place.
const see identity.Privilege = ""

// bucketParam reads the table bucket ARN path parameter and checks the
// caller has priv on that bucket (see: may see it).
func (s *Server) bucketParam(req *request, priv identity.Privilege) (string, error) {
	name, err := s.parseBucketARN("tableBucketARN", req.param("tableBucketARN"))
	if err != nil {
		return "", err
	}
	return name, s.allow(req, identity.Resource{Bucket: name}, priv)
}

// allow is nil when the caller has priv on res (see: may see it).
func (s *Server) allow(req *request, res identity.Resource, priv identity.Privilege) error {
	if priv == see {
		if req.rights.Visible(res) {
			return nil
		}
		priv = identity.Read
	}
	return refusal(req.rights.Decide(priv, res))
}

// refusal is the authorizer's refusal as this surface answers it: access
// denied (typed per operation by the encoder).
func refusal(err error) error {
	if e, ok := fault.As(err); ok && e.Kind == fault.Forbidden {
		return accessDenied(e.Message)
	}
	return err
}

func tableResource(ref catalog.TableRef) identity.Resource {
	return identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}
}

// deniedBucket is the refusal of a bucket operation that needs manage on
// everything (deleting a bucket takes every grantee's tables with it).
func (s *Server) allowEverything(req *request, bucket string) error {
	if err := s.allow(req, identity.Resource{}, identity.Manage); err != nil {
		return accessDenied(fmt.Sprintf("deleting table bucket %q needs manage on everything, not only on the bucket: %s", bucket, fault.Message(err, "")))
	}
	return nil
}
