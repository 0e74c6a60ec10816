package e2e

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	sdk "github.com/aws/aws-sdk-go-v2/service/s3tables"
	"github.com/aws/aws-sdk-go-v2/service/s3tables/types"
	"github.com/chromedp/chromedp"

	"github.com/floe/floe/catalog"
	"github.com/floe/floe/s3tables"
)

// TestJourneyTableMaintenanceConfig: an admin sets an Iceberg table's own
// compaction target in the Maintenance tab, the setting survives a reload,
// the S3 Tables API (the real AWS SDK) answers it, and Reset to inherit
// brings the job type's default back in both places.
func TestJourneyTableMaintenanceConfig(t *testing.T) {
	if testing.Short() {
		t.Skip("browser journey skipped in -short mode")
	}
	execPath := chromium(t)
	c := startLayoutConsole(t)
	api := s3TablesClient(t, c.store)
	get := func() types.TableMaintenanceConfigurationValue {
		t.Helper()
		out, err := api.GetTableMaintenanceConfiguration(context.Background(), &sdk.GetTableMaintenanceConfigurationInput{
			TableBucketARN: aws.String("arn:aws:s3tables:" + s3tables.DefaultRegion + ":" + s3tables.DefaultAccount + ":bucket/layout-lake"),
			Namespace:      aws.String("sales"), Name: aws.String("events")})
		if err != nil {
			t.Fatalf("GetTableMaintenanceConfiguration: %v", err)
		}
		return out.Configuration[string(types.TableMaintenanceTypeIcebergCompaction)]
	}
	target := func(v types.TableMaintenanceConfigurationValue) int32 {
		if m, ok := v.Settings.(*types.TableMaintenanceSettingsMemberIcebergCompaction); ok && m.Value.TargetFileSizeMB != nil {
			return *m.Value.TargetFileSizeMB
		}
		return 0
	}

	ctx, logs := browserContext(t, execPath)
	tab := c.url + "/buckets/layout-lake/namespaces/sales/tables/events/maintenance"
	setting := `[data-testid="maint-setting-icebergCompaction-targetFileSizeMB"]`
	from := `document.querySelector('` + setting + `').dataset.from`
	if err := chromedp.Do(ctx,
		chromedp.Navigate(c.url+"/login"),
		chromedp.WaitVisible(tid("login-form")),
		chromedp.SendKeys(chromedp.CSS(`#username`), "admin"),
		chromedp.SendKeys(chromedp.CSS(`#password`), adminPassword),
		chromedp.Click(tid("login-submit")),
		chromedp.WaitVisible(tid("nav-buckets")),
		chromedp.Navigate(tab),
		chromedp.WaitVisible(tid("maint-kind-icebergCompaction")),
		chromedp.Click(`[data-testid="maint-kind-icebergCompaction"] summary`),
		chromedp.WaitVisible(tid("maint-icebergCompaction-targetFileSizeMB")),
		chromedp.Focus(tid("maint-icebergCompaction-targetFileSizeMB")),
		chromedp.KeyEvent("256"),
		chromedp.Click(tid("maint-save-icebergCompaction")),
		chromedp.WaitVisible(tid("maint-inherit-icebergCompaction")),
		chromedp.Reload(),
		chromedp.WaitVisible(setting),
	); err != nil {
		t.Fatal(err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Text(setting))
	if err != nil {
		t.Fatal(err)
	}
	src, err := chromedp.Run(ctx, chromedp.Evaluate[string](from))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(shown, "256") || src != "table" {
		t.Fatalf("after reload the target reads %q from %q; want 256 from this table", shown, src)
	}
	if v := get(); target(v) != 256 || v.Status != types.MaintenanceStatusEnabled {
		t.Fatalf("the S3 Tables API answers %s with target %d; want enabled, 256", v.Status, target(v))
	}

	if err := chromedp.Do(ctx,
		chromedp.Click(tid("maint-inherit-icebergCompaction")),
		chromedp.WaitNotPresent(tid("maint-inherit-icebergCompaction")),
	); err != nil {
		t.Fatal(err)
	}
	src, err = chromedp.Run(ctx, chromedp.Evaluate[string](from))
	if err != nil || src != "jobtype" {
		t.Fatalf("after reset the target comes from %q (%v); want the job type's default", src, err)
	}
	if v := get(); target(v) != int32(catalog.DefaultMaintenanceSettings.TargetFileSizeMB) {
		t.Fatalf("after reset the S3 Tables API answers target %d; want the default %d", target(v), catalog.DefaultMaintenanceSettings.TargetFileSizeMB)
	}
	for _, l := range logs.all() {
		if strings.Contains(l, "Content Security Policy") || strings.Contains(l, "Uncaught") || strings.Contains(l, "htmx:") {
			t.Errorf("browser console: %s", l)
		}
	}
}

// s3TablesClient serves the S3 Tables API over store and returns the real
// AWS SDK client signing with a fresh read-write key.
func s3TablesClient(t *testing.T, store *catalog.Store) *sdk.Client {
	t.Helper()
	k, _, err := store.CreateAPIKey(context.Background(), "journey-s3tables", catalog.RoleReadWrite, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s3tables.New(s3tables.Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}).Handler())
	t.Cleanup(srv.Close)
	return sdk.New(sdk.Options{Region: s3tables.DefaultRegion, BaseEndpoint: aws.String(srv.URL), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: k.AccessKeyID, SecretAccessKey: k.SecretAccessKey}, nil
		})})
}
