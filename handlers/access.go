package handlers

import (
	"net/http"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/views"
)

// ShowAccess renders the Access tab of the bucket, namespace or table the
// path names: every grant that covers it, here or inherited, and for its
// managers the forms that add and remove grants on it.
func (h *Handlers) ShowAccess(w http.ResponseWriter, r *http.Request) {
	v, err := h.accessView(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, views.AccessPage(v))
}

// AddGrant grants what the form says on the tab's place (manage on the
// place: the route checks it) and shows the tab again; a refused form is
// shown again with the reason beside its field.
func (h *Handlers) AddGrant(w http.ResponseWriter, r *http.Request) {
	h.changeGrant(w, r, func(g catalog.Grant) (string, error) {
		_, created, err := h.store.AddGrant(r.Context(), g)
		if err == nil && !created {
			return g.Grantee.String() + " already holds " + g.Privilege + " here.", nil
		}
		return "Granted " + g.Privilege + " on " + g.Place() + " to " + g.Grantee.String() + ".", err
	})
}

// RemoveGrant removes one grant made on the tab's place.
func (h *Handlers) RemoveGrant(w http.ResponseWriter, r *http.Request) {
	h.changeGrant(w, r, func(g catalog.Grant) (string, error) {
		return "Removed " + g.Privilege + " on " + g.Place() + " from " + g.Grantee.String() + ".", h.store.RemoveGrant(r.Context(), g)
	})
}

func (h *Handlers) changeGrant(w http.ResponseWriter, r *http.Request, change func(catalog.Grant) (string, error)) {
	place := PlaceOf(r)
	g := catalog.Grant{
		Grantee: catalog.Grantee{Kind: r.PostFormValue("grantee_kind"), ID: strings.TrimSpace(r.PostFormValue("grantee"))},
		Bucket:  place.Bucket, Namespace: place.Namespace, Table: place.Table,
		Privilege: r.PostFormValue("privilege"),
	}
	if p, ok := UserFromPrincipal(r); ok {
		g.CreatedBy = p
	}
	done, err := change(g)
	if err == nil {
		h.flash(r, done)
		redirect(w, r, accessURL(place))
		return
	}
	field, msg, status, ok := fieldError(err, "grantee")
	if !ok {
		h.fail(w, r, err)
		return
	}
	if field == "grant" || field == "place" {
		field = "grantee"
	}
	v, verr := h.accessView(r)
	if verr != nil {
		h.fail(w, r, verr)
		return
	}
	h.logError(r, status, err)
	v.GranteeKind, v.Grantee, v.Privilege, v.Errors = g.Grantee.Kind, g.Grantee.ID, g.Privilege, views.FieldErrors{field: msg}
	h.render(w, r, status, views.AccessPage(v))
}

// UserFromPrincipal is the signed-in principal as grants record who
// granted ("user:admin").
func UserFromPrincipal(r *http.Request) (string, bool) {
	u, ok := UserFrom(r.Context())
	if !ok {
		return "", false
	}
	return u.Principal().String(), true
}

func (h *Handlers) accessView(r *http.Request) (views.AccessView, error) {
	ctx := r.Context()
	place := PlaceOf(r)
	b, err := h.store.GetBucket(ctx, place.Bucket)
	if err != nil {
		return views.AccessView{}, err
	}
	v := views.AccessView{Page: h.page(r, "Access · "+place.String(), "buckets"), Bucket: b.Name, BucketFormat: string(b.Format),
		Namespace: catalog.JoinNamespace(place.Namespace), Table: place.Table, Place: place.String(), URL: accessURL(place)}
	switch {
	case place.Table != "":
		v.Kind, v.BackURL = "table", views.TableURL(b.Name, v.Namespace, place.Table)
		if _, err := h.store.GetTable(ctx, catalog.TableRef{Bucket: b.Name, Namespace: place.Namespace, Name: place.Table}); err != nil {
			return views.AccessView{}, err
		}
	case len(place.Namespace) > 0:
		v.Kind, v.BackURL = "namespace", views.NamespaceURL(b.Name, v.Namespace)
		if _, err := h.store.GetNamespace(ctx, b.Name, place.Namespace); err != nil {
			return views.AccessView{}, err
		}
	default:
		v.Kind, v.BackURL = "bucket", views.BucketURL(b.Name)
	}
	grants, err := h.store.ListGrants(ctx, catalog.GrantFilter{Covering: &catalog.Grant{Bucket: place.Bucket, Namespace: place.Namespace, Table: place.Table}})
	if err != nil {
		return views.AccessView{}, err
	}
	for _, g := range grants {
		from := identity.Resource{Bucket: g.Bucket, Namespace: g.Namespace, Table: g.Table}
		row := views.GrantRow{GranteeKind: g.Grantee.Kind, Grantee: g.Grantee.ID, Privilege: g.Privilege,
			Here: from.String() == place.String(), From: from.String(), CreatedBy: g.CreatedBy, CreatedAt: g.CreatedAt}
		if !row.Here && from.Bucket != "" {
			row.FromURL = accessURL(from)
		}
		v.Rows = append(v.Rows, row)
	}
	return v, nil
}

// accessURL is the Access tab of a place.
func accessURL(res identity.Resource) string {
	switch {
	case res.Table != "":
		return views.TableURL(res.Bucket, catalog.JoinNamespace(res.Namespace), res.Table) + "/access"
	case len(res.Namespace) > 0:
		return views.NamespaceURL(res.Bucket, catalog.JoinNamespace(res.Namespace)) + "/access"
	}
	return views.BucketURL(res.Bucket) + "/access"
}
