package s3tables

import (
	"errors"

	"github.com/floe/floe/fault"
	"github.com/floe/floe/identity"
)

// policyBody is the body of PutTableBucketPolicy and PutTablePolicy, and
// the answer of their Get.
type policyBody struct {
	ResourcePolicy string `json:"resourcePolicy"`
}

// bucketPolicyTarget reads a bucket policy operation's bucket; the caller
// needs priv on it (read to get the policy, manage to change it).
func (s *Server) bucketPolicyTarget(req *request, priv identity.Privilege) (policyTarget, error) {
	bucket, err := s.bucketParam(req, see)
	if err == nil {
		err = s.allow(req, identity.Resource{Bucket: bucket}, priv)
	}
	if err == nil {
		_, err = s.cfg.Store.GetBucket(req.ctx, bucket)
	}
	return s.bucketTarget(bucket), err
}

func (s *Server) tablePolicyTarget(req *request, priv identity.Privilege) (policyTarget, error) {
	t, err := s.loadTable(req, priv)
	if err != nil {
		return policyTarget{}, err
	}
	return s.tableTarget(t), nil
}

// putPolicy replaces the target's policy: its grants are what the document
// allows from now on (grants made otherwise on the place stay).
func (s *Server) putPolicy(req *request, target policyTarget, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	var in policyBody
	if err := req.decode(&in); err != nil {
		return nil, err
	}
	if in.ResourcePolicy == "" {
		return nil, badRequest("resourcePolicy", "resourcePolicy is required: the policy document as a JSON string")
	}
	grants, err := s.grantsOf(req, in.ResourcePolicy, target)
	if err != nil {
		return nil, err
	}
	by := identity.FromKey(req.key, "sigv4").String()
	return nil, s.cfg.Store.PutPolicy(req.ctx, target.at, in.ResourcePolicy, by, grants)
}

// getPolicy answers the document that was put while its grants are
// unchanged, else the policy the grants now make.
func (s *Server) getPolicy(req *request, target policyTarget, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	p, err := s.cfg.Store.Policy(req.ctx, target.at)
	if errors.Is(err, fault.NotFound) {
		return nil, notFound(fault.Message(err, "there is no resource policy here"))
	}
	if err != nil {
		return nil, err
	}
	if p.Document == "" {
		if p.Document, err = s.documentOf(req, p.Grants, target); err != nil {
			return nil, err
		}
	}
	return policyBody{ResourcePolicy: p.Document}, nil
}

func (s *Server) deletePolicy(req *request, target policyTarget, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	err = s.cfg.Store.DeletePolicy(req.ctx, target.at)
	if errors.Is(err, fault.NotFound) {
		return nil, notFound(fault.Message(err, "there is no resource policy here"))
	}
	return nil, err
}

func (s *Server) putBucketPolicy(req *request) (any, error) {
	t, err := s.bucketPolicyTarget(req, identity.Manage)
	return s.putPolicy(req, t, err)
}

func (s *Server) getBucketPolicy(req *request) (any, error) {
	t, err := s.bucketPolicyTarget(req, identity.Read)
	return s.getPolicy(req, t, err)
}

func (s *Server) deleteBucketPolicy(req *request) (any, error) {
	t, err := s.bucketPolicyTarget(req, identity.Manage)
	return s.deletePolicy(req, t, err)
}

func (s *Server) putTablePolicy(req *request) (any, error) {
	t, err := s.tablePolicyTarget(req, identity.Manage)
	return s.putPolicy(req, t, err)
}

func (s *Server) getTablePolicy(req *request) (any, error) {
	t, err := s.tablePolicyTarget(req, identity.Read)
	return s.getPolicy(req, t, err)
}

func (s *Server) deleteTablePolicy(req *request) (any, error) {
	t, err := s.tablePolicyTarget(req, identity.Manage)
	return s.deletePolicy(req, t, err)
}
