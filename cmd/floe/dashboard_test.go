package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"
	dto "github.com/prometheus/client_model/go"
)

// dashboardPath is the Grafana dashboard floe ships.
const dashboardPath = "../../docs/grafana/floe.json"

// dashboardDatasource is the datasource every panel and query uses: the
// dashboard's own "datasource" variable, so an import asks for none.
const dashboardDatasource = "${datasource}"

// checkDashboard holds the shipped dashboard against Grafana's dashboard
// schema (the foundation SDK's strict decoding: unknown fields, wrong types
// and missing required fields fail, the panel options and Prometheus
// queries included) and every PromQL expression in it — panel queries,
// legends, variable queries — against the series a running floe exports
// (mfs, scraped from its /metrics).
func checkDashboard(t *testing.T, mfs map[string]*dto.MetricFamily) {
	t.Helper()
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	registerGrafanaVariants()
	//lint:ignore SA1019 the classic dashboard model (v1) is what every Grafana imports; v2 needs Grafana 12 with a feature flag
	var d dashboard.Dashboard
	if err := schemaErr(d.UnmarshalJSONStrict(raw)); err != nil {
		t.Fatalf("%s is not a Grafana dashboard by its schema: %v", dashboardPath, err)
	}
	if err := schemaErr(d.Validate()); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	if d.Uid == nil || *d.Uid == "" || d.Title == nil || *d.Title == "" || d.SchemaVersion == 0 {
		t.Fatalf("%s needs a uid, a title and a schemaVersion", dashboardPath)
	}
	// The SDK (v0.0.22) validates strictly but drops panels, queries and
	// variables from what it returns (a typed nil error stops it filling
	// them in), so each piece is decoded here again, as strictly, by itself.
	var parts struct {
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []json.RawMessage `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		t.Fatal(err)
	}
	have := seriesOf(mfs)
	checkVariables(t, parts.Templating.List, have)

	ids := map[uint32]bool{}
	var grid [][24]bool // y → x → taken
	place := func(title string, gp *dashboard.GridPos) {
		if gp == nil || gp.W == 0 || gp.H == 0 || gp.X+gp.W > 24 {
			t.Errorf("panel %q: gridPos %+v does not fit the 24-column grid", title, gp)
			return
		}
		for y := gp.Y; y < gp.Y+gp.H; y++ {
			for len(grid) <= int(y) {
				grid = append(grid, [24]bool{})
			}
			for x := gp.X; x < gp.X+gp.W; x++ {
				if grid[y][x] {
					t.Errorf("panel %q overlaps another at x=%d y=%d", title, x, y)
					return
				}
				grid[y][x] = true
			}
		}
	}
	queries := 0
	for i, rawPanel := range parts.Panels {
		var head struct {
			Type    string            `json:"type"`
			Targets []json.RawMessage `json:"targets"`
		}
		if err := json.Unmarshal(rawPanel, &head); err != nil {
			t.Fatal(err)
		}
		if head.Type == "row" {
			var r dashboard.RowPanel
			if err := schemaErr(r.UnmarshalJSONStrict(rawPanel)); err != nil {
				t.Fatalf("panels[%d]: %v", i, err)
			}
			title := deref(r.Title)
			if ids[r.Id] {
				t.Errorf("row %q reuses id %d", title, r.Id)
			}
			ids[r.Id] = true
			place(title, r.GridPos)
			if len(r.Panels) > 0 {
				t.Errorf("row %q is collapsed around panels; keep them on the dashboard", title)
			}
			continue
		}
		var p dashboard.Panel
		if err := schemaErr(p.UnmarshalJSONStrict(rawPanel)); err != nil {
			t.Fatalf("panels[%d]: %v", i, err)
		}
		title := deref(p.Title)
		if !slices.Contains([]string{"timeseries", "stat"}, p.Type) {
			t.Errorf("panel %q is a %q: only panel types whose options the test decodes strictly are shipped", title, p.Type)
		}
		if p.Id == nil || ids[*p.Id] {
			t.Errorf("panel %q has no id of its own", title)
		} else {
			ids[*p.Id] = true
		}
		place(title, p.GridPos)
		if !isDashboardDatasource(p.Datasource) {
			t.Errorf("panel %q: datasource %+v, want the %s variable", title, p.Datasource, dashboardDatasource)
		}
		if len(head.Targets) == 0 || deref(p.Description) == "" {
			t.Errorf("panel %q needs a query and a description saying what it shows", title)
		}
		refIDs := map[string]bool{}
		for _, rawQuery := range head.Targets {
			var q prometheus.Dataquery
			if err := schemaErr(q.UnmarshalJSONStrict(rawQuery)); err != nil {
				t.Errorf("panel %q: a query that is not a Prometheus query: %v", title, err)
				continue
			}
			queries++
			if ref := deref(q.RefId); ref == "" || refIDs[ref] {
				t.Errorf("panel %q: refId %q missing or repeated", title, ref)
			} else {
				refIDs[ref] = true
			}
			if !isDashboardDatasource(q.Datasource) {
				t.Errorf("panel %q: query %s has datasource %+v", title, deref(q.RefId), q.Datasource)
			}
			labels, err := checkExpr(q.Expr, have)
			if err != nil {
				t.Errorf("panel %q, query %s: %v\n\t%s", title, deref(q.RefId), err, q.Expr)
				continue
			}
			for _, l := range legendLabels(deref(q.LegendFormat)) {
				if !labels[l] {
					t.Errorf("panel %q, query %s: legend names {{%s}}, which its series do not carry", title, deref(q.RefId), l)
				}
			}
		}
	}
	if queries == 0 {
		t.Fatal("the dashboard has no queries")
	}
	if !t.Failed() {
		t.Logf("%s: %d panels, %d queries, every name exported", dashboardPath, len(ids), queries)
	}
}

// registerGrafanaVariants teaches the SDK the panel and query types the
// dashboard uses, so their options and queries are decoded strictly too
// (an unknown type would be kept as an unchecked bag).
var registerGrafanaVariants = sync.OnceFunc(func() {
	rt := cog.NewRuntime()
	rt.RegisterPanelcfgVariant(timeseries.VariantConfig())
	rt.RegisterPanelcfgVariant(stat.VariantConfig())
	rt.RegisterDataqueryVariant(prometheus.VariantConfig())
})

// checkVariables: the datasource variable exists and is Prometheus; every
// query variable reads label_values of an exported series and label.
func checkVariables(t *testing.T, vars []json.RawMessage, have exportedSeries) {
	t.Helper()
	labelValues := regexp.MustCompile(`^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$`)
	sawDatasource := false
	for i, rawVar := range vars {
		var v dashboard.VariableModel
		if err := schemaErr(v.UnmarshalJSONStrict(rawVar)); err != nil {
			t.Errorf("templating.list[%d]: %v", i, err)
			continue
		}
		switch v.Type {
		case dashboard.VariableTypeDatasource:
			if v.Name != "datasource" || v.Query == nil || deref(v.Query.String) != "prometheus" {
				t.Errorf("variable %s: want the datasource variable of type prometheus", v.Name)
			}
			sawDatasource = true
		case dashboard.VariableTypeQuery:
			if !isDashboardDatasource(v.Datasource) {
				t.Errorf("variable %s: datasource %+v", v.Name, v.Datasource)
			}
			q := ""
			if v.Query != nil {
				if v.Query.String != nil {
					q = *v.Query.String
				} else {
					q, _ = v.Query.Map["query"].(string)
				}
			}
			m := labelValues.FindStringSubmatch(q)
			if m == nil {
				t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, q)
				continue
			}
			labels, err := checkExpr(m[1], have)
			if err != nil {
				t.Errorf("variable %s: %v", v.Name, err)
			} else if !labels[m[2]] {
				t.Errorf("variable %s: its series carry no label %s", v.Name, m[2])
			}
		default:
			t.Errorf("variable %s: type %s is not one the test checks", v.Name, v.Type)
		}
	}
	if !sawDatasource {
		t.Errorf("no datasource variable: the dashboard would be bound to one Prometheus by uid")
	}
}

var legendLabel = regexp.MustCompile(`\{\{\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\}\}`)

func legendLabels(legend string) []string {
	var out []string
	for _, m := range legendLabel.FindAllStringSubmatch(legend, -1) {
		out = append(out, m[1])
	}
	return out
}

// schemaErr is the SDK's error, or nil when it is an empty list: the SDK
// returns its error list typed even when nothing failed.
func schemaErr(err error) error {
	var be cog.BuildErrors
	if errors.As(err, &be) && len(be) == 0 {
		return nil
	}
	return err
}

func isDashboardDatasource(ds *common.DataSourceRef) bool {
	return ds != nil && deref(ds.Type) == "prometheus" && deref(ds.Uid) == dashboardDatasource
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TestDashboardRefusesWhatItShould runs the checks on a broken copy of the
// dashboard, so a check that stopped checking is noticed.
func TestDashboardRefusesWhatItShould(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	registerGrafanaVariants()
	for _, c := range []struct{ from, to, want string }{
		{`"schemaVersion"`, `"schemaVersoin"`, "unexpected field 'schemaVersoin'"},
		{`"legendFormat"`, `"legendFromat"`, "unexpected field 'legendFromat'"},
		{`"gridPos": {`, `"gridPos": {"wide": 1, `, "unexpected field 'wide'"},
	} {
		var d dashboard.Dashboard //lint:ignore SA1019 as in checkDashboard
		err := schemaErr(d.UnmarshalJSONStrict([]byte(strings.Replace(string(raw), c.from, c.to, 1))))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %s: err = %v, want %q", c.from, c.to, err, c.want)
		}
	}
	have := exportedSeries{}
	if _, err := checkExpr(`sum(floe_database_up)`, have); err == nil {
		t.Error("a series nobody exports passed")
	}
	if got := fmt.Sprint(legendLabels("{{surface}} {{ status }} x")); got != "[surface status]" {
		t.Errorf("legend labels = %s", got)
	}
}
