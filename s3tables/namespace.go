package s3tables

import (
	"github.com/floe/floe/catalog"
)

type namespaceSummary struct {
	Namespace      []string `json:"namespace"`
	CreatedAt      string   `json:"createdAt"`
	CreatedBy      string   `json:"createdBy"`
	OwnerAccountID string   `json:"ownerAccountId"`
	NamespaceID    string   `json:"namespaceId"`
	TableBucketID  string   `json:"tableBucketId"`
}

func (s *Server) namespaceSummary(b catalog.Bucket, n catalog.Namespace) namespaceSummary {
	bid := bucketID(b)
	return namespaceSummary{Namespace: []string{n.Name()}, CreatedAt: timestamp(n.CreatedAt), CreatedBy: s.cfg.Account,
		OwnerAccountID: s.cfg.Account, NamespaceID: namespaceID(bid, n.Name()), TableBucketID: bid}
}

// namespaceLevels reads a namespace name: one S3 Tables namespace, which
// may name a nested floe namespace by joining its levels with ".".
func namespaceLevels(field, name string) ([]string, error) {
	if name == "" {
		return nil, badRequest(field, field+" is required")
	}
	levels := catalog.SplitNamespace(name)
	for _, l := range levels {
		if err := catalog.ValidateNamespaceLevel(l); err != nil {
			return nil, badRequest(field, field+" "+quote(name)+": "+err.Error())
		}
	}
	return levels, nil
}

func quote(s string) string { return "\"" + s + "\"" }
