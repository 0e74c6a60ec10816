package web

import (
	"bufio"
	"compress/gzip"
	"net"
	"net/http"
	"strings"
	"sync"
)

// gzipLevel trades a little ratio for speed: on console pages level 5
// gets within a few percent of level 9's size at about half the CPU.
const gzipLevel = 5

// gzipWriters are reused across responses: a gzip.Writer holds ~256 KiB
// of compressor state, which is the cost worth not paying per page.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(nil, gzipLevel)
	return zw
}}

// compressHTML gzips HTML pages and htmx fragments for clients that accept
// it (Vary: Accept-Encoding on every HTML answer). Nothing else is touched:
// static files are CSS, JS and SVG served as they are, the /live websocket
// is hijacked before any body is written, and a response that already
// carries a Content-Encoding passes through. It sits outside the edge, so
// the edge's own answers (a body over the cap, a panic's page) are
// compressed like any page.
func compressHTML(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &gzipResponse{ResponseWriter: w, accepts: acceptsGzip(r.Header.Values("Accept-Encoding")), head: r.Method == http.MethodHead}
		defer cw.close()
		next.ServeHTTP(cw, r)
	})
}

// acceptsGzip reads Accept-Encoding: gzip with a q-value above 0, or * when
// gzip itself is not named.
func acceptsGzip(values []string) bool {
	star := false
	for _, v := range values {
		for item := range strings.SplitSeq(v, ",") {
			name, params, _ := strings.Cut(strings.TrimSpace(item), ";")
			name = strings.ToLower(strings.TrimSpace(name))
			if name != "gzip" && name != "*" {
				continue
			}
			q, hasQ := strings.CutPrefix(strings.ReplaceAll(params, " ", ""), "q=")
			ok := !hasQ || strings.Trim(q, "0.") != "" // q=0, q=0.0, q=0.000: refused
			if name == "gzip" {
				return ok
			}
			star = star || ok
		}
	}
	return star
}

// gzipResponse decides at the status line whether the body is compressed:
// an HTML answer with a body, no encoding of its own, to a client that
// takes gzip.
type gzipResponse struct {
	http.ResponseWriter
	accepts, head bool
	decided       bool
	zw            *gzip.Writer // non-nil once compressing
}

func (w *gzipResponse) decide(status int) {
	if w.decided {
		return
	}
	w.decided = true
	h := w.ResponseWriter.Header()
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") || h.Get("Content-Encoding") != "" {
		return
	}
	h.Add("Vary", "Accept-Encoding")
	if !w.accepts || w.head || status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		return
	}
	h.Del("Content-Length") // the handler's figure is the uncompressed size
	h.Set("Content-Encoding", "gzip")
	w.zw = gzipWriters.Get().(*gzip.Writer)
	w.zw.Reset(w.ResponseWriter)
}

func (w *gzipResponse) WriteHeader(code int) {
	if code >= 200 {
		w.decide(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *gzipResponse) Write(b []byte) (int, error) {
	if !w.decided {
		if w.ResponseWriter.Header().Get("Content-Type") == "" {
			w.ResponseWriter.Header().Set("Content-Type", http.DetectContentType(b)) // what net/http would send
		}
		w.WriteHeader(http.StatusOK)
	}
	if w.zw != nil {
		return w.zw.Write(b)
	}
	return w.ResponseWriter.Write(b)
}

// close ends the gzip stream and returns the compressor to the pool.
func (w *gzipResponse) close() {
	if w.zw == nil {
		return
	}
	_ = w.zw.Close()
	w.zw.Reset(nil)
	gzipWriters.Put(w.zw)
	w.zw = nil
}

// Flush sends what is compressed so far (a streamed page).
func (w *gzipResponse) Flush() {
	w.decide(http.StatusOK) // flushing sends the status line
	if w.zw != nil {
		_ = w.zw.Flush()
	}
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

// Hijack hands the connection to the /live websocket, which never wrote a
// body through this writer.
func (w *gzipResponse) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// Unwrap lets http.ResponseController reach the connection underneath.
func (w *gzipResponse) Unwrap() http.ResponseWriter { return w.ResponseWriter }
