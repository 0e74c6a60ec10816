package warehouse

import "strings"

// Lance clients name files by their object-store path: the key inside the
// S3 bucket ("prefix/b/ns/t.lance/_versions/1.manifest"), or for a local
// file the absolute path without its leading slash. The Lance Namespace's
// version operations (CreateTableVersion's manifest_path, TableVersion in
// answers) speak that form, so the two conversions live here, beside Parse.

// ObjectPath is l in the object-store form Lance clients use: the S3 key,
// or the local path without its leading "/".
func (l Location) ObjectPath() string {
	if l.scheme == SchemeFile {
		return strings.TrimPrefix(l.path, "/")
	}
	return l.path
}

// ParseObjectPath reads raw as a path in the same store as l: a full URI
// (scheme://…) or absolute path is parsed as Parse does; anything else is an object-store
// path (see ObjectPath) inside l's S3 bucket or local file system. The
// result is canonical; whether it lies where the caller needs it is the
// caller's check (Within), and every storage call checks the warehouse.
func (l Location) ParseObjectPath(raw string) (Location, error) {
	if l.IsZero() {
		return Location{}, errorf(ErrBadLocation, "cannot place %q: no store to resolve it in", raw)
	}
	// A URI names its authority ("s3://", "file:///"); "A:" or "x:y"
	// without one is a file or key of that name, as ObjectPath writes it.
	if _, rest, ok := splitScheme(raw); ok && strings.HasPrefix(rest, "//") || strings.HasPrefix(raw, "/") || raw == "" {
		return Parse(raw)
	}
	switch l.scheme {
	case SchemeS3:
		if len(raw) > maxLocationLen {
			return Location{}, errorf(ErrBadLocation, "path is %d bytes long; at most %d are accepted", len(raw), maxLocationLen)
		}
		return Parse("s3://" + l.bucket + "/" + raw)
	default:
		return Parse("/" + raw)
	}
}
