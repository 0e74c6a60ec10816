package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/fault"
	"github.com/floe/floe/lancecommit"
	"github.com/floe/floe/preview"
	"github.com/floe/floe/views"
)

// maxPickerVersions bounds the versions Browse Data's picker lists (newest
// first); an older one is still read by its ?version= link.
const maxPickerVersions = 200

// maxPickerTags bounds the tags the picker lists (one page of them).
const maxPickerTags = 200

// lanceAt is the version a Lance Browse Data page reads: 0 for the latest,
// with the tag that named it ("" when picked by number).
type lanceAt struct {
	Version uint64
	Tag     string
}

// lanceReadAt reads ?version=N, ?version=tag:NAME (the picker's tag
// options) or ?tag=NAME. A tag is resolved to its version here, so the
// worker reads a number; an unknown tag or version is fault.NotFound.
func (h *Handlers) lanceReadAt(ctx context.Context, t catalog.Table, q url.Values) (lanceAt, error) {
	v, tag := strings.TrimSpace(q.Get("version")), strings.TrimSpace(q.Get("tag"))
	if name, ok := strings.CutPrefix(v, "tag:"); ok {
		v, tag = "", name
	}
	switch {
	case v != "" && v != "latest" && tag != "":
		return lanceAt{}, fault.New(fault.Invalid, "version", "Pick a version or a tag, not both.")
	case tag != "":
		tg, err := h.commits.Tag(ctx, t, tag)
		if err != nil {
			if errors.Is(err, fault.NotFound) || errors.Is(err, fault.Invalid) {
				return lanceAt{}, fault.New(fault.NotFound, "tag", "This table has no tag %q. Pick one from the list.", tag)
			}
			return lanceAt{}, err
		}
		return lanceAt{Version: tg.Version, Tag: tag}, nil
	case v == "" || v == "latest":
		return lanceAt{}, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return lanceAt{}, fault.New(fault.Invalid, "version", "Version %q is not a version number; pick one from the list.", v)
	}
	managed, err := h.commits.Managed(ctx, t)
	if err != nil {
		return lanceAt{}, err
	}
	if _, found, err := h.commits.Describe(ctx, t, managed, n); err != nil {
		return lanceAt{}, err
	} else if !found {
		return lanceAt{}, fault.New(fault.NotFound, "version", "This table has no version %d. Pick one from the list.", n)
	}
	return lanceAt{Version: n}, nil
}

// lancePicker lists the table's versions (newest first, with the observed
// time and rows where the worker's history has them) and tags for the
// version picker, marking the one read.
func (h *Handlers) lancePicker(ctx context.Context, t catalog.Table, at lanceAt) []views.VersionOption {
	opts := []views.VersionOption{{Value: "latest", Label: "Latest version", Selected: at.Version == 0}}
	history := map[int64]string{}
	if h.observe != nil {
		if st, ok := h.observe.Stats(t.ID, catalog.FormatLance); ok {
			for _, e := range st.History {
				history[e.Version] = fmt.Sprintf(" · %s · %s rows", e.Timestamp.UTC().Format("2006-01-02 15:04 UTC"), groupDigits(e.Rows))
			}
		}
	}
	if managed, err := h.commits.Managed(ctx, t); err == nil {
		vs, _, err := h.commits.List(ctx, t, managed, lancecommit.Query{Descending: true, Limit: maxPickerVersions})
		if err == nil {
			for _, v := range vs {
				label := "Version " + strconv.FormatUint(v.Version, 10) + history[int64(v.Version)]
				if _, ok := history[int64(v.Version)]; !ok && !v.Time.IsZero() {
					label += " · " + v.Time.UTC().Format("2006-01-02 15:04 UTC")
				}
				opts = append(opts, views.VersionOption{Value: strconv.FormatUint(v.Version, 10), Label: label, Group: "Versions",
					Selected: at.Tag == "" && at.Version == v.Version})
			}
		}
	}
	if tags, _, err := h.commits.Tags(ctx, t, "", maxPickerTags); err == nil {
		for _, tg := range tags {
			opts = append(opts, views.VersionOption{Value: "tag:" + tg.Name, Label: tg.Name + " → version " + strconv.FormatUint(tg.Version, 10),
				Group: "Tags", Selected: at.Tag == tg.Name})
		}
	}
	return opts
}

// rowPager links the pages before and after a Browse Data page: the same
// query with another offset (a GET link, so every page survives a reload).
func rowPager(action string, q url.Values, offset int64, limit, shown int, more bool) views.RowPager {
	p := views.RowPager{From: offset + 1, To: offset + int64(shown)}
	link := func(off int64) string {
		vals := url.Values{}
		for k, v := range q {
			if k != "offset" {
				vals[k] = v
			}
		}
		if off > 0 {
			vals.Set("offset", strconv.FormatInt(off, 10))
		}
		if len(vals) == 0 {
			return action
		}
		return action + "?" + vals.Encode()
	}
	if offset > 0 {
		p.PrevHref = link(max(offset-int64(limit), 0))
	}
	if more && offset+int64(limit) <= preview.MaxOffset {
		p.NextHref = link(offset + int64(limit))
	}
	return p
}

// parseOffset reads ?offset=: a non-negative row count up to MaxOffset.
func parseOffset(q url.Values) (int64, error) {
	s := strings.TrimSpace(q.Get("offset"))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > preview.MaxOffset {
		return 0, fault.New(fault.Invalid, "offset", "offset is a row count from 0 to %d; use the page links.", preview.MaxOffset)
	}
	return n, nil
}

// readAtStatus is the status of a refused ?version=, ?tag= or ?offset=:
// 404 for a version or tag the table lacks, 422 for one that is not a
// version; 0 when the error is not the link's (the page fails instead).
func readAtStatus(err error) int {
	switch {
	case errors.Is(err, fault.NotFound):
		return 404
	case errors.Is(err, fault.Invalid):
		return 422
	}
	return 0
}

func tagNote(tag string) string {
	if tag == "" {
		return ""
	}
	return " (tag " + tag + ")"
}
