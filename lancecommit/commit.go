// Package lancecommit makes floe the commit authority of a managed Lance
// table (a bucket with managed versioning on). It runs Lance's
// external-manifest protocol as the namespace side of it: the client writes
// its new manifest under a staging name in the table's _versions/ and asks
// floe to create the version; floe reserves the number in the catalog (put
// if not exists: the database decides between racing writers, on any S3
// store and across replicas), writes the manifest to its final name,
// finalizes the record and removes the staging file. Reads of a managed
// table's versions come from the catalog's record, falling back to the
// _versions/ listing for tables whose commits never went through floe.
//
// It knows nothing of HTTP: lancerest parses requests and maps the
// catalog's error kinds.
package lancecommit

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/lancemeta"
	"github.com/floe/floe/warehouse"
)

// staleAfter is how long a reserved version may stay unfinalized before a
// later commit treats its writer as gone and settles it (finalizes it when
// its manifest reached the final name, else frees the number). A live
// commit finishes in well under a second; this only bounds how long a
// replica that died mid-commit blocks the table.
const staleAfter = time.Minute

// maxManifestFile bounds the manifest file floe reads and copies on a
// commit: lancemeta's bound on the message plus its footer.
const maxManifestFile = lancemeta.MaxManifestBytes + 1<<10

// Service commits and lists the versions of managed tables.
type Service struct {
	store *catalog.Store
	now   func() time.Time
}

// New returns a Service over the catalog and its warehouse.
func New(st *catalog.Store) *Service { return &Service{store: st, now: time.Now} }

// Commit is one version a client asks to create.
type Commit struct {
	Table   catalog.Table
	Version uint64
	// Manifest is the manifest the client wrote, as it named it: an
	// object-store path or a URI (warehouse.Location.ParseObjectPath).
	Manifest string
	// Scheme is the naming scheme the client uses ("V1", "V2"); "" takes
	// it from the manifest's name.
	Scheme string
	// Size and ETag are what the client says it wrote (0 and "" when it
	// does not say). With both, on a store that copies in place (S3), floe
	// copies the staged manifest to its final name without reading it:
	// the copy is conditional on that entity tag, so what is committed is
	// exactly what the client wrote. Otherwise floe reads the manifest and
	// checks it records the version.
	Size int64
	ETag string
	// Who commits: the API key's id and name.
	KeyID, Principal string
}

// Version is a committed version as the spec's TableVersion shows it.
type Version struct {
	Version  uint64
	Manifest warehouse.Location
	Size     int64
	ETag     string
	Time     time.Time // zero when unknown
}

func fromRecord(v catalog.LanceVersion) Version {
	loc, _ := warehouse.Parse(v.ManifestPath) // written canonical by this package
	return Version{Version: v.Version, Manifest: loc, Size: v.ManifestSize, ETag: v.ETag, Time: v.CreatedAt}
}

// staged is one commit with its places and bytes resolved.
type staged struct {
	c       Commit
	staging warehouse.Location
	final   warehouse.Location
	data    []byte
	copy    bool // staging is not the final name: write the final one
	inPlace bool // copy inside the store on the client's size and e_tag; data stays nil
}

// Create commits the versions, all or none: every manifest is checked
// (it must lie directly in its table's _versions/, be named for its
// version, exist, and record that version), the catalog reserves every
// number in one transaction (the manifests are read meanwhile), then the
// final manifests are written and the records finalized. A number taken
// already is fault.Conflict (Field "version"); a version some writer
// put straight into _versions/ behind floe's back is adopted into the
// record and answered as the same conflict, so the client reloads and
// commits on top of it. The staging files of a committed batch are left
// for Committed.Tidy, which the caller runs once the client has its answer.
func (s *Service) Create(ctx context.Context, commits []Commit) (Committed, error) {
	wh := s.store.Storage()
	plan := make([]staged, len(commits))
	for i, c := range commits {
		p, err := s.stage(wh, c)
		if err != nil {
			return Committed{}, err
		}
		plan[i] = p
	}
	// Reading the manifests (a GET each) overlaps the reservation's
	// database round trips; both are done before anything is written.
	// loadAll only reads plan; the bytes come back apart and join the
	// plan once both are done.
	type loadResult struct {
		data [][]byte
		err  error
	}
	loaded := make(chan loadResult, 1)
	go func() {
		data, err := s.loadAll(ctx, wh, plan)
		loaded <- loadResult{data, err}
	}()
	reservedAt := s.now()
	reserved, err := s.reserve(ctx, plan)
	lr := <-loaded
	for i := range plan {
		plan[i].data = lr.data[i]
	}
	if lerr := lr.err; lerr != nil {
		if err == nil {
			_ = s.store.ReleaseLanceVersions(context.WithoutCancel(ctx), reserved)
		}
		return Committed{}, lerr
	}
	if err != nil {
		if errors.Is(err, fault.Conflict) {
			for _, p := range plan {
				s.settle(ctx, p.c.Table)
			}
			s.dropStaged(ctx, wh, plan)
		}
		return Committed{}, err
	}
	for i, p := range plan {
		reserved[i].ManifestSize = int64(len(p.data))
		if p.inPlace {
			reserved[i].ManifestSize = p.c.Size
		}
	}
	done, adopted, err := s.writeFinalsBounded(ctx, wh, plan, reserved, reservedAt)
	if err != nil || len(adopted) > 0 {
		// Nothing of this batch becomes visible: the finals written here
		// go again (no reader can have used them, the records being
		// unfinalized), adopted foreign versions are kept as what storage
		// says, and the other numbers are freed.
		for _, i := range done {
			_ = wh.Delete(context.WithoutCancel(ctx), plan[i].final)
		}
		if len(adopted) > 0 {
			ferr := s.store.FinalizeLanceVersions(ctx, adoptedRecords(reserved, adopted))
			if ferr == nil {
				reserved = removeAdopted(reserved, adopted)
			}
		}
		_ = s.store.ReleaseLanceVersions(context.WithoutCancel(ctx), reserved)
		if err != nil {
			return Committed{}, err
		}
		s.dropStaged(ctx, wh, plan)
		v := adopted[0]
		return Committed{}, &fault.Error{Kind: fault.Conflict, Field: "version",
			Message: "version " + itoa(v.Version) + " was written to the table's _versions/ directly, not through floe; floe recorded it: load the latest version and commit on top of it"}
	}
	if err := s.store.FinalizeLanceVersions(ctx, reserved); err != nil {
		return Committed{}, err // the records stay reserved; settle finalizes them (their finals are written)
	}
	out := Committed{Versions: make([]Version, len(reserved)), wh: wh}
	for i, p := range plan {
		if p.copy {
			out.staging = append(out.staging, p.staging)
		}
		out.Versions[i] = fromRecord(reserved[i])
		out.Versions[i].Time = s.now().UTC()
	}
	return out, nil
}

// Committed is what Create committed.
type Committed struct {
	Versions []Version
	staging  []warehouse.Location
	wh       *warehouse.Warehouse
}

// Tidy removes the committed versions' staging files (best effort: an
// orphan staging file is harmless, no reader looks at it). Callers run it
// after answering, so the client does not wait for it.
func (c Committed) Tidy(ctx context.Context) {
	for _, loc := range c.staging {
		_ = c.wh.Delete(ctx, loc)
	}
}

// maxParallelReads bounds the manifest reads of one batch in flight.
const maxParallelReads = 8

// loadAll reads and checks every commit's manifest, a few at a time,
// answering the bytes by plan index (nil for in-place copies).
func (s *Service) loadAll(ctx context.Context, wh *warehouse.Warehouse, plan []staged) ([][]byte, error) {
	data := make([][]byte, len(plan))
	errs := make([]error, len(plan))
	sem := make(chan struct{}, maxParallelReads)
	var wg sync.WaitGroup
	for i := range plan {
		if plan[i].inPlace {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			data[i], errs[i] = s.load(ctx, wh, plan[i])
		})
	}
	wg.Wait()
	return data, errors.Join(errs...)
}

// reserve asks the catalog for every commit's number (with the history of
// tables it has no record of yet); reserved is the records as asked.
func (s *Service) reserve(ctx context.Context, plan []staged) ([]catalog.LanceVersion, error) {
	batch := make([]catalog.LanceReservation, len(plan))
	imported := map[string]bool{}
	for i, p := range plan {
		batch[i].Version = catalog.LanceVersion{
			TableID: p.c.Table.ID, Version: p.c.Version, ManifestPath: p.final.String(),
			KeyID: p.c.KeyID, Principal: p.c.Principal,
		}
		if imported[p.c.Table.ID] {
			continue
		}
		imported[p.c.Table.ID] = true
		im, err := s.importable(ctx, p.c.Table)
		if err != nil {
			return nil, err
		}
		if !p.copy { // the client finalized it itself: recorded below, not imported
			im = withoutVersion(im, p.c.Version)
		}
		batch[i].Imported = im
	}
	reserved := make([]catalog.LanceVersion, len(batch))
	for i := range batch {
		reserved[i] = batch[i].Version
	}
	return reserved, s.store.ReserveLanceVersions(ctx, batch)
}

// stage checks one commit's manifest path and names (no storage call).
func (s *Service) stage(wh *warehouse.Warehouse, c Commit) (staged, error) {
	tableLoc, err := wh.Parse(c.Table.Location)
	if err != nil {
		return staged{}, catalog.Invalid("location", "the table's location cannot be read: "+err.Error())
	}
	dir := tableLoc.MustJoin("_versions")
	loc, err := tableLoc.ParseObjectPath(c.Manifest)
	if err != nil {
		return staged{}, catalog.Invalid("manifest_path", err.Error())
	}
	name, ok := loc.Rel(dir)
	if !ok || name == "" || containsSlash(name) {
		return staged{}, catalog.Invalid("manifest_path", "manifest_path "+quote(c.Manifest)+" is not directly inside the table's _versions/ directory ("+dir.ObjectPath()+"/); write the manifest there")
	}
	version, v2, isStaged, ok := catalog.ParseStagedManifestName(name)
	if !ok {
		return staged{}, catalog.Invalid("manifest_path", "manifest_path "+quote(c.Manifest)+" is not named as Lance names manifests ({version}.manifest, its V2 form, or either with a -suffix while staged)")
	}
	if version != c.Version {
		return staged{}, catalog.Invalid("manifest_path", "manifest_path "+quote(c.Manifest)+" is named for version "+itoa(version)+", not "+itoa(c.Version))
	}
	switch c.Scheme {
	case "":
	case "V1", "V2":
		v2 = c.Scheme == "V2"
	default:
		return staged{}, catalog.Invalid("naming_scheme", "naming_scheme "+quote(c.Scheme)+" is not one Lance has; send V1 or V2")
	}
	if !isStaged && !wh.ConditionalWrites() {
		return staged{}, catalog.Invalid("manifest_path", "manifest_path "+quote(c.Manifest)+" is a final manifest name; this warehouse's store does not honour If-None-Match, "+
			"so a manifest written straight to its final name could replace another writer's: write it under a staging name ({version}.manifest-{uuid}, as LanceDB 0.39 does) and floe finalizes it")
	}
	p := staged{c: c, staging: loc, copy: isStaged}
	p.inPlace = isStaged && c.Size > 0 && c.Size <= maxManifestFile && c.ETag != "" && wh.CopiesInPlace()
	p.final = dir.MustJoin(catalog.ManifestName(c.Version, v2))
	if !isStaged {
		p.final = loc
	}
	return p, nil
}

// load reads a commit's manifest and checks it records the version.
func (s *Service) load(ctx context.Context, wh *warehouse.Warehouse, p staged) ([]byte, error) {
	data, err := readManifest(ctx, wh, p.staging)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, catalog.Invalid("manifest_path", "no manifest at "+quote(p.c.Manifest)+"; write the manifest first, then create the version")
	}
	if err != nil {
		return nil, err
	}
	m, err := lancemeta.Decode(data)
	if err != nil {
		return nil, catalog.Invalid("manifest_path", "the file at "+quote(p.c.Manifest)+" is not a Lance manifest: "+err.Error())
	}
	if m.Version != p.c.Version {
		return nil, catalog.Invalid("manifest_path", "the manifest at "+quote(p.c.Manifest)+" records version "+itoa(m.Version)+", not "+itoa(p.c.Version))
	}
	return data, nil
}

// readManifest reads a manifest file whole, refusing one past the bound.
func readManifest(ctx context.Context, wh *warehouse.Warehouse, loc warehouse.Location) ([]byte, error) {
	f, err := wh.Open(ctx, loc)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Size() > maxManifestFile {
		return nil, catalog.Invalid("manifest_path", "the manifest is "+itoa(uint64(f.Size()))+" bytes; floe accepts manifests up to 64 MiB (compact the table)")
	}
	data := make([]byte, f.Size())
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return data, nil
}

// importable is what _versions/ holds for a table the catalog has no
// record of yet (nil otherwise): written before the table was managed, it
// becomes the start of the record in the commit's transaction.
func (s *Service) importable(ctx context.Context, t catalog.Table) ([]catalog.LanceVersion, error) {
	if recorded, err := s.store.HasLanceVersions(ctx, t.ID); err != nil || recorded {
		return nil, err
	}
	listed, err := s.listStorage(ctx, t)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.LanceVersion, len(listed))
	for i, v := range listed {
		out[i] = catalog.LanceVersion{TableID: t.ID, Version: v.Version, ManifestPath: v.Manifest.String(), ManifestSize: v.Size, CreatedAt: v.Time, Finalized: true}
	}
	return out, nil
}

func withoutVersion(vs []catalog.LanceVersion, v uint64) []catalog.LanceVersion {
	out := vs[:0:0]
	for _, x := range vs {
		if x.Version != v {
			out = append(out, x)
		}
	}
	return out
}

// settle looks at a table's versions reserved longer than staleAfter ago:
// one whose final manifest is there is finalized (its writer died after
// writing it), the others are freed. Errors leave them for the next try.
func (s *Service) settle(ctx context.Context, t catalog.Table) {
	stale, err := s.store.StaleLanceVersions(ctx, t.ID, s.now().Add(-staleAfter))
	if err != nil || len(stale) == 0 {
		return
	}
	wh := s.store.Storage()
	var finish, free []catalog.LanceVersion
	for _, v := range stale {
		loc, err := wh.Parse(v.ManifestPath)
		if err != nil {
			free = append(free, v)
			continue
		}
		f, err := wh.Open(ctx, loc)
		switch {
		case err == nil:
			v.ManifestSize = f.Size()
			f.Close()
			finish = append(finish, v)
		case errors.Is(err, fs.ErrNotExist):
			free = append(free, v)
		}
	}
	if len(finish) > 0 {
		_ = s.store.FinalizeLanceVersions(ctx, finish)
	}
	if len(free) > 0 {
		_ = s.store.ReleaseLanceVersions(ctx, free)
	}
}

// dropStaged removes the staging manifests of a refused commit: floe
// refused it for good (the number is taken), so the client builds a new
// manifest for its next attempt and nobody reads these. Lance clients keep
// them "until the commit outcome is resolved", which for a refusal is never.
func (s *Service) dropStaged(ctx context.Context, wh *warehouse.Warehouse, plan []staged) {
	for _, p := range plan {
		if p.copy {
			_ = wh.Delete(context.WithoutCancel(ctx), p.staging)
		}
	}
}

func containsSlash(s string) bool { return bytes.IndexByte([]byte(s), '/') >= 0 }
