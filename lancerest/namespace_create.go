package lancerest

import (
	"context"
	"errors"
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/safety"
)

// createNamespace: POST /v1/namespace/{id}/create. One name creates a LANCE
// bucket; deeper ids create a namespace level whose parent must exist.
func createNamespace(s *Server, w http.ResponseWriter, r *http.Request, c *call) *Error {
	var req createNamespaceRequest
	if e := withBody(r, func(b []byte) (e *Error) { req, e = decodeCreateNamespace(b, c.id); return }); e != nil {
		return e
	}
	ctx := r.Context()
	if len(c.id) == 0 {
		if req.mode == modeExistOk {
			return writeJSON(w, propsResponse{Properties: emptyProps})
		}
		return NewError(CodeNamespaceAlreadyExists, "the root namespace always exists",
			"Create a bucket with a one-name id, e.g. POST /v1/namespace/my-bucket/create.")
	}
	if e := validateNamespaceID(c.id); e != nil {
		return e
	}
	if len(c.id) == 1 {
		return s.createBucket(ctx, w, c, req)
	}
	return s.createChild(ctx, w, c, req)
}

func (s *Server) createBucket(ctx context.Context, w http.ResponseWriter, c *call, req createNamespaceRequest) *Error {
	name := c.id[0]
	// Creating a place needs manage on it (a manager of everything, or a
	// key scoped to that bucket before it exists).
	if e := c.require(identity.Manage, nsResource(c.id)); e != nil {
		return e
	}
	b, err := s.store.GetBucket(ctx, name)
	switch {
	case err == nil:
		if b.Format == catalog.FormatIceberg {
			return NewError(CodeNamespaceAlreadyExists, "bucket "+quote(name)+" already exists and is declared for Iceberg",
				"Bucket names are unique across formats; pick another name for a Lance bucket.")
		}
		switch req.mode {
		case modeCreate:
			return NewError(CodeNamespaceAlreadyExists, "namespace "+quote(name)+" already exists",
				"Use mode ExistOk to accept an existing bucket.")
		case modeExistOk:
			return writeJSON(w, propsResponse{Properties: bucketProps(b)})
		}
		// Overwrite: the spec drops the namespace and creates it empty.
		// floe empties it explicitly: its tables become recently deleted
		// (never deleted at once), and protection inside refuses.
		if ice, err := s.hasIcebergTables(ctx, b, nil); err != nil {
			return asError(err, CodeNamespaceNotFound)
		} else if ice {
			return icebergInside(c.id, c.delim)
		}
		bp, e := bucketProperties(req.Properties)
		if e != nil {
			return e
		}
		force, e := s.force(ctx, c, safety.NamespaceResource(name, nil))
		if e != nil {
			return e
		}
		nb, err := s.store.OverwriteBucket(ctx, name, bp.tags, bp.managed, catalog.CascadeOptions{Force: force, By: c.principal.String()})
		if err == nil && nb.Protected != bp.protected {
			nb, err = s.store.SetBucketProtected(ctx, name, bp.protected)
		}
		if err != nil {
			return asError(err, CodeNamespaceNotFound)
		}
		return writeJSON(w, propsResponse{Properties: bucketProps(nb)})
	case !errors.Is(err, fault.NotFound):
		return asError(err, CodeNamespaceNotFound)
	}
	bp, e := bucketProperties(req.Properties)
	if e != nil {
		return e
	}
	nb, err := s.store.CreateBucket(ctx, catalog.CreateBucketInput{Name: name, Format: catalog.FormatLance, Owner: c.key.Name, Tags: bp.tags,
		ManagedVersioning: bp.managed, Protected: bp.protected})
	if err != nil {
		if errors.Is(err, fault.AlreadyExists) && req.mode == modeExistOk {
			return writeJSON(w, propsResponse{Properties: emptyProps})
		}
		return asError(err, CodeNamespaceNotFound)
	}
	return writeJSON(w, propsResponse{Properties: bucketProps(nb)})
}

// ManagedVersioningProperty, set to "true" on a bucket's CreateNamespace,
// creates it with managed versioning on (catalog.Bucket.ManagedVersioning);
// DescribeNamespace of the bucket shows it. It is the bucket's setting, not
// one of its tags.
const ManagedVersioningProperty = "floe.managed_versioning"

// bucketSettings are a bucket's CreateNamespace properties: its tags and
// floe's settings, which are not tags.
type bucketSettings struct {
	tags      map[string]string
	managed   bool
	protected bool
}

// bucketProperties splits CreateNamespace properties of a bucket into its
// tags, the managed-versioning setting and protection (floe.protected).
func bucketProperties(props map[string]string) (bucketSettings, *Error) {
	var out bucketSettings
	out.tags = make(map[string]string, len(props))
	for k, v := range props {
		switch k {
		case ManagedVersioningProperty:
			switch v {
			case "true":
				out.managed = true
			case "false":
			default:
				return out, invalid(ManagedVersioningProperty+" must be true or false",
					"Set it to true to have floe coordinate every commit of the bucket's tables (LanceDB 0.39 or newer), or leave it out.")
			}
		case catalog.ProtectedProperty:
			switch v {
			case "true":
				out.protected = true
			case "false":
			default:
				return out, invalid(catalog.ProtectedProperty+" must be true or false",
					"Set it to true to make the bucket refuse drop (and anything that would delete what it holds) unless forced.")
			}
		default:
			out.tags[k] = v
		}
	}
	return out, nil
}

// bucketProps is a bucket's properties as the Lance API shows them: its
// tags, and floe's settings that are on.
func bucketProps(b catalog.Bucket) map[string]string {
	if !b.ManagedVersioning && !b.Protected {
		return propsOrEmpty(b.Tags)
	}
	out := make(map[string]string, len(b.Tags)+2)
	for k, v := range b.Tags {
		out[k] = v
	}
	if b.ManagedVersioning {
		out[ManagedVersioningProperty] = "true"
	}
	if b.Protected {
		out[catalog.ProtectedProperty] = "true"
	}
	return out
}

func (s *Server) createChild(ctx context.Context, w http.ResponseWriter, c *call, req createNamespaceRequest) *Error {
	bucket, levels := c.id[0], c.id[1:]
	if e := c.require(identity.Manage, nsResource(c.id)); e != nil {
		return e
	}
	b, e := s.lanceBucket(ctx, bucket, c.delim)
	if e != nil {
		return e
	}
	ns, err := s.store.CreateNamespace(ctx, bucket, levels, req.Properties)
	if err == nil {
		return writeJSON(w, propsResponse{Properties: propsOrEmpty(ns.Properties)})
	}
	if errors.Is(err, fault.NotFound) {
		return nsNotFound(c.id[:len(c.id)-1], c.delim)
	}
	if !errors.Is(err, fault.AlreadyExists) {
		return asError(err, CodeNamespaceNotFound)
	}
	switch req.mode {
	case modeCreate:
		return NewError(CodeNamespaceAlreadyExists, "namespace "+quote(joinIdentifier(c.id, c.delim))+" already exists",
			"Use mode ExistOk to accept an existing namespace.")
	case modeExistOk:
		ns, err := s.store.GetNamespace(ctx, bucket, levels)
		if err != nil {
			return asError(err, CodeNamespaceNotFound)
		}
		return writeJSON(w, propsResponse{Properties: propsOrEmpty(ns.Properties)})
	}
	if ice, err := s.hasIcebergTables(ctx, b, levels); err != nil {
		return asError(err, CodeNamespaceNotFound)
	} else if ice {
		return icebergInside(c.id, c.delim)
	}
	// Overwrite empties the namespace explicitly: its tables become
	// recently deleted (never deleted at once), protection inside refuses,
	// and a table renamed in from another namespace is left where it is.
	force, e := s.force(ctx, c, safety.NamespaceResource(bucket, levels))
	if e != nil {
		return e
	}
	ns, _, err = s.store.OverwriteNamespace(ctx, bucket, levels, req.Properties, catalog.CascadeOptions{Force: force, By: c.principal.String()})
	if err != nil {
		return asError(err, CodeNamespaceNotFound)
	}
	return writeJSON(w, propsResponse{Properties: propsOrEmpty(ns.Properties)})
}
