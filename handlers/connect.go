package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// snippets builds the Connect snippets for one bucket of a format (unset
// buckets get both formats' snippets), on the first table the bucket holds
// (else its first namespace): real names a copied snippet finds.
func (h *Handlers) snippets(r *http.Request, bucket string, f catalog.Format) []views.Snippet {
	in := SnippetInput{LanceURL: h.lanceURL(r), IcebergURL: h.icebergURL(r), Bucket: bucket,
		Lance: f != catalog.FormatIceberg, Iceberg: f != catalog.FormatLance, Store: h.s3}
	nss, _, err := h.store.ListNamespaces(r.Context(), bucket, nil, catalog.ListOptions{Limit: snippetNamespacesLooked})
	if err == nil {
		for _, ns := range nss {
			if in.Namespace == nil {
				in.Namespace = ns.Levels
			}
			tables, _, err := h.store.ListTables(r.Context(), bucket, ns.Levels, catalog.ListTablesOptions{ListOptions: catalog.ListOptions{Limit: 1}})
			if err == nil && len(tables) == 1 {
				in.Namespace, in.Table = ns.Levels, tables[0].Name
				if f == catalog.FormatUnset {
					in.Lance, in.Iceberg = tables[0].Format == catalog.FormatLance, tables[0].Format == catalog.FormatIceberg
				}
				break
			}
		}
	}
	return Snippets(in)
}

// snippetNamespacesLooked bounds the namespaces read to find a table for the
// snippets: a few reads, not a scan of a bucket with thousands.
const snippetNamespacesLooked = 20

// Connect renders /connect: snippets for each running surface with the real
// address. The bucket is ?bucket=, else the first bucket of that format.
func (h *Handlers) Connect(w http.ResponseWriter, r *http.Request) {
	buckets, err := h.allBuckets(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	v := views.ConnectView{Page: h.page(r, "Connect", "connect"), NoneServed: h.surfaces.Lance == "" && h.surfaces.Iceberg == "" && h.surfaces.S3Tables == ""}
	chosen := r.URL.Query().Get("bucket")
	var chosenFormat catalog.Format
	found := false
	firstOf := map[catalog.Format]string{}
	for _, b := range buckets {
		v.Buckets = append(v.Buckets, b.Name)
		if b.Name == chosen {
			chosenFormat, found = b.Format, true
		}
		if _, ok := firstOf[b.Format]; !ok {
			firstOf[b.Format] = b.Name
		}
	}
	if found {
		v.Bucket = chosen
		v.Snippets = h.snippets(r, chosen, chosenFormat)
	} else {
		// The first bucket of each format; a format without one gets no
		// snippets (a made-up bucket name would not run), and the page says so.
		for _, f := range []catalog.Format{catalog.FormatLance, catalog.FormatIceberg} {
			n, ok := firstOf[f]
			if !ok {
				n, ok = firstOf[catalog.FormatUnset]
			}
			if ok {
				v.Snippets = append(v.Snippets, h.snippets(r, n, f)...)
			} else if h.formatServed(f) {
				v.NoBucketOf = append(v.NoBucketOf, formatLabel(f))
			}
		}
	}
	v.Snippets = append(v.Snippets, h.s3tablesSnippets(r)...)
	h.render(w, r, http.StatusOK, views.ConnectPage(v))
}
