package handlers

import (
	"context"
	"net/http"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/plugin"
)

// The console asks the authorizer, like every surface: the route table
// (web/routes.go) checks what each page and form needs on the place its
// path names, and handlers ask again for places their forms name and to
// choose which controls a page shows.

type rightsKey struct{}

// WithRights keeps the rights read for a request, so its handler asks the
// same index the route's check did.
func WithRights(r *http.Request, rt authz.Rights) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), rightsKey{}, rt))
}

// Rights reads what the signed-in user may do (once per request: the
// route's check keeps them with WithRights).
func (h *Handlers) Rights(ctx context.Context) (authz.Rights, error) {
	if rt, ok := ctx.Value(rightsKey{}).(authz.Rights); ok {
		return rt, nil
	}
	p, _ := edge.PrincipalFrom(ctx)
	return h.authz.Rights(ctx, p)
}

// Can reports whether the user holds priv on res; false when the rights
// cannot be read (the page then shows no control, and the write itself is
// refused with the database's error).
func (h *Handlers) Can(ctx context.Context, priv identity.Privilege, res identity.Resource) bool {
	rt, err := h.Rights(ctx)
	return err == nil && rt.Can(priv, res)
}

// Require is nil when the user holds priv on res, else the refusal.
func (h *Handlers) Require(ctx context.Context, priv identity.Privilege, res identity.Resource) error {
	rt, err := h.Rights(ctx)
	if err != nil {
		return err
	}
	return rt.Decide(priv, res)
}

// PlaceOf is the place a console path names: its {bucket}, {ns} and
// {table} or {view} values, or everything for pages outside a bucket.
func PlaceOf(r *http.Request) identity.Resource {
	res := identity.Resource{Bucket: r.PathValue("bucket")}
	if res.Bucket == "" {
		return res
	}
	if ns := r.PathValue("ns"); ns != "" {
		res.Namespace = catalog.SplitNamespace(ns)
		res.Table = r.PathValue("table")
		if res.Table == "" {
			res.Table = r.PathValue("view")
		}
	}
	return res
}

func tablePlace(t catalog.Table) identity.Resource {
	return identity.Resource{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name}
}

// jobPlace is the table a job works on, or everything for a job on no
// table (or one since dropped).
func (h *Handlers) jobPlace(ctx context.Context, j plugin.Job) identity.Resource {
	if j.ObjectID == "" {
		return identity.Resource{}
	}
	t, err := h.store.GetTableByID(ctx, j.ObjectID)
	if err != nil {
		return identity.Resource{}
	}
	return tablePlace(t)
}

// LiveAccess decides a live subscription (the /live socket reads the
// session itself, outside the edge's routes): a table's rows and panels
// need read on it, and canWrite — whether pushed fragments carry the
// controls of maintenance (cancel, delete) — is maintain on the table the
// page shows (the job's table for a job's detail), or on everything for
// pages of several tables' jobs.
func (h *Handlers) LiveAccess(ctx context.Context, u User, sub LiveSub) (canWrite bool, err error) {
	rt, err := h.authz.Rights(ctx, u.Principal())
	if err != nil {
		return false, err
	}
	place := identity.Resource{}
	switch {
	case sub.List != "":
		if err := h.listAccess(ctx, rt, sub); err != nil {
			return false, err
		}
		return false, nil // a list's reload asks the page again, as its reader
	case sub.Table != "":
		t, err := h.store.GetTableByID(ctx, sub.Table)
		if err != nil {
			return false, err
		}
		place = tablePlace(t)
		if err := rt.Decide(identity.Read, place); err != nil {
			return false, err
		}
	case sub.Detail != "" && h.plugin != nil:
		if j, err := h.plugin.GetJob(ctx, sub.Detail); err == nil {
			place = h.jobPlace(ctx, j)
		}
	}
	return rt.Can(identity.Maintain, place), nil
}

// mayCreate is nil when the user may create what is at res (manage on the
// place; its parent's managers have it). A name that is not one falls back
// to the parent's place, so the form's own check can say what is wrong.
func (h *Handlers) mayCreate(ctx context.Context, res identity.Resource, validName bool) error {
	if !validName {
		switch {
		case res.Table != "":
			res.Table = ""
		case len(res.Namespace) > 0:
			res.Namespace = nil
		default:
			res.Bucket = ""
		}
	}
	return h.Require(ctx, identity.Manage, res)
}

// principalOf is the signed-in user as the services it calls record who
// asked (the job queue decides by it).
func principalOf(ctx context.Context) identity.Principal {
	p, _ := edge.PrincipalFrom(ctx)
	return p
}
