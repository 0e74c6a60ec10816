package plugin

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/floe/floe/catalog"
)

// authenticate checks the worker token in the stream's metadata:
// "authorization: Bearer <token>" or "x-worker-token: <token>".
func (p *Plugin) authenticate(ctx context.Context) (catalog.WorkerToken, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	secret := ""
	for _, v := range md.Get("authorization") {
		if after, ok := strings.CutPrefix(v, "Bearer "); ok {
			secret = strings.TrimSpace(after)
		} else if after, ok := strings.CutPrefix(v, "bearer "); ok {
			secret = strings.TrimSpace(after)
		}
	}
	if secret == "" {
		if v := md.Get("x-worker-token"); len(v) > 0 {
			secret = strings.TrimSpace(v[0])
		}
	}
	if secret == "" {
		return catalog.WorkerToken{}, status.Error(codes.Unauthenticated,
			"no worker token: send it as 'authorization: Bearer <token>' or 'x-worker-token'; create one with `floe worker-token create`")
	}
	tok, err := p.store.VerifyWorkerToken(ctx, secret)
	if err != nil {
		return catalog.WorkerToken{}, status.Error(codes.Unauthenticated,
			"worker token refused: it is unknown or revoked; create a new one with `floe worker-token create`")
	}
	return tok, nil
}
