// Package static embeds the console's CSS, JavaScript and vendored htmx, and
// serves them under content-hashed URLs so browsers may cache them forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

// The vendored files are copied from node_modules by `make vendor`
// (htmx.org 2.0.11 → vendor/htmx.min.js, htmx-ext-ws 2.0.4 → vendor/ws.min.js)
// and committed, so building never needs npm.

// FS holds the embedded assets, rooted so that "css/app.css" is a valid name.
//
//go:embed css js vendor favicon.svg
var FS embed.FS

// Prefix is the URL path under which Handler serves FS.
const Prefix = "/static/"

// hashes maps an asset name to the first hex characters of its sha256; it is
// computed once because the embedded files never change in a running binary.
var hashes = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	_ = fs.WalkDir(FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := FS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[p] = hex.EncodeToString(sum[:])[:hashLen]
		return nil
	})
	return m
})

// hashLen is long enough that two versions of one file never collide in practice.
const hashLen = 12

// URL returns the versioned URL of an embedded asset, e.g.
// URL("vendor/htmx.min.js") = "/static/vendor/htmx.min.js?v=3f9a…".
// An unknown name yields the bare URL so a typo shows up as a 404, not a panic.
func URL(name string) string {
	if h, ok := hashes()[name]; ok {
		return Prefix + name + "?v=" + h
	}
	return Prefix + name
}

// Handler serves the assets. Requests carrying the current content hash are
// cached as immutable; others revalidate, so a stale link never pins old code.
func Handler() http.Handler {
	files := http.FileServerFS(FS)
	return http.StripPrefix(strings.TrimSuffix(Prefix, "/"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r) // no directory listings
			return
		}
		if v := r.URL.Query().Get("v"); v != "" && v == hashes()[name] {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(w, r)
	}))
}

// faviconMaxAge lets a browser keep /favicon.ico a day: its URL carries no
// content hash, so it cannot be cached forever.
const faviconMaxAge = "public, max-age=86400"

// Favicon serves the console's icon at /favicon.ico, where browsers and
// bookmark tools look when a page names none (a plain-text probe, an
// image): the same SVG the layout links, as image/svg+xml.
func Favicon() http.Handler {
	icon, err := FS.ReadFile("favicon.svg")
	if err != nil {
		panic("static: favicon.svg is not embedded: " + err.Error()) // the go:embed line above names it
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml")
		h.Set("Cache-Control", faviconMaxAge)
		h.Set("Content-Length", strconv.Itoa(len(icon)))
		if r.Method != http.MethodHead {
			_, _ = w.Write(icon)
		}
	})
}
