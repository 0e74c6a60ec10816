package lancecommit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/warehouse"
)

// Tags and branches live where Lance keeps them, <location>/_refs/tags/<name>.json
// and <location>/_refs/branches/<name>.json, in Lance's own JSON, so a tag
// made here is one LanceDB's table.tags() lists and the other way round.
// Files are reached through the warehouse, which keeps every location
// inside it. The Lance REST surface and the console both come here.

// tagFile is Lance's tag file (camelCase as Lance writes it).
type tagFile struct {
	Branch       *string           `json:"branch"`
	Version      uint64            `json:"version"`
	CreatedAt    string            `json:"createdAt,omitempty"`
	UpdatedAt    string            `json:"updatedAt,omitempty"`
	ManifestSize int64             `json:"manifestSize"`
	Metadata     map[string]string `json:"metadata"`
}

// branchFile is Lance's branch file.
type branchFile struct {
	ParentBranch  *string           `json:"parentBranch"`
	ParentVersion uint64            `json:"parentVersion"`
	CreateAt      int64             `json:"createAt"` // Unix seconds
	ManifestSize  int64             `json:"manifestSize"`
	Metadata      map[string]string `json:"metadata"`
}

// maxRefFile bounds a tag or branch file read: Lance writes a few hundred
// bytes; anything near this is not one of its files.
const maxRefFile = 64 << 10

// MaxTagPage bounds one Tags page; each tag is a file read.
const MaxTagPage = 1000

// maxBranches bounds the branches listed; each is a file read and a
// listing of its versions.
const maxBranches = 1000

// TagName is the subset of Lance's tag names floe writes: no path
// separators, no leading dot, nothing a file system treats specially.
var TagName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9._-]{0,254}$`)

// TagNameRule says TagName in words.
const TagNameRule = "Tag names are 1-255 of A-Z, a-z, 0-9, '.', '_' and '-', not starting with '.' or '-'."

// Tag is one tag of a table.
type Tag struct {
	Name         string
	Branch       *string // nil: main
	Version      uint64
	ManifestSize int64
	CreatedAt    time.Time // zero when the file does not say
	UpdatedAt    time.Time
}

// Branch is one branch of a table (main is not listed: it is the table).
type Branch struct {
	Name          string
	ParentBranch  string // "" = main
	ParentVersion uint64
	CreatedAt     time.Time
	Latest        uint64 // the branch's newest version; 0 when none is found
}

// refDir is the table's _refs/<kind> directory.
func (s *Service) refDir(t catalog.Table, kind string) (warehouse.Location, error) {
	loc, err := s.store.Storage().Parse(t.Location)
	if err == nil {
		loc, err = loc.Join("_refs", kind)
	}
	return loc, err
}

func tagMissing(name string) error {
	return fault.New(fault.NotFound, "tag", "the table has no tag %q", name)
}

func checkTagName(name string) error {
	if !TagName.MatchString(name) {
		return fault.New(fault.Invalid, "tag", "tag %s is not a valid tag name. %s", quote(name), TagNameRule)
	}
	return nil
}

// Tags lists a table's tags by name: the first limit (1..MaxTagPage; 0 =
// MaxTagPage) after the name after, and the name the next page starts
// after ("" on the last page).
func (s *Service) Tags(ctx context.Context, t catalog.Table, after string, limit int) (tags []Tag, next string, err error) {
	if after != "" && !TagName.MatchString(after) {
		return nil, "", fault.New(fault.Invalid, "page_token", "page token %s is not a tag name", quote(after))
	}
	if limit <= 0 || limit > MaxTagPage {
		limit = MaxTagPage
	}
	dir, err := s.refDir(t, "tags")
	if err != nil {
		return nil, "", err
	}
	var names []string
	err = s.store.Storage().List(ctx, dir, func(en warehouse.Entry) error {
		rel, _ := en.Loc.Rel(dir)
		if name, ok := cutJSON(rel); ok && !strings.Contains(rel, "/") && name > after {
			names = append(names, name)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	slices.Sort(names)
	if len(names) > limit {
		names = names[:limit]
		next = names[limit-1]
	}
	tags = make([]Tag, 0, len(names))
	for _, name := range names {
		tg, err := s.Tag(ctx, t, name)
		if err != nil {
			continue // being written or removed right now
		}
		tags = append(tags, tg)
	}
	return tags, next, nil
}

// Tag reads one tag; a missing one is fault.NotFound with Field "tag".
func (s *Service) Tag(ctx context.Context, t catalog.Table, name string) (Tag, error) {
	if err := checkTagName(name); err != nil {
		return Tag{}, err
	}
	dir, err := s.refDir(t, "tags")
	if err != nil {
		return Tag{}, err
	}
	tf, err := s.readTag(ctx, dir, name)
	if errors.Is(err, fs.ErrNotExist) {
		return Tag{}, tagMissing(name)
	}
	if err != nil {
		return Tag{}, err
	}
	tg := Tag{Name: name, Branch: tf.Branch, Version: tf.Version, ManifestSize: tf.ManifestSize}
	tg.CreatedAt, _ = time.Parse(time.RFC3339Nano, tf.CreatedAt)
	tg.UpdatedAt, _ = time.Parse(time.RFC3339Nano, tf.UpdatedAt)
	return tg, nil
}

// CreateTag names a version of the table's main branch; a tag of that
// name already there is fault.AlreadyExists, a version the table does not
// have fault.NotFound with Field "version".
func (s *Service) CreateTag(ctx context.Context, t catalog.Table, name string, version uint64) error {
	return s.putTag(ctx, t, name, version, false)
}

// MoveTag points an existing tag at another version; a missing tag is
// fault.NotFound with Field "tag".
func (s *Service) MoveTag(ctx context.Context, t catalog.Table, name string, version uint64) error {
	return s.putTag(ctx, t, name, version, true)
}

func (s *Service) putTag(ctx context.Context, t catalog.Table, name string, version uint64, update bool) error {
	if err := checkTagName(name); err != nil {
		return err
	}
	if version < 1 {
		return fault.New(fault.Invalid, "version", "version is required and must be at least 1")
	}
	managed, err := s.Managed(ctx, t)
	if err != nil {
		return err
	}
	v, found, err := s.Describe(ctx, t, managed, version)
	if err != nil {
		return err
	}
	if !found {
		return fault.New(fault.NotFound, "version", "the table has no version %d", version)
	}
	dir, err := s.refDir(t, "tags")
	if err != nil {
		return err
	}
	now := s.now().UTC().Format(time.RFC3339Nano)
	tf := tagFile{Version: v.Version, CreatedAt: now, UpdatedAt: now, ManifestSize: v.Size, Metadata: map[string]string{}}
	old, err := s.readTag(ctx, dir, name)
	switch {
	case update && errors.Is(err, fs.ErrNotExist):
		return tagMissing(name)
	case !update && err == nil:
		// Refused here, not only by the exclusive create: a store that
		// ignores If-None-Match would replace the tag.
		return fault.New(fault.AlreadyExists, "tag", "the table already has tag %s", quote(name))
	case update && err == nil:
		tf.CreatedAt, tf.Metadata = old.CreatedAt, old.Metadata
		if tf.Metadata == nil {
			tf.Metadata = map[string]string{}
		}
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	b, _ := json.MarshalIndent(tf, "", "  ")
	path, err := dir.Join(name + ".json")
	if err != nil {
		return err
	}
	wh := s.store.Storage()
	if err := wh.MkdirAll(ctx, dir); err != nil {
		return err
	}
	if update {
		// The warehouse replaces a file whole, so a reader never sees half
		// a tag.
		return wh.WriteFile(ctx, path, b)
	}
	err = wh.CreateExclusive(ctx, path, b)
	if errors.Is(err, fs.ErrExist) {
		return fault.New(fault.AlreadyExists, "tag", "the table already has tag %s", quote(name))
	}
	return err
}

// DeleteTag removes a tag (not the version it names); a missing tag is
// fault.NotFound with Field "tag".
func (s *Service) DeleteTag(ctx context.Context, t catalog.Table, name string) error {
	if err := checkTagName(name); err != nil {
		return err
	}
	dir, err := s.refDir(t, "tags")
	if err != nil {
		return err
	}
	path, err := dir.Join(name + ".json")
	if err != nil {
		return err
	}
	wh := s.store.Storage()
	// Delete of a missing file succeeds, so ask first: a missing tag is a
	// refusal, not a silent success.
	ok, err := wh.Exists(ctx, path)
	if err != nil {
		return err
	}
	if !ok {
		return tagMissing(name)
	}
	return wh.Delete(ctx, path)
}

// Branches lists the table's branches other than main, by name, with the
// newest version each holds (from its tree/<name>/_versions/ listing).
func (s *Service) Branches(ctx context.Context, t catalog.Table) ([]Branch, error) {
	dir, err := s.refDir(t, "branches")
	if err != nil {
		return nil, err
	}
	wh := s.store.Storage()
	var names []string
	err = wh.List(ctx, dir, func(en warehouse.Entry) error {
		rel, _ := en.Loc.Rel(dir)
		if name, ok := cutJSON(rel); ok && len(names) < maxBranches {
			names = append(names, name) // a branch name may hold '/': a file in a sub-folder
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	root, err := wh.Parse(t.Location)
	if err != nil {
		return nil, err
	}
	out := make([]Branch, 0, len(names))
	for _, name := range names {
		var bf branchFile
		if err := s.readRef(ctx, dir, name, &bf); err != nil {
			continue // being written or removed right now
		}
		br := Branch{Name: name, ParentVersion: bf.ParentVersion}
		if bf.ParentBranch != nil {
			br.ParentBranch = *bf.ParentBranch
		}
		if bf.CreateAt > 0 {
			br.CreatedAt = time.Unix(bf.CreateAt, 0).UTC()
		}
		if tree, err := root.Join(append([]string{"tree"}, strings.Split(name, "/")...)...); err == nil {
			if vs, err := s.listVersions(ctx, tree); err == nil && len(vs) > 0 {
				br.Latest = vs[len(vs)-1].Version
			}
		}
		out = append(out, br)
	}
	return out, nil
}

func (s *Service) readTag(ctx context.Context, dir warehouse.Location, name string) (tagFile, error) {
	var tf tagFile
	return tf, s.readRef(ctx, dir, name, &tf)
}

// readRef reads and decodes <dir>/<name>.json.
func (s *Service) readRef(ctx context.Context, dir warehouse.Location, name string, into any) error {
	path, err := dir.Join(strings.Split(name+".json", "/")...)
	if err != nil {
		return err
	}
	f, err := s.store.Storage().Open(ctx, path)
	if err != nil {
		return err
	}
	defer f.Close()
	if f.Size() > maxRefFile {
		return fault.New(fault.Invalid, "ref", "%s is %d bytes, more than a Lance ref file holds", quote(name), f.Size())
	}
	b := make([]byte, f.Size())
	if _, err := f.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return json.Unmarshal(b, into)
}

func cutJSON(file string) (string, bool) {
	if len(file) <= len(".json") || file[len(file)-5:] != ".json" || file[0] == '.' {
		return "", false
	}
	return file[:len(file)-5], true
}
