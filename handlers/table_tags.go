package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/views"
)

// maxPanelTags bounds the tags the table page lists (one page of them).
const maxPanelTags = 100

// lanceRefs is the Tags and branches panel of a Lance table, read through
// the same lancecommit service the Lance REST answers with.
func (h *Handlers) lanceRefs(ctx context.Context, t catalog.Table, newest string) *views.LanceRefsView {
	r := &views.LanceRefsView{Version: newest}
	tags, next, err := h.commits.Tags(ctx, t, "", maxPanelTags)
	if err != nil {
		h.log.Warn("listing a Lance table's tags", "table", t.ID, "err", err)
		r.Error = "The table's tags and branches could not be read just now; reload to try again."
		return r
	}
	r.MoreTags = next != ""
	for _, tg := range tags {
		up := tg.UpdatedAt
		if up.IsZero() {
			up = tg.CreatedAt
		}
		r.Tags = append(r.Tags, views.LanceTagRow{Name: tg.Name, Version: strconv.FormatUint(tg.Version, 10), Updated: up})
	}
	branches, err := h.commits.Branches(ctx, t)
	if err != nil {
		h.log.Warn("listing a Lance table's branches", "table", t.ID, "err", err)
		r.Error = "The table's tags and branches could not be read just now; reload to try again."
		return r
	}
	for _, b := range branches {
		row := views.LanceBranchRow{Name: b.Name, Parent: b.ParentBranch, ParentVersion: strconv.FormatUint(b.ParentVersion, 10), Latest: "—", Created: b.CreatedAt}
		if row.Parent == "" {
			row.Parent = "main"
		}
		if b.Latest > 0 {
			row.Latest = strconv.FormatUint(b.Latest, 10)
		}
		r.Branches = append(r.Branches, row)
	}
	return r
}

// lanceTableOf is the Lance table a tag form names; another format is a
// conflict (Iceberg has snapshots' refs, not Lance tags).
func (h *Handlers) lanceTableOf(r *http.Request) (catalog.Table, error) {
	t, err := h.store.GetTable(r.Context(), tableRef(r))
	if err == nil && t.Format != catalog.FormatLance {
		err = fault.New(fault.Conflict, "format", "Only Lance tables have tags; this table is %s.", formatName(t.Format))
	}
	return t, err
}

func formatName(f catalog.Format) string {
	if f == catalog.FormatIceberg {
		return "an Iceberg table"
	}
	return string(f)
}

// tagVersion reads a form's version field.
func tagVersion(s string) (uint64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fault.New(fault.Invalid, "version", "Give the version the tag names.")
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n == 0 {
		return 0, fault.New(fault.Invalid, "version", "Version %q is not a version number (1 or more).", s)
	}
	return n, nil
}

// CreateLanceTag names a version of a Lance table; a refused name or
// version shows the table page again with the form's values and the reason.
func (h *Handlers) CreateLanceTag(w http.ResponseWriter, r *http.Request) {
	t, err := h.lanceTableOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name, raw := strings.TrimSpace(r.PostFormValue("name")), r.PostFormValue("version")
	version, err := tagVersion(raw)
	if err == nil {
		err = h.commits.CreateTag(r.Context(), t, name, version)
	}
	if err != nil {
		h.tagFormRefused(w, r, err, name, raw)
		return
	}
	h.flash(r, "Tag "+name+" now names version "+strconv.FormatUint(version, 10)+".")
	redirect(w, r, views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)+"#tags")
}

// tagFormRefused re-renders the table page with the create form's fields
// and the refusal beside the field it concerns; other errors are the
// console's error page.
func (h *Handlers) tagFormRefused(w http.ResponseWriter, r *http.Request, err error, name, version string) {
	e, ok := fault.As(err)
	field := ""
	if ok {
		switch {
		case e.Kind == fault.Invalid && (e.Field == "tag" || e.Field == "version"):
			field = e.Field
		case e.Kind == fault.AlreadyExists && e.Field == "tag", e.Kind == fault.NotFound && e.Field == "version":
			field = e.Field
		}
	}
	if field == "" {
		h.fail(w, r, err)
		return
	}
	if field == "tag" {
		field = "name"
	}
	v, verr := h.tableView(r)
	if verr != nil {
		h.fail(w, r, verr)
		return
	}
	status := http.StatusUnprocessableEntity
	if e.Kind == fault.AlreadyExists {
		status = http.StatusConflict
	}
	h.logError(r, status, err)
	if v.Refs != nil {
		v.Refs.Name, v.Refs.Version, v.Refs.Errors = name, version, views.FieldErrors{field: e.Message}
	}
	h.render(w, r, status, views.TablePage(v))
}

// MoveLanceTag points a tag at another version.
func (h *Handlers) MoveLanceTag(w http.ResponseWriter, r *http.Request) {
	t, err := h.lanceTableOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name := r.PathValue("tag")
	version, err := tagVersion(r.PostFormValue("version"))
	if err == nil {
		err = h.commits.MoveTag(r.Context(), t, name, version)
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Tag "+name+" moved to version "+strconv.FormatUint(version, 10)+".")
	redirect(w, r, views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)+"#tags")
}

// DeleteLanceTag removes a tag; the version it named stays.
func (h *Handlers) DeleteLanceTag(w http.ResponseWriter, r *http.Request) {
	t, err := h.lanceTableOf(r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	name := r.PathValue("tag")
	if err := h.commits.DeleteTag(r.Context(), t, name); err != nil {
		h.fail(w, r, err)
		return
	}
	h.flash(r, "Tag "+name+" deleted; the version it named stays.")
	redirect(w, r, views.TableURL(t.Bucket, catalog.JoinNamespace(t.Namespace), t.Name)+"#tags")
}
