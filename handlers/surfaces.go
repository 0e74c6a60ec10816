package handlers

import (
	"net"
	"net/http"

	"github.com/floe/floe/catalog"
)

// clientHost turns a bound address into one a client can dial: a wildcard
// bind (0.0.0.0, ::) is reached through the host name the browser used.
func clientHost(bound string, r *http.Request) string {
	host, port, err := net.SplitHostPort(bound)
	if err != nil {
		return bound
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		if h, _, err := net.SplitHostPort(r.Host); err == nil {
			host = h
		} else if r.Host != "" {
			host = r.Host
		} else {
			host = "127.0.0.1"
		}
	}
	return net.JoinHostPort(host, port)
}

// lanceURL and icebergURL are the catalog base URLs clients use; "" when off.
func (h *Handlers) lanceURL(r *http.Request) string {
	if h.surfaces.Lance == "" {
		return ""
	}
	return "http://" + clientHost(h.surfaces.Lance, r)
}

func (h *Handlers) icebergURL(r *http.Request) string {
	if h.surfaces.Iceberg == "" {
		return ""
	}
	return "http://" + clientHost(h.surfaces.Iceberg, r)
}

// endpointFor is the address shown for a bucket of a format: the Lance REST
// root (identifiers start with the bucket) or the bucket's Iceberg REST prefix.
func (h *Handlers) endpointFor(r *http.Request, f catalog.Format, bucket string) string {
	lance, ice := h.lanceURL(r), h.icebergURL(r)
	if ice != "" {
		ice += "/v1/" + bucket
	}
	switch f {
	case catalog.FormatLance:
		return lance
	case catalog.FormatIceberg:
		return ice
	}
	switch { // unset buckets accept both formats
	case lance != "" && ice != "":
		return lance + " · " + ice
	case lance != "":
		return lance
	}
	return ice
}

// formatServed reports whether the catalog of format f is running.
func (h *Handlers) formatServed(f catalog.Format) bool {
	switch f {
	case catalog.FormatLance:
		return h.surfaces.Lance != ""
	case catalog.FormatIceberg:
		return h.surfaces.Iceberg != ""
	}
	return false
}

// formatLabel is a format as a sentence names it.
func formatLabel(f catalog.Format) string {
	switch f {
	case catalog.FormatLance:
		return "Lance"
	case catalog.FormatIceberg:
		return "Iceberg"
	}
	return "unset"
}
