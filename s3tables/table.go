package s3tables

import (
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

type tableInfo struct {
	Name              string   `json:"name"`
	Type              string   `json:"type"`
	TableARN          string   `json:"tableARN"`
	Namespace         []string `json:"namespace"`
	NamespaceID       string   `json:"namespaceId"`
	VersionToken      string   `json:"versionToken"`
	MetadataLocation  string   `json:"metadataLocation,omitempty"`
	WarehouseLocation string   `json:"warehouseLocation"`
	CreatedAt         string   `json:"createdAt"`
	CreatedBy         string   `json:"createdBy"`
	ModifiedAt        string   `json:"modifiedAt"`
	ModifiedBy        string   `json:"modifiedBy"`
	OwnerAccountID    string   `json:"ownerAccountId"`
	Format            string   `json:"format"`
	TableBucketID     string   `json:"tableBucketId"`
}

// tableSummary is a ListTables row; format and metadataLocation are floe's
// additions (the SDKs ignore them), so a client can tell Lance from Iceberg
// without a GetTable per row.
type tableSummary struct {
	Namespace        []string `json:"namespace"`
	Name             string   `json:"name"`
	Type             string   `json:"type"`
	TableARN         string   `json:"tableARN"`
	CreatedAt        string   `json:"createdAt"`
	ModifiedAt       string   `json:"modifiedAt"`
	NamespaceID      string   `json:"namespaceId"`
	TableBucketID    string   `json:"tableBucketId"`
	Format           string   `json:"format"`
	MetadataLocation string   `json:"metadataLocation,omitempty"`
}

// locationURI renders a table location as a URI, as S3 Tables' clients
// expect one: a bare local path becomes file://.
func locationURI(loc string) string {
	if l, err := warehouse.Parse(loc); err == nil {
		return l.String()
	}
	return loc
}

func (s *Server) tableInfo(b catalog.Bucket, t catalog.Table) tableInfo {
	bid := bucketID(b)
	ns := catalog.JoinNamespace(t.Namespace)
	return tableInfo{Name: t.Name, Type: "customer", TableARN: s.tableARN(t), Namespace: []string{ns},
		NamespaceID: namespaceID(bid, ns), VersionToken: t.VersionToken, MetadataLocation: t.MetadataLocation,
		WarehouseLocation: locationURI(t.Location), CreatedAt: timestamp(t.CreatedAt), CreatedBy: s.cfg.Account,
		ModifiedAt: timestamp(t.ModifiedAt), ModifiedBy: s.cfg.Account, OwnerAccountID: s.cfg.Account,
		Format: string(t.Format), TableBucketID: bid}
}

func (s *Server) tableSummary(bid string, t catalog.Table) tableSummary {
	ns := catalog.JoinNamespace(t.Namespace)
	return tableSummary{Namespace: []string{ns}, Name: t.Name, Type: "customer", TableARN: s.tableARN(t),
		CreatedAt: timestamp(t.CreatedAt), ModifiedAt: timestamp(t.ModifiedAt), NamespaceID: namespaceID(bid, ns),
		TableBucketID: bid, Format: string(t.Format), MetadataLocation: t.MetadataLocation}
}

// tableParams reads the bucket ARN, namespace and name path parameters of a
// table operation and checks the caller has priv on the table (before it
// is looked up, so a refusal says nothing about whether it exists).
func (s *Server) tableParams(req *request, priv identity.Privilege) (catalog.TableRef, error) {
	bucket, err := s.bucketParam(req, see)
	if err != nil {
		return catalog.TableRef{}, err
	}
	ref, err := tableRef(bucket, req.param("namespace"), req.param("name"))
	if err != nil {
		return catalog.TableRef{}, err
	}
	return ref, s.allow(req, tableResource(ref), priv)
}

func tableRef(bucket, namespace, name string) (catalog.TableRef, error) {
	levels, err := namespaceLevels("namespace", namespace)
	if err != nil {
		return catalog.TableRef{}, err
	}
	if err := catalog.ValidateTableName(name); err != nil {
		return catalog.TableRef{}, badRequest("name", err.Error())
	}
	return catalog.TableRef{Bucket: bucket, Namespace: levels, Name: name}, nil
}

// loadTable reads a table the caller holds priv on.
func (s *Server) loadTable(req *request, priv identity.Privilege) (catalog.Table, error) {
	ref, err := s.tableParams(req, priv)
	if err != nil {
		return catalog.Table{}, err
	}
	return s.cfg.Store.GetTable(req.ctx, ref)
}
