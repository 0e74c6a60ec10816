package s3tables

import "github.com/floe/floe/catalog"

// deleteTableBucket answers DeleteTableBucket.
func (s *Server) deleteTableBucket(req *request) (any, error) {
	name, err := s.bucketParam(req, see)
	if err == nil {
		err = s.allowEverything(req, name)
	}
	if err != nil {
		return nil, err
	}
	// A bucket that still holds recently deleted tables becomes recently
	// deleted itself (its name stays taken) until they are purged.
	return nil, s.cfg.Store.DeleteBucketWith(req.ctx, name, catalog.CascadeOptions{By: req.by})
}
