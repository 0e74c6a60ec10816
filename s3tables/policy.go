package s3tables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/identity"
)

// Resource policies (Put/Get/DeleteTableBucketPolicy, …TablePolicy) are
// floe's grants in AWS's policy grammar, what Terraform's
// aws_s3tables_table_bucket_policy and aws_s3tables_table_policy send: each
// Allow statement grants its principals, on the policy's bucket or table,
// the least privilege that covers its actions. A principal is a floe access
// key id (an API key's SigV4 pair), arn:aws:iam::<account>:user/<name> or
// …:group/<name> (floe's users and identity-provider groups; user:NAME,
// group:NAME and apikey:ID are accepted too). What floe cannot honour —
// Deny, conditions, NotAction or NotPrincipal, another account, an action
// pattern other than s3tables:* — is refused with a sentence, never
// silently dropped.

// maxPolicyBytes is AWS's own bound on a resource policy document (20 KB).
const maxPolicyBytes = 20 << 10

// actionPrivilege is the privilege each S3 Tables action needs in floe
// (lower-cased: IAM action names are case-insensitive).
var actionPrivilege = map[string]identity.Privilege{}

// canonicalActions are the actions GetPolicy writes for each privilege when
// it has to write the policy from grants.
var canonicalActions = map[identity.Privilege][]string{
	identity.Read: {"s3tables:GetTableBucket", "s3tables:ListNamespaces", "s3tables:GetNamespace", "s3tables:ListTables",
		"s3tables:GetTable", "s3tables:GetTableMetadataLocation", "s3tables:GetTableData"},
	identity.Write:    {"s3tables:PutTableData", "s3tables:UpdateTableMetadataLocation"},
	identity.Maintain: {"s3tables:PutTableBucketMaintenanceConfiguration", "s3tables:PutTableMaintenanceConfiguration"},
	identity.Manage:   {"s3tables:*"},
}

func init() {
	for p, names := range map[identity.Privilege][]string{
		identity.Read: {"GetTableBucket", "ListTableBuckets", "ListNamespaces", "GetNamespace", "ListTables", "GetTable",
			"GetTableMetadataLocation", "GetTableData", "GetTableBucketMaintenanceConfiguration",
			"GetTableMaintenanceConfiguration", "GetTableMaintenanceJobStatus", "GetTableBucketEncryption",
			"GetTableEncryption", "ListTagsForResource", "GetTableBucketPolicy", "GetTablePolicy",
			"GetTableBucketMetricsConfiguration", "GetTableBucketStorageClass", "GetTableStorageClass"},
		identity.Write:    {"PutTableData", "UpdateTableMetadataLocation"},
		identity.Maintain: {"PutTableBucketMaintenanceConfiguration", "PutTableMaintenanceConfiguration"},
		identity.Manage: {"CreateTableBucket", "DeleteTableBucket", "CreateNamespace", "DeleteNamespace", "CreateTable",
			"DeleteTable", "RenameTable", "PutTableBucketPolicy", "DeleteTableBucketPolicy", "PutTablePolicy",
			"DeleteTablePolicy", "PutTableBucketEncryption", "DeleteTableBucketEncryption", "TagResource", "UntagResource"},
	} {
		for _, n := range names {
			actionPrivilege["s3tables:"+strings.ToLower(n)] = p
		}
	}
}

// stringList is a policy field that is a string or a list of strings.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		var many []string
		if err := json.Unmarshal(b, &many); err != nil {
			return err
		}
		*l = many
		return nil
	}
	var one string
	if err := json.Unmarshal(b, &one); err != nil {
		return err
	}
	*l = stringList{one}
	return nil
}

type policyDoc struct {
	Version   string            `json:"Version,omitempty"`
	ID        string            `json:"Id,omitempty"`
	Statement []policyStatement `json:"Statement"`
}

type policyStatement struct {
	Sid          string          `json:"Sid,omitempty"`
	Effect       string          `json:"Effect"`
	Principal    json.RawMessage `json:"Principal,omitempty"`
	Action       stringList      `json:"Action,omitempty"`
	Resource     stringList      `json:"Resource,omitempty"`
	NotAction    json.RawMessage `json:"NotAction,omitempty"`
	NotPrincipal json.RawMessage `json:"NotPrincipal,omitempty"`
	NotResource  json.RawMessage `json:"NotResource,omitempty"`
	Condition    json.RawMessage `json:"Condition,omitempty"`
}

// policyTarget is the place a policy governs and the ARNs its statements
// may name for it.
type policyTarget struct {
	at        catalog.Grant
	resources []string // accepted Resource values; the first is canonical
}

func (s *Server) bucketTarget(bucket string) policyTarget {
	arn := s.bucketARN(bucket)
	return policyTarget{at: catalog.Grant{Bucket: bucket}, resources: []string{arn, arn + "/*", arn + "/table/*"}}
}

func (s *Server) tableTarget(t catalog.Table) policyTarget {
	return policyTarget{at: catalog.Grant{Bucket: t.Bucket, Namespace: t.Namespace, Table: t.Name}, resources: []string{s.tableARN(t)}}
}

func bad(msg string, args ...any) error {
	return badRequest("resourcePolicy", fmt.Sprintf(msg, args...))
}

// grantsOf translates a policy document into the grants it makes.
func (s *Server) grantsOf(req *request, doc string, target policyTarget) ([]catalog.Grant, error) {
	if len(doc) > maxPolicyBytes {
		return nil, bad("the policy is %d bytes; a resource policy is at most %d", len(doc), maxPolicyBytes)
	}
	var d policyDoc
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return nil, bad("the policy is not a policy document (Version, Statement: [{Effect, Principal, Action, Resource}]): %v", err)
	}
	if d.Version != "" && d.Version != "2012-10-17" && d.Version != "2008-10-17" {
		return nil, bad("policy Version %q is not one IAM knows; use 2012-10-17", d.Version)
	}
	if len(d.Statement) == 0 {
		return nil, bad("the policy has no statements; to allow nothing, delete the policy instead")
	}
	seen := map[string]bool{}
	var out []catalog.Grant
	for i, st := range d.Statement {
		n := i + 1
		switch {
		case st.Effect != "Allow":
			return nil, bad("statement %d: Effect %q: floe's grants only allow (nothing is allowed that no grant gives), so a policy has Allow statements only", n, st.Effect)
		case st.Condition != nil:
			return nil, bad("statement %d: floe's grants take no conditions; remove Condition", n)
		case st.NotAction != nil || st.NotPrincipal != nil || st.NotResource != nil:
			return nil, bad("statement %d: NotAction, NotPrincipal and NotResource have no floe grant; name what is allowed instead", n)
		case len(st.Action) == 0:
			return nil, bad("statement %d names no Action", n)
		}
		for _, r := range st.Resource {
			if !slices.Contains(target.resources, r) {
				return nil, bad("statement %d: Resource %q is not this policy's; use %s", n, r, target.resources[0])
			}
		}
		privs, err := privilegesOf(st.Action)
		if err != nil {
			return nil, bad("statement %d: %v", n, err)
		}
		who, err := s.principalsOf(req, st.Principal)
		if err != nil {
			return nil, bad("statement %d: %v", n, err)
		}
		for _, g := range who {
			for _, p := range privs {
				key := g.Kind + "\x00" + g.ID + "\x00" + string(p)
				if !seen[key] {
					seen[key] = true
					out = append(out, catalog.Grant{Grantee: g, Privilege: string(p)})
				}
			}
		}
	}
	return out, nil
}

// privilegesOf is the least set of privileges that covers actions: manage
// covers everything; write and maintain each cover read.
func privilegesOf(actions []string) ([]identity.Privilege, error) {
	need := map[identity.Privilege]bool{}
	for _, a := range actions {
		l := strings.ToLower(a)
		if l == "*" || l == "s3tables:*" {
			need[identity.Manage] = true
			continue
		}
		p, ok := actionPrivilege[l]
		if !ok {
			if strings.ContainsAny(a, "*?") {
				return nil, fmt.Errorf("action pattern %q: floe takes s3tables:* or whole action names", a)
			}
			return nil, fmt.Errorf("action %q is not an S3 Tables action floe grants (s3tables:GetTable, s3tables:PutTableData, …)", a)
		}
		need[p] = true
	}
	if need[identity.Manage] {
		return []identity.Privilege{identity.Manage}, nil
	}
	var out []identity.Privilege
	for _, p := range []identity.Privilege{identity.Write, identity.Maintain} {
		if need[p] {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		out = append(out, identity.Read)
	}
	return out, nil
}

// principalsOf reads a statement's Principal: {"AWS": one or a list}.
func (s *Server) principalsOf(req *request, raw json.RawMessage) ([]catalog.Grantee, error) {
	if len(raw) == 0 {
		return nil, fmt.Errorf("it names no Principal")
	}
	var star string
	if json.Unmarshal(raw, &star) == nil {
		return nil, fmt.Errorf("the Principal %q: floe grants go to access keys, users or groups, never to everyone", star)
	}
	var p map[string]stringList
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("the Principal must be {\"AWS\": [...]}: %v", err)
	}
	var out []catalog.Grantee
	for kind, names := range p {
		if kind != "AWS" {
			return nil, fmt.Errorf("the Principal %q: floe's principals are {\"AWS\": …} (access key ids, user and group ARNs)", kind)
		}
		for _, n := range names {
			g, err := s.principal(req, n)
			if err != nil {
				return nil, err
			}
			out = append(out, g)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("its Principal names nobody")
	}
	return out, nil
}

// principal reads one principal string.
func (s *Server) principal(req *request, n string) (catalog.Grantee, error) {
	if n == "*" {
		return catalog.Grantee{}, fmt.Errorf("principal \"*\": floe grants go to access keys, users or groups, never to everyone")
	}
	if rest, ok := strings.CutPrefix(n, "arn:aws:iam::"); ok {
		account, res, _ := strings.Cut(rest, ":")
		if account != s.cfg.Account {
			return catalog.Grantee{}, fmt.Errorf("principal %q is of account %s; this floe is account %s (--s3tables-account)", n, account, s.cfg.Account)
		}
		kind, name, ok := strings.Cut(res, "/")
		if !ok || (kind != "user" && kind != "group") {
			return catalog.Grantee{}, fmt.Errorf("principal %q: floe knows arn:aws:iam::%s:user/NAME and …:group/NAME", n, s.cfg.Account)
		}
		return grantee(kind, name)
	}
	if kind, id, ok := strings.Cut(n, ":"); ok {
		return grantee(kind, id)
	}
	// An access key id: the API key whose SigV4 pair it is.
	k, err := s.cfg.Store.LookupAccessKey(req.ctx, n)
	if err != nil {
		return catalog.Grantee{}, fmt.Errorf("principal %q is no floe access key id (or user or group ARN)", n)
	}
	return catalog.Grantee{Kind: catalog.GranteeAPIKey, ID: k.ID}, nil
}

func grantee(kind, id string) (catalog.Grantee, error) {
	g, err := catalog.ParseGrantee(kind + ":" + id)
	if err != nil {
		return catalog.Grantee{}, fmt.Errorf("principal %s:%s: %v", kind, id, err)
	}
	return g, nil
}

// documentOf writes grants as a policy document: one statement per
// privilege, its principals sorted, canonical actions.
func (s *Server) documentOf(req *request, grants []catalog.Grant, target policyTarget) (string, error) {
	by := map[identity.Privilege][]string{}
	var accessKeys map[string]string
	for _, g := range grants {
		name := ""
		switch g.Grantee.Kind {
		case catalog.GranteeUser, catalog.GranteeGroup:
			name = "arn:aws:iam::" + s.cfg.Account + ":" + g.Grantee.Kind + "/" + g.Grantee.ID
		case catalog.GranteeAPIKey:
			if accessKeys == nil {
				keys, err := s.cfg.Store.ListAPIKeys(req.ctx)
				if err != nil {
					return "", err
				}
				accessKeys = map[string]string{}
				for _, k := range keys {
					accessKeys[k.ID] = k.AccessKeyID
				}
			}
			if name = accessKeys[g.Grantee.ID]; name == "" {
				name = g.Grantee.String() // a key made before SigV4 pairs existed
			}
		}
		p := identity.Privilege(g.Privilege)
		by[p] = append(by[p], name)
	}
	d := policyDoc{Version: "2012-10-17"}
	for _, p := range []identity.Privilege{identity.Read, identity.Write, identity.Maintain, identity.Manage} {
		names := by[p]
		if len(names) == 0 {
			continue
		}
		slices.Sort(names)
		principal, _ := json.Marshal(map[string][]string{"AWS": names})
		d.Statement = append(d.Statement, policyStatement{Sid: "floe-" + string(p), Effect: "Allow", Principal: principal,
			Action: canonicalActions[p], Resource: stringList{target.resources[0]}})
	}
	b, err := json.Marshal(d)
	return string(b), err
}
