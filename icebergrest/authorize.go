package icebergrest

import (
	"context"
	"errors"
	"net/http"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/catalog"
	"github.com/floe/floe/edge"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/warehouse"
)

// The edge authenticates every route but the token exchange; the
// authorizer decides. A route's rule names the privilege it needs on the
// place its path names; the routes whose place is in the body (create
// namespace, rename, transactions) ask in their handler.

// level is how deep into the path a route's place lies.
type level int

const (
	atBucket    level = iota // {prefix}
	atNamespace              // {prefix}/namespaces/{ns}
	atTable                  // …/tables/{table}
	atView                   // …/views/{view}
	inBody                   // the handler asks; the route only needs to see the bucket
)

// rule is what a route needs: priv on the place at its level. A zero priv
// (a listing, a load of a namespace) needs only to see the place.
type rule struct {
	priv identity.Privilege
	at   level
}

func need(priv identity.Privilege, at level) rule { return rule{priv: priv, at: at} }

// see is the rule of routes that show a place (and, for listings, what of
// it the caller may see).
func see(at level) rule { return rule{at: at} }

type rightsKey struct{}

// rightsOf reads the rights the route's check stored for its handler.
func rightsOf(r *http.Request) authz.Rights {
	rt, _ := r.Context().Value(rightsKey{}).(authz.Rights)
	return rt
}

// loadRights reads what the edge's principal may do.
func (s *Server) loadRights(r *http.Request) (authz.Rights, error) {
	p, ok := edge.PrincipalFrom(r.Context())
	if !ok {
		return authz.Rights{}, errors.New("icebergrest: a route was served without authentication")
	}
	return s.authz.Rights(r.Context(), p)
}

// check applies a route's rule once the bucket is open.
func (s *Server) check(r *http.Request, rt authz.Rights, ru rule, bucket string) error {
	res := identity.Resource{Bucket: bucket}
	switch ru.at {
	case atBucket, inBody:
		return nil // openBucket saw to the bucket
	case atNamespace:
		ns, err := namespaceParam(r)
		if err != nil {
			return err
		}
		res.Namespace = ns
	case atTable, atView:
		ref, err := tableParam(r)
		if ru.at == atView {
			ref, err = viewParam(r)
		}
		if err != nil {
			return err
		}
		res = tableRes(ref)
	}
	if ru.priv == "" {
		return seeOrRefuse(rt, res)
	}
	return refusal(rt.Decide(ru.priv, res))
}

func seeOrRefuse(rt authz.Rights, res identity.Resource) error {
	if rt.Visible(res) {
		return nil
	}
	return refusal(rt.Decide(identity.Read, res))
}

// require is a handler's own check, for places its body names.
func require(r *http.Request, priv identity.Privilege, res identity.Resource) error {
	return refusal(rightsOf(r).Decide(priv, res))
}

// refusal renders the authorizer's refusal in the spec's error model.
func refusal(err error) error {
	switch fault.KindOf(err) {
	case "":
		return err
	case fault.Unauthenticated:
		return errorf(http.StatusUnauthorized, typeNotAuthorized, "%s", fault.Message(err, "unauthenticated"))
	case fault.Forbidden:
		return errorf(http.StatusForbidden, typeForbidden, "%s", fault.Message(err, "forbidden"))
	}
	return err
}

func tableRes(ref catalog.TableRef) identity.Resource {
	return identity.Resource{Bucket: ref.Bucket, Namespace: ref.Namespace, Table: ref.Name}
}

// vendAccess is what the keys vended with a table may do.
func vendAccess(r *http.Request, res identity.Resource) warehouse.Access {
	if rightsOf(r).Can(identity.Write, res) {
		return warehouse.AccessWrite
	}
	return warehouse.AccessRead
}

func withRights(r *http.Request, rt authz.Rights) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), rightsKey{}, rt))
}
