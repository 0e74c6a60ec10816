package plugin

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/plugin/pluginpb"
	"github.com/floe/floe/plugin/plugintest"
)

type testPKI struct {
	caPEM      []byte
	ca         *x509.Certificate
	caKey      *ecdsa.PrivateKey
	dir        string
	serverCert string
	serverKey  string
	caFile     string
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "floe test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(der)
	k := &testPKI{ca: ca, caKey: key, dir: t.TempDir(), caPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
	k.caFile = filepath.Join(k.dir, "ca.pem")
	os.WriteFile(k.caFile, k.caPEM, 0o600)
	certPEM, keyPEM := k.issue(t, "127.0.0.1", x509.ExtKeyUsageServerAuth)
	k.serverCert, k.serverKey = filepath.Join(k.dir, "server.pem"), filepath.Join(k.dir, "server.key")
	os.WriteFile(k.serverCert, certPEM, 0o600)
	os.WriteFile(k.serverKey, keyPEM, 0o600)
	return k
}

func (k *testPKI) issue(t *testing.T, cn string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, k.ca, &key.PublicKey, k.caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

func TestTLSConfigNeedsAllThree(t *testing.T) {
	if _, err := ServerOptions(&TLSConfig{CertFile: "a.pem"}); err == nil {
		t.Fatal("partial TLS config accepted")
	}
	if _, err := ServerOptions(nil); err != nil {
		t.Fatal(err)
	}
}

// TestMutualTLS serves on 127.0.0.1 with client certificates required: a
// worker with a CA-signed certificate connects; one without is refused.
func TestMutualTLS(t *testing.T) {
	k := newTestPKI(t)
	h := newHarness(t, Options{DisableScheduler: true})
	opts, err := ServerOptions(&TLSConfig{CertFile: k.serverCert, KeyFile: k.serverKey, CAFile: k.caFile})
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A second plugin on the same store serves TLS (the harness one serves bufconn).
	p, err := New(Config{DB: h.db, Store: h.store, Logger: quietLogger(), Options: Options{DisableScheduler: true}})
	if err != nil {
		t.Fatal(err)
	}
	stopRun := start(t, p)
	t.Cleanup(func() { _ = stopRun() })
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, lis, opts...) }()
	t.Cleanup(func() { cancel(); <-served })

	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(k.caPEM)
	dial := func(withCert bool) *grpc.ClientConn {
		cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
		if withCert {
			cp, kp := k.issue(t, "worker", x509.ExtKeyUsageClientAuth)
			pair, err := tls.X509KeyPair(cp, kp)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(credentials.NewTLS(cfg)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	good, err := plugintest.Connect(context.Background(), dial(true), plugintest.Config{Token: h.token, WorkerID: "tls-worker"})
	if err != nil {
		t.Fatal(err)
	}
	defer good.Close()
	if err := good.WaitFor(ctxT(t), func(r []*pluginpb.ConsoleMessage) bool { return len(r) > 0 && r[0].GetWelcome() != nil }); err != nil {
		t.Fatalf("worker with a client certificate got no Welcome: %v", err)
	}
	bad, err := plugintest.Connect(context.Background(), dial(false), plugintest.Config{Token: h.token, WorkerID: "no-cert"})
	if err == nil {
		defer bad.Close()
		<-bad.Done()
		err = bad.Err()
	}
	if code := status.Code(err); code != codes.Unavailable {
		t.Fatalf("worker without a certificate: %v (code %v), want Unavailable", err, code)
	}
}
