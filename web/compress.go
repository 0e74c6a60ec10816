package web

import (
	"net/http"

	"github.com/go-chi/chi/v5/middleware"
)

// gzipLevel trades a little ratio for speed: on console pages level 5
// gets within a few percent of level 9's size at about half the CPU.
const gzipLevel = 5

// compressHTML gzips HTML pages and htmx fragments for clients that accept
// it (Vary: Accept-Encoding is set). Nothing else is touched: static files
// are CSS, JS and SVG served as they are, the /live websocket is hijacked
// before any body is written, and a response that already carries a
// Content-Encoding passes through.
func compressHTML() func(http.Handler) http.Handler {
	return middleware.Compress(gzipLevel, "text/html")
}
