package handlers

import (
	"net/http"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/views"
)

// snippetBucketPlaceholder names a bucket when none exists yet.
const snippetBucketPlaceholder = "my-bucket"

// snippets builds the Connect snippets for one bucket of a format (unset
// buckets get both formats' snippets).
func (h *Handlers) snippets(r *http.Request, bucket, ns string, f catalog.Format) []views.Snippet {
	return Snippets(SnippetInput{
		LanceURL: h.lanceURL(r), IcebergURL: h.icebergURL(r), Bucket: bucket, Namespace: ns,
		Lance: f != catalog.FormatIceberg, Iceberg: f != catalog.FormatLance, Store: h.s3,
	})
}

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
		v.Snippets = h.snippets(r, chosen, "default", chosenFormat)
	} else {
		pick := func(f catalog.Format) string {
			if n, ok := firstOf[f]; ok {
				return n
			}
			if n, ok := firstOf[catalog.FormatUnset]; ok {
				return n
			}
			return snippetBucketPlaceholder
		}
		v.Snippets = append(h.snippets(r, pick(catalog.FormatLance), "default", catalog.FormatLance),
			h.snippets(r, pick(catalog.FormatIceberg), "default", catalog.FormatIceberg)...)
	}
	v.Snippets = append(v.Snippets, h.s3tablesSnippets(r)...)
	h.render(w, r, http.StatusOK, views.ConnectPage(v))
}
