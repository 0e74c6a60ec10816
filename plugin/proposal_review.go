package plugin

import "context"

// ProposalReviewer has the last word on a detected proposal before it
// becomes a job: the catalog's maintenance configuration (set through the
// S3 Tables API) drops proposals for tables whose kind of maintenance is
// DISABLED and applies configured settings to the parameters. It sees
// plain values, not Proposal, so the catalog need not import plugin.
type ProposalReviewer interface {
	ReviewProposal(ctx context.Context, jobType, objectID string, params map[string]string) (map[string]string, bool, error)
}

// reviewProposals keeps the proposals the reviewer allows, with its
// parameters. A reviewer failure keeps nothing: maintenance an operator may
// have switched off is never started on a guess.
func (p *Plugin) reviewProposals(ctx context.Context, jobType string, props []Proposal) ([]Proposal, int, error) {
	r := p.cfg.Reviewer
	if r == nil {
		return props, 0, nil
	}
	kept := props[:0:0]
	dropped := 0
	for _, pr := range props {
		params, ok, err := r.ReviewProposal(ctx, jobType, pr.ObjectID, pr.Parameters)
		if err != nil {
			return nil, 0, err
		}
		if !ok {
			dropped++
			continue
		}
		pr.Parameters = params
		kept = append(kept, pr)
	}
	return kept, dropped, nil
}
