package idptest

import (
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
)

// appHandler is the login and consent app Hydra sends browsers to (Hydra
// has no users of its own): a sign-in form for the users AddUser added,
// consent granted to whatever the client asked, the user's groups, name
// and email as claims; and Hydra's token hook, which gives a
// client-credentials token the groups ServiceClient named.
func (p *Provider) appHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /login", p.showLogin)
	mux.HandleFunc("POST /login", p.login)
	mux.HandleFunc("GET /consent", p.consent)
	mux.HandleFunc("POST /token-hook", p.tokenHook)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	mux.HandleFunc("GET /error", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "hydra error: "+r.URL.Query().Get("error")+": "+r.URL.Query().Get("error_description"), http.StatusBadRequest)
	})
	return mux
}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html>
<title>Test identity provider</title>
<h1>Test identity provider</h1>
{{if .Error}}<p data-testid="idp-error">{{.Error}}</p>{{end}}
<form method="post" action="/login" data-testid="idp-login">
<input type="hidden" name="challenge" value="{{.Challenge}}">
<label>User <input name="username" id="idp-username" data-testid="idp-username"></label>
<label>Password <input type="password" name="password" id="idp-password" data-testid="idp-password"></label>
<button type="submit" data-testid="idp-submit">Sign in</button>
</form>`))

func (p *Provider) showLogin(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("login_challenge")
	var req struct {
		Skip    bool   `json:"skip"`
		Subject string `json:"subject"`
	}
	if err := p.adminJSON(r.Context(), http.MethodGet, "/admin/oauth2/auth/requests/login?login_challenge="+url.QueryEscape(challenge), nil, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if req.Skip {
		p.acceptLogin(w, r, challenge, req.Subject)
		return
	}
	_ = loginPage.Execute(w, map[string]string{"Challenge": challenge})
}

func (p *Provider) login(w http.ResponseWriter, r *http.Request) {
	challenge, name, pass := r.PostFormValue("challenge"), r.PostFormValue("username"), r.PostFormValue("password")
	p.mu.Lock()
	u, ok := p.users[name]
	p.mu.Unlock()
	if !ok || u.Password != pass {
		w.WriteHeader(http.StatusUnauthorized)
		_ = loginPage.Execute(w, map[string]string{"Challenge": challenge, "Error": "Wrong user or password."})
		return
	}
	p.acceptLogin(w, r, challenge, u.Subject)
}

func (p *Provider) acceptLogin(w http.ResponseWriter, r *http.Request, challenge, subject string) {
	var done struct {
		RedirectTo string `json:"redirect_to"`
	}
	if err := p.adminJSON(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/login/accept?login_challenge="+url.QueryEscape(challenge),
		map[string]any{"subject": subject, "remember": false}, &done); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, done.RedirectTo, http.StatusFound)
}

// consent grants what the client asked and puts the user's claims in the
// ID token (groups, preferred_username, email) and its groups in the
// access token.
func (p *Provider) consent(w http.ResponseWriter, r *http.Request) {
	challenge := r.URL.Query().Get("consent_challenge")
	var req struct {
		Subject   string   `json:"subject"`
		Scope     []string `json:"requested_scope"`
		Audiences []string `json:"requested_access_token_audience"`
	}
	if err := p.adminJSON(r.Context(), http.MethodGet, "/admin/oauth2/auth/requests/consent?consent_challenge="+url.QueryEscape(challenge), nil, &req); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	p.mu.Lock()
	u := p.users[req.Subject]
	p.mu.Unlock()
	groups := u.Groups
	if groups == nil {
		groups = []string{}
	}
	var done struct {
		RedirectTo string `json:"redirect_to"`
	}
	body := map[string]any{
		"grant_scope": req.Scope, "grant_access_token_audience": req.Audiences, "remember": false,
		"session": map[string]any{
			"id_token":     map[string]any{"groups": groups, "preferred_username": u.Subject, "email": u.Email},
			"access_token": map[string]any{"groups": groups},
		},
	}
	if err := p.adminJSON(r.Context(), http.MethodPut, "/admin/oauth2/auth/requests/consent/accept?consent_challenge="+url.QueryEscape(challenge), body, &done); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	http.Redirect(w, r, done.RedirectTo, http.StatusFound)
}

// tokenHook answers Hydra before it issues a token: a service client's
// groups go into its access token; other tokens are left as they are
// (204).
func (p *Provider) tokenHook(w http.ResponseWriter, r *http.Request) {
	var hook struct {
		Request struct {
			ClientID   string   `json:"client_id"`
			GrantTypes []string `json:"grant_types"`
		} `json:"request"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&hook); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	groups, ok := p.clientGroups[hook.Request.ClientID]
	p.mu.Unlock()
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if groups == nil {
		groups = []string{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"session": map[string]any{"access_token": map[string]any{"groups": groups}}})
}
