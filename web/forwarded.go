package web

import (
	"bufio"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// forwarded decides, once per request, whether the browser reached the
// console over HTTPS, and what the client's address is:
//
//   - a request that arrived over TLS is HTTPS;
//   - a request from a trusted proxy (Config.TrustedProxies) is HTTPS when the
//     proxy says so in X-Forwarded-Proto, and its client is the last address
//     the proxy appended to X-Forwarded-For;
//   - Config.SecureCookies forces HTTPS for every request (a proxy we cannot
//     name by address).
//
// Headers from anyone else are ignored: a client cannot make itself look
// like another address to dodge the sign-in throttle. On HTTPS every cookie
// the console sets is marked Secure.
func (s *Server) forwarded(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		secure := s.secureCookies || r.TLS != nil
		if s.trustedProxy(r.RemoteAddr) {
			if proto := lastListItem(r.Header.Get("X-Forwarded-Proto")); strings.EqualFold(proto, "https") {
				secure = true
			}
			if ip, err := netip.ParseAddr(lastListItem(strings.Join(r.Header.Values("X-Forwarded-For"), ","))); err == nil {
				r2 := *r
				r2.RemoteAddr = net.JoinHostPort(ip.Unmap().String(), "0")
				r = &r2
			}
		}
		if !secure {
			next.ServeHTTP(w, r)
			return
		}
		sw := &secureCookieWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		sw.markSecure() // a handler that wrote nothing: net/http sends the headers after we return
	})
}

// trustedProxy reports whether addr (host:port) is one of the configured proxies.
func (s *Server) trustedProxy(addr string) bool {
	if len(s.proxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return false
	}
	ip := ap.Addr().Unmap()
	for _, p := range s.proxies {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// lastListItem is the last comma-separated item of a header value: the one
// the nearest proxy wrote (earlier items come from whoever sent the request).
func lastListItem(v string) string {
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	return strings.TrimSpace(v)
}

// secureCookieWriter adds the Secure attribute to every Set-Cookie header
// just before the headers go out. The session library's Secure flag is one
// setting for the process; this makes it per request.
type secureCookieWriter struct {
	http.ResponseWriter
	marked bool
}

func (w *secureCookieWriter) markSecure() {
	if w.marked {
		return
	}
	w.marked = true
	h := w.ResponseWriter.Header()
	cookies := h.Values("Set-Cookie")
	for i, c := range cookies {
		if !hasSecureAttr(c) {
			cookies[i] = c + "; Secure"
		}
	}
}

func hasSecureAttr(cookie string) bool {
	for _, part := range strings.Split(cookie, ";")[1:] {
		if strings.EqualFold(strings.TrimSpace(part), "Secure") {
			return true
		}
	}
	return false
}

func (w *secureCookieWriter) WriteHeader(code int) {
	w.markSecure()
	w.ResponseWriter.WriteHeader(code)
}

func (w *secureCookieWriter) Write(b []byte) (int, error) {
	w.markSecure()
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection underneath.
func (w *secureCookieWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush and Hijack keep streaming responses and the /live websocket working
// for code that type-asserts instead of using http.ResponseController.
func (w *secureCookieWriter) Flush() {
	w.markSecure()
	_ = http.NewResponseController(w.ResponseWriter).Flush()
}

func (w *secureCookieWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// ParseTrustedProxies reads a comma-separated list of IP addresses and CIDR
// prefixes (the --trusted-proxy flag).
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for item := range strings.SplitSeq(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if strings.Contains(item, "/") {
			p, err := netip.ParsePrefix(item)
			if err != nil {
				return nil, err
			}
			out = append(out, p.Masked())
			continue
		}
		ip, err := netip.ParseAddr(item)
		if err != nil {
			return nil, err
		}
		ip = ip.Unmap()
		out = append(out, netip.PrefixFrom(ip, ip.BitLen()))
	}
	return out, nil
}
