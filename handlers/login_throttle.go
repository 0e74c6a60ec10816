package handlers

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/floe/floe/throttle"
)

// Sign-in throttling. An account gets a few typing mistakes, then each wrong
// password doubles a short lock; a client address gets more room because many
// people may share one (an office NAT). The locks top out at minutes, not
// hours, so an attacker who guesses an account's name can slow its owner down
// but never shut them out for long.
var (
	accountPolicy = throttle.Policy{Free: 5, Base: 2 * time.Second, Max: 5 * time.Minute, Forget: time.Hour}
	clientPolicy  = throttle.Policy{Free: 20, Base: 2 * time.Second, Max: 15 * time.Minute, Forget: time.Hour}
)

// signinGuard throttles sign-in per account and per client address.
type signinGuard struct {
	account, client *throttle.Limiter
}

func newSigninGuard(now func() time.Time) *signinGuard {
	return &signinGuard{account: throttle.New(accountPolicy, now), client: throttle.New(clientPolicy, now)}
}

// wait is how long this account or this client must wait before another try.
func (g *signinGuard) wait(account, client string) time.Duration {
	return max(g.account.Wait(strings.ToLower(account)), g.client.Wait(client))
}

// fail records a wrong password and returns the lock now in force.
func (g *signinGuard) fail(account, client string) time.Duration {
	a := time.Duration(0)
	if account != "" {
		a = g.account.Fail(strings.ToLower(account))
	}
	return max(a, g.client.Fail(client))
}

func (g *signinGuard) succeed(account, client string) {
	g.account.Succeed(strings.ToLower(account))
	g.client.Succeed(client)
}

// clientAddr is the request's client address without its port. web rewrites
// RemoteAddr from X-Forwarded-For only for a trusted proxy.
func clientAddr(r *http.Request) string {
	if host, _, err := net.SplitHostPort(r.RemoteAddr); err == nil {
		return host
	}
	return r.RemoteAddr
}

// retrySentence says when to try again, rounded up to whole seconds.
func retrySentence(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	unit := "seconds"
	if secs == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Too many failed sign-ins. Try again in %d %s.", secs, unit)
}

// retryAfter is the Retry-After header value for d.
func retryAfter(d time.Duration) string {
	return fmt.Sprint(int((d + time.Second - 1) / time.Second))
}
