package main

import (
	"context"
	"log/slog"
	"net"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/floe/floe/authz"
	"github.com/floe/floe/identity"
	"github.com/floe/floe/oidc"
)

// oidcFlags configure the organization's identity provider: console
// sign-in (--oidc-client-id) and its access tokens on the catalog surfaces
// (--oidc-audience).
type oidcFlags struct {
	Issuer, ClientID, RedirectURL, Audience string
	GroupsClaim, Scopes, Name               string
	AdminGroup, ReadonlyGroup               string
}

// oidcSecretEnv holds the console client's secret: a flag would show it
// in ps and shell history.
const oidcSecretEnv = "FLOE_OIDC_CLIENT_SECRET"

func (o *oidcFlags) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Issuer, "oidc-issuer", "", "OpenID provider's issuer URL: console sign-in and/or its access tokens on the catalogs (with --oidc-client-id, --oidc-audience)")
	f.StringVar(&o.ClientID, "oidc-client-id", "", "floe's client at the OpenID provider: turns on \"Sign in with …\" on the console (secret in $"+oidcSecretEnv+"; none for a public client)")
	f.StringVar(&o.RedirectURL, "oidc-redirect-url", "", "the console's callback as registered at the provider (default http://CONSOLE/login/oidc/callback; set it behind a proxy)")
	f.StringVar(&o.Audience, "oidc-audience", "", "audience the provider's access tokens must carry to be accepted on the Lance REST, task API and Iceberg REST (\"\" = not accepted)")
	f.StringVar(&o.GroupsClaim, "oidc-groups-claim", "groups", "claim listing a user's or client's groups (a dotted path descends into objects)")
	f.StringVar(&o.Scopes, "oidc-scopes", "openid,profile,email", "comma-separated scopes the console asks for at sign-in")
	f.StringVar(&o.Name, "oidc-name", "", "the provider's name on the sign-in button (default its host)")
	f.StringVar(&o.AdminGroup, "oidc-admin-group", "", "provider group whose members are console admins and whose tokens read and write every bucket (until grants decide)")
	f.StringVar(&o.ReadonlyGroup, "oidc-readonly-group", "", "provider group whose members read only (until grants decide); members of neither group get no rights")
}

// check refuses settings that cannot work, before anything is opened;
// console is the --http address.
func (o oidcFlags) check(console string) error {
	other := o.ClientID != "" || o.RedirectURL != "" || o.Audience != "" || o.Name != "" || o.AdminGroup != "" || o.ReadonlyGroup != ""
	switch {
	case o.Issuer == "" && other:
		return usageError{"--oidc-* flags need --oidc-issuer: the URL of the OpenID provider"}
	case o.Issuer != "" && o.ClientID == "" && o.Audience == "":
		return usageError{"--oidc-issuer needs --oidc-client-id (console sign-in), --oidc-audience (its tokens on the catalogs), or both"}
	case o.RedirectURL != "" && o.ClientID == "":
		return usageError{"--oidc-redirect-url is the console sign-in's callback: give --oidc-client-id too"}
	case o.ClientID != "" && o.RedirectURL == "" && !reachableHost(console):
		return usageError{"the console listens on " + console + ", which is not an address browsers reach it at: give --oidc-redirect-url (https://HOST/login/oidc/callback, as registered at the provider)"}
	}
	return nil
}

// reachableHost reports whether a listen address names the host browsers
// can use as is: not every interface (0.0.0.0, ::, or no host at all).
func reachableHost(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || host == "" {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsUnspecified()
}

// provider builds the identity provider for a console bound at console;
// nil when --oidc-issuer is not given. It does not call the provider:
// discovery happens on first use, so a provider that is down does not
// stop floe (local users can still sign in).
func (o oidcFlags) provider(console string, az *authz.Authorizer, log *slog.Logger) (*oidc.Provider, error) {
	if o.Issuer == "" {
		return nil, nil
	}
	redirect := o.RedirectURL
	if redirect == "" {
		redirect = "http://" + console + "/login/oidc/callback" // a loopback or named address (check)
	}
	var scopes []string
	for _, s := range strings.Split(o.Scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	p, err := oidc.New(oidc.Config{Issuer: o.Issuer, ClientID: o.ClientID, ClientSecret: os.Getenv(oidcSecretEnv), RedirectURL: redirect,
		Audience: o.Audience, GroupsClaim: o.GroupsClaim, Scopes: scopes, Label: o.Name,
		Rights: oidc.Rights{AdminGroup: o.AdminGroup, ReadonlyGroup: o.ReadonlyGroup}, Granted: granted(az), Logger: log})
	if err != nil {
		return nil, usageError{err.Error()}
	}
	if o.AdminGroup == "" && o.ReadonlyGroup == "" {
		log.Warn("no --oidc-admin-group or --oidc-readonly-group: users and tokens of the identity provider get only what grants to them or their groups give")
	}
	log.Info("identity provider", "issuer", o.Issuer, "console_sign_in", o.ClientID != "", "redirect_url", redirectIf(o.ClientID, redirect), "bearer_audience", o.Audience)
	return p, nil
}

func redirectIf(clientID, redirect string) string {
	if clientID == "" {
		return ""
	}
	return redirect
}

// granted admits an identity provider's bearer whose groups map to no role
// when the authorizer finds a grant for it (see oidc.Config.Granted).
func granted(az *authz.Authorizer) func(context.Context, identity.Principal) bool {
	if az == nil {
		return nil
	}
	return func(ctx context.Context, p identity.Principal) bool {
		r, err := az.Rights(ctx, p)
		return err == nil && r.Any()
	}
}
