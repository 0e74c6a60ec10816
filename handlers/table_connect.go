package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// ShowTableConnect renders a table's Connect tab: for each engine of the
// table's format, a snippet with this server's addresses and the table's
// real names. Right after the read-only key button it carries that key,
// once; otherwise the snippets read the key from $FLOE_API_KEY.
func (h *Handlers) ShowTableConnect(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	b, err := h.store.GetBucket(r.Context(), ref.Bucket)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ns := catalog.JoinNamespace(t.Namespace)
	v := views.TableConnectView{Page: h.page(r, t.Name+" · Connect", "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: ns, Name: t.Name, Format: string(t.Format), KeyEnv: snippetKeyEnv,
		StorageNote: h.s3.ReaderKeysNote()}
	self := views.TableURL(b.Name, ns, t.Name) + "/connect"
	if k, ok := h.takeSecret(r); ok && k.For == self {
		v.KeyName, v.KeyShown = k.Name, true
		w.Header().Set("Cache-Control", "no-store") // the key is in the page
		v.Snippets = h.tableSnippets(r, b, t, k)
	} else {
		v.Snippets = h.tableSnippets(r, b, t, revealed{})
	}
	h.render(w, r, http.StatusOK, views.TableConnectPage(v))
}

// tableSnippets are the table's snippets; k is the key just made for them
// (zero: the snippets read it from the environment). The SigV4 ones sign
// for the S3 Tables region and name the bucket by the ARN S3 Tables shows.
func (h *Handlers) tableSnippets(r *http.Request, b catalog.Bucket, t catalog.Table, k revealed) []views.Snippet {
	in := TableSnippetInput{LanceURL: h.lanceURL(r), IcebergURL: h.icebergURL(r), Bucket: t.Bucket,
		Namespace: t.Namespace, Table: t.Name, Format: t.Format, Key: k.Secret, Store: h.s3}
	if region := h.surfaces.S3TablesRegion; region != "" {
		in.SigV4 = &SnippetSigV4{Region: region, WarehouseARN: h.displayARN(b.ARN), AccessKeyID: k.AccessKeyID, SecretAccessKey: k.SecretAccessKey}
	}
	return TableSnippets(in)
}

// CreateTableConnectKey makes a key that reads this one table (its only
// grant) and redirects to the Connect tab, which writes it into the
// snippets once.
func (h *Handlers) CreateTableConnectKey(w http.ResponseWriter, r *http.Request) {
	ref := tableRef(r)
	t, err := h.store.GetTable(r.Context(), ref)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	key, secret, err := h.store.CreateScopedAPIKey(r.Context(), snippetKeyName(ref),
		catalog.Grant{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name, Privilege: "read"}, 0)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	self := views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name) + "/connect"
	h.holdSecret(r, revealed{Name: key.Name, Secret: secret, AccessKeyID: key.AccessKeyID, SecretAccessKey: key.SecretAccessKey, For: self})
	h.flash(r, "Read-only key "+key.Name+" created for table "+t.Name+" alone; revoke it under API keys.")
	redirect(w, r, self)
}
