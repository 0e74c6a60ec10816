package plugin

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
)

// TLSConfig names the PEM files for mTLS on the plugin channel. Give all
// three or none: with them, workers must present a certificate signed by CA.
type TLSConfig struct {
	CertFile string
	KeyFile  string
	CAFile   string
}

// keepalive timings: workers are expected to ping no more often than
// keepaliveMinTime; the server pings idle connections every keepaliveTime
// and drops one that does not answer within keepaliveTimeout.
const (
	keepaliveTime    = 30 * time.Second
	keepaliveTimeout = 10 * time.Second
	keepaliveMinTime = 10 * time.Second
)

// Connection timings against clients that connect and never work (#23
// item 2b):
//
//   - handshakeTimeout: the TLS and HTTP/2 handshakes of a new connection
//     (grpc.ConnectionTimeout; gRPC's own default is 2 minutes).
//   - maxConnectionIdle: a connection with no RPC at all for this long is
//     sent GOAWAY and closed. A worker's one stream is always open, so
//     this only ends connections nobody uses. Behind floe serve's
//     listener a connection without an authenticated worker stream is
//     closed far sooner (see Serve); this is the bound without it.
const (
	handshakeTimeout  = 10 * time.Second
	maxConnectionIdle = 5 * time.Minute
)

// maxRecvMsgBytes caps one worker message; a preview chunk is the largest
// thing a worker sends and is itself capped well below this.
const maxRecvMsgBytes = 16 << 20

// ServerOptions are the grpc.ServerOptions the plugin channel wants
// (keepalive, message size, credentials). tlsCfg may be nil.
func ServerOptions(tlsCfg *TLSConfig) ([]grpc.ServerOption, error) {
	opts := []grpc.ServerOption{
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: keepaliveTime, Timeout: keepaliveTimeout, MaxConnectionIdle: maxConnectionIdle}),
		grpc.ConnectionTimeout(handshakeTimeout),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: keepaliveMinTime, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(maxRecvMsgBytes),
	}
	if tlsCfg == nil {
		return opts, nil
	}
	creds, err := tlsCfg.credentials()
	if err != nil {
		return nil, err
	}
	return append(opts, grpc.Creds(creds)), nil
}

func (c *TLSConfig) credentials() (credentials.TransportCredentials, error) {
	if c.CertFile == "" || c.KeyFile == "" || c.CAFile == "" {
		return nil, errors.New("plugin TLS needs all three of --grpc-tls-cert, --grpc-tls-key and --grpc-tls-ca")
	}
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("plugin TLS: load certificate and key: %w", err)
	}
	caPEM, err := os.ReadFile(c.CAFile)
	if err != nil {
		return nil, fmt.Errorf("plugin TLS: read CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, fmt.Errorf("plugin TLS: no certificates in %s", c.CAFile)
	}
	return credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS12,
	}), nil
}

// ListenAndServe serves the plugin channel on addr until ctx ends or
// Shutdown is called; tlsCfg nil means plaintext (loopback by default).
// When ctx ends it calls Shutdown with a 10s grace and returns once that
// has finished.
func (p *Plugin) ListenAndServe(ctx context.Context, addr string, tlsCfg *TLSConfig) error {
	opts, err := ServerOptions(tlsCfg)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("plugin channel: listen on %s: %w", addr, err)
	}
	return p.Serve(ctx, lis, opts...)
}

// connHolder is what a listener may offer for the rule that a connection
// without an authenticated worker stream does not stay (connlimit.Listener
// in floe serve: such a connection is closed after a deadline, and only so
// many may be open): Connect holds its connection for as long as an
// authenticated stream runs on it.
type connHolder interface {
	Hold(remote net.Addr) (release func())
}

// Serve is ListenAndServe on a listener the caller made (tests use bufconn).
// A listener that is a connHolder is told which connections carry an
// authenticated worker stream.
func (p *Plugin) Serve(ctx context.Context, lis net.Listener, opts ...grpc.ServerOption) error {
	if h, ok := lis.(connHolder); ok {
		p.holder.Store(&h)
	}
	srv := grpc.NewServer(opts...)
	p.Register(srv)
	// A Shutdown that ran before Register (Run's context ended first) did
	// not see srv: serve nothing. Shutdown sets closed before it reads
	// srv, so one of the two sees the other.
	if p.closed.Load() {
		srv.Stop()
		lis.Close()
		return nil
	}
	shutDown := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(shutDown)
		sctx, cancel := context.WithTimeout(context.Background(), serveShutdownGrace)
		defer cancel()
		_ = p.Shutdown(sctx)
	})
	err := srv.Serve(lis)
	if !stop() {
		<-shutDown // ctx ended: return only once the plugin has stopped
	}
	if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
		return err
	}
	return nil
}

// serveShutdownGrace is how long Serve lets open streams finish after its
// context ends before forcing them closed.
const serveShutdownGrace = 10 * time.Second
