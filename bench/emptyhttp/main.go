// Command emptyhttp is the baseline of bench's cross-process benchmarks: a
// Go HTTP server whose one handler reads the body and answers {} — the
// cost of Go's HTTP stack on this machine and nothing else. It serves on
// 127.0.0.1 (port 0 unless given) with the timeouts floe serve uses, and
// prints its address on the first line of stdout.
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

func main() {
	addr := "127.0.0.1:0"
	if len(os.Args) > 1 {
		addr = os.Args[1]
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "emptyhttp:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{}`))
		}),
		ReadHeaderTimeout: 10 * time.Second, // as floe serve's listeners
		IdleTimeout:       2 * time.Minute,
	}
	if err := srv.Serve(ln); err != nil {
		fmt.Fprintln(os.Stderr, "emptyhttp:", err)
		os.Exit(1)
	}
}
