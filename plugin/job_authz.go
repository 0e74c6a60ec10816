package plugin

import (
	"context"
	"errors"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// Authorizer is the decision the job queue asks of floe's authorizer
// (authz.Authorizer has it).
type Authorizer interface {
	Decide(ctx context.Context, p identity.Principal, priv identity.Privilege, res identity.Resource) error
}

// authorizeSubmit asks Config.Authz whether spec.By may submit the job: it
// needs spec.Need (maintain by default) on the job's table, or on
// everything for a job on no table. A submission that names nobody is
// refused: every way into the queue says who is asking.
func (p *Plugin) authorizeSubmit(ctx context.Context, spec JobSpec) error {
	az := p.cfg.Authz
	if az == nil {
		return nil
	}
	if spec.By.Kind == "" {
		return fault.New(fault.Unauthenticated, "by", "a job was submitted without saying who submits it")
	}
	need := spec.Need
	if need == "" {
		need = identity.Maintain
	}
	res := identity.Resource{}
	if spec.ObjectID != "" {
		t, err := p.store.GetTableByID(ctx, spec.ObjectID)
		switch {
		case err == nil:
			res = identity.Resource{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name}
		case !errors.Is(err, fault.NotFound):
			return err
		}
	}
	return az.Decide(ctx, spec.By, need, res)
}
