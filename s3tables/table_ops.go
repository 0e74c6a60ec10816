package s3tables

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
)

// getTable answers GET /get-table, which names the table either by tableArn
// or by tableBucketARN + namespace + name.
func (s *Server) getTable(req *request) (any, error) {
	q := req.query
	var t catalog.Table
	if arn := q.Get("tableArn"); arn != "" {
		bucket, id, err := s.parseTableARN("tableArn", arn)
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, bucket, read); err != nil {
			return nil, err
		}
		t, err = s.cfg.Store.GetTableByID(req.ctx, id)
		if err != nil {
			return nil, err
		}
		if t.Bucket != bucket {
			return nil, notFound(fmt.Sprintf("no table has the id %q in bucket %q", id, bucket))
		}
	} else {
		bucket, err := s.parseBucketARN("tableBucketARN", q.Get("tableBucketARN"))
		if err != nil {
			return nil, err
		}
		if err := s.allow(req, bucket, read); err != nil {
			return nil, err
		}
		ref, err := tableRef(bucket, q.Get("namespace"), q.Get("name"))
		if err != nil {
			return nil, err
		}
		if t, err = s.cfg.Store.GetTable(req.ctx, ref); err != nil {
			return nil, err
		}
	}
	b, err := s.cfg.Store.GetBucket(req.ctx, t.Bucket)
	if err != nil {
		return nil, err
	}
	return s.tableInfo(b, t), nil
}

func (s *Server) listTables(req *request) (any, error) {
	bucket, err := s.bucketParam(req, read)
	if err != nil {
		return nil, err
	}
	limit, err := req.intParam("maxTables", minPage, maxPage, maxPage)
	if err != nil {
		return nil, err
	}
	cursor, err := decodeToken(req.query.Get("continuationToken"))
	if err != nil {
		return nil, err
	}
	prefix := req.query.Get("prefix")
	b, err := s.cfg.Store.GetBucket(req.ctx, bucket)
	if err != nil {
		return nil, err
	}
	ns := req.query.Get("namespace")
	var levels []string
	if ns != "" {
		if levels, err = namespaceLevels("namespace", ns); err != nil {
			return nil, err
		}
		// Checked on every call: an empty namespace can go without
		// changing the table generation the page cache relies on.
		if _, err := s.cfg.Store.GetNamespace(req.ctx, bucket, levels); err != nil {
			return nil, err
		}
	}
	// The page is a function of these inputs and the table rows, so a
	// rendered page stays true while the table generation holds.
	gen, err := s.cfg.Store.TableGeneration(req.ctx)
	if err != nil {
		return nil, err
	}
	key := strings.Join([]string{bucketID(b), ns, prefix, cursor, strconv.Itoa(limit)}, "\x00")
	if page, ok := s.pages.get(key, gen); ok {
		return page, nil
	}
	out, err := s.listTablesPage(req, b, levels, prefix, cursor, limit)
	if err != nil {
		return nil, err
	}
	page, err := encode(out)
	if err != nil {
		return nil, err
	}
	s.pages.put(key, gen, page)
	return rendered(page), nil
}

type tablesPage struct {
	Tables            []tableSummary `json:"tables"`
	ContinuationToken *string        `json:"continuationToken,omitempty"`
}

func (s *Server) listTablesPage(req *request, b catalog.Bucket, levels []string, prefix, cursor string, limit int) (tablesPage, error) {
	bucket := b.Name
	var items []catalog.Table
	var next string
	var err error
	if len(levels) > 0 {
		if cursor == "" {
			cursor = beforePrefix(prefix)
		}
		items, next, err = s.cfg.Store.ListTables(req.ctx, bucket, levels, catalog.ListTablesOptions{
			ListOptions: catalog.ListOptions{After: cursor, Limit: limit}, IncludeDeclared: true})
		if err != nil {
			return tablesPage{}, err
		}
	} else {
		// Across namespaces the catalog pages by its own cursor; the prefix
		// filters each page, so a page may hold fewer than maxTables rows.
		items, next, err = s.cfg.Store.ListAllTables(req.ctx, catalog.FormatUnset, []string{bucket}, cursor, limit)
		if err != nil {
			return tablesPage{}, err
		}
	}
	bid := bucketID(b)
	out := tablesPage{Tables: make([]tableSummary, 0, len(items))}
	byName := len(levels) > 0 // one namespace: sorted by name, so a prefix ends
	for _, t := range items {
		if strings.HasPrefix(t.Name, prefix) {
			out.Tables = append(out.Tables, s.tableSummary(bid, t))
		} else if byName && t.Name > prefix {
			next = ""
			break
		}
	}
	out.ContinuationToken = encodeToken(next)
	return out, nil
}

// checkToken refuses a write whose versionToken (when the client gave one)
// is not the table's current one.
func checkToken(t catalog.Table, token string) error {
	if token != "" && token != t.VersionToken {
		return conflict("versionToken", fmt.Sprintf("table %q changed since it was read (version token mismatch); read it again and retry", t.Name))
	}
	return nil
}

func (s *Server) deleteTable(req *request) (any, error) {
	t, err := s.loadTable(req, write)
	if err != nil {
		return nil, err
	}
	// Drop removes the entry and the data, as S3 Tables' DeleteTable does.
	// The token is checked by the catalog in the drop's own transaction, so
	// an update that lands after loadTable is never dropped unseen.
	token := req.query.Get("versionToken")
	_, err = s.cfg.Store.DropTableAtVersion(req.ctx, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name}, token)
	var ce *fault.Error
	if errors.As(err, &ce) && ce.Field == "version_token" {
		return nil, conflict("versionToken", ce.Message)
	}
	return nil, err
}

func (s *Server) renameTable(req *request) (any, error) {
	t, err := s.loadTable(req, write)
	if err != nil {
		return nil, err
	}
	var in struct {
		NewNamespaceName string `json:"newNamespaceName"`
		NewName          string `json:"newName"`
		VersionToken     string `json:"versionToken"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.NewName == "" && in.NewNamespaceName == "" {
		return nil, badRequest("newName", "give newName, newNamespaceName or both")
	}
	// The token is checked again by the catalog inside the rename's own
	// transaction; this early check only answers before any name parsing.
	if err := checkToken(t, in.VersionToken); err != nil {
		return nil, err
	}
	toNs := t.Namespace
	if in.NewNamespaceName != "" {
		if toNs, err = namespaceLevels("newNamespaceName", in.NewNamespaceName); err != nil {
			return nil, err
		}
	}
	toName := t.Name
	if in.NewName != "" {
		if err := catalog.ValidateTableName(in.NewName); err != nil {
			return nil, badRequest("newName", err.Error())
		}
		toName = in.NewName
	}
	_, err = s.cfg.Store.RenameTableAtVersion(req.ctx, catalog.TableRef{Bucket: t.Bucket, Namespace: t.Namespace, Name: t.Name}, toNs, toName, in.VersionToken)
	var ce *fault.Error
	if errors.As(err, &ce) && ce.Field == "version_token" {
		return nil, conflict("versionToken", ce.Message)
	}
	return nil, err
}

func (s *Server) getMetadataLocation(req *request) (any, error) {
	t, err := s.loadTable(req, read)
	if err != nil {
		return nil, err
	}
	return struct {
		VersionToken      string `json:"versionToken"`
		MetadataLocation  string `json:"metadataLocation,omitempty"`
		WarehouseLocation string `json:"warehouseLocation"`
	}{t.VersionToken, t.MetadataLocation, locationURI(t.Location)}, nil
}

// maxLocationLen bounds a metadata location, as S3 Tables does (2048).
const maxLocationLen = 2048

func (s *Server) updateMetadataLocation(req *request) (any, error) {
	t, err := s.loadTable(req, write)
	if err != nil {
		return nil, err
	}
	var in struct {
		VersionToken     string `json:"versionToken"`
		MetadataLocation string `json:"metadataLocation"`
	}
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.VersionToken == "" {
		return nil, badRequest("versionToken", "versionToken is required: the token GetTable or GetTableMetadataLocation returned")
	}
	if in.MetadataLocation == "" || len(in.MetadataLocation) > maxLocationLen {
		return nil, badRequest("metadataLocation", fmt.Sprintf("metadataLocation is required, at most %d characters", maxLocationLen))
	}
	if t.Format != catalog.FormatIceberg {
		return nil, badRequest("metadataLocation", fmt.Sprintf("table %q is a %s table; only Iceberg tables have a metadata location", t.Name, t.Format))
	}
	if !within(in.MetadataLocation, t.Location) {
		return nil, badRequest("metadataLocation", fmt.Sprintf("metadataLocation must lie inside the table's warehouse location %s", locationURI(t.Location)))
	}
	t, err = s.cfg.Store.CommitTable(req.ctx, t.ID, in.VersionToken, in.MetadataLocation, nil)
	if errors.Is(err, fault.Conflict) {
		return nil, conflict("versionToken", "the table changed since versionToken was read; read the metadata location again and retry")
	}
	if err != nil {
		return nil, err
	}
	return struct {
		Name             string   `json:"name"`
		TableARN         string   `json:"tableARN"`
		Namespace        []string `json:"namespace"`
		VersionToken     string   `json:"versionToken"`
		MetadataLocation string   `json:"metadataLocation"`
	}{t.Name, s.tableARN(t), []string{catalog.JoinNamespace(t.Namespace)}, t.VersionToken, t.MetadataLocation}, nil
}

// within reports whether loc (a URI or a path) lies strictly inside the
// table location root (either form).
func within(loc, root string) bool {
	l, err := warehouse.Parse(loc)
	if err != nil {
		return false
	}
	r, err := warehouse.Parse(root)
	return err == nil && l != r && l.Within(r)
}
