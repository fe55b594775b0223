package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"plumbline/internal/pgtest"
)

// The directory from the command line, signed in as plumbline's login: an
// export imported (and again, changing nothing; a bad one refused with its
// place), a SCIM token made, and serve answering the identity provider at
// /scim/v2 with it, the imported members listed.
func TestPeopleFromTheCommandLine(t *testing.T) {
	db := pgtest.NewDB(t)
	dir := t.TempDir()
	export := filepath.Join(dir, "members.csv")
	os.WriteFile(export, []byte("person_id,email,display_name,status\na0001,dana@floor.example,Dana Okafor,\na0002,ravi@floor.example,Ravi Shah,locked\n"), 0o600)
	code, out, errOut := runCLI(t, "members", "import", "--db", db.AppDSN, export)
	if code != 0 || out != "members.csv: 2 added, 0 changed, 0 deactivated, 0 unchanged.\n  added: a0001, a0002\n" {
		t.Fatalf("import: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, _ = runCLI(t, "members", "import", "--db", db.AppDSN, export); code != 0 ||
		out != "members.csv: nothing to change; 2 members are as the file says.\n" {
		t.Errorf("the same import again: exit %d\n%s", code, out)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`[{"person_id":"a0003","email":"not-an-address","display_name":"X"}]`), 0o600)
	if code, _, errOut = runCLI(t, "members", "import", "--db", db.AppDSN, bad); code != 1 ||
		!strings.HasPrefix(errOut, "plumbline members: bad.json: entry 1: email: must be one email address") || strings.Contains(errOut, "not-an-address") {
		t.Errorf("a bad export: exit %d\n%s", code, errOut)
	}

	code, token, errOut := runCLI(t, "scim", "token", "create", "--name", "okta", "--db", db.AppDSN)
	token = strings.TrimSpace(token)
	if code != 0 || !strings.HasPrefix(token, "plbscim_") || !strings.Contains(errOut, "SCIM token 1 for okta") {
		t.Fatalf("scim token create: exit %d %q\n%s", code, token, errOut)
	}
	if code, out, _ = runCLI(t, "scim", "token", "list", "--db", db.AppDSN); code != 0 || !strings.Contains(out, "1   okta") {
		t.Errorf("scim token list: exit %d\n%s", code, out)
	}

	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var sout, serr syncBuffer
	go func() {
		done <- runWith(ctx, []string{"serve", "--db", db.AppDSN, "--addr", addr}, &sout, &serr)
	}()
	defer cancel()
	// serve logs the URL it serves once it listens.
	waitFor(t, &serr, regexp.MustCompile(`"url":"([^"]+)"`), done)
	defer func() { cancel(); <-done }()
	req, _ := http.NewRequest("GET", "http://"+addr+"/scim/v2/Users?filter=userName%20eq%20%22dana%40floor.example%22", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("serve did not answer: %v\n%s", err, serr.String())
	}
	defer resp.Body.Close()
	var list struct {
		TotalResults int
		Resources    []struct{ UserName, DisplayName string }
	}
	json.NewDecoder(resp.Body).Decode(&list)
	if resp.StatusCode != 200 || list.TotalResults != 1 || list.Resources[0].DisplayName != "Dana Okafor" {
		t.Errorf("serve's SCIM endpoint: %d %+v\n%s", resp.StatusCode, list, serr.String())
	}
	if code, out, _ = runCLI(t, "scim", "token", "revoke", "--name", "okta", "--db", db.AppDSN); code != 0 || out != "Revoked 1 SCIM token(s).\n" {
		t.Errorf("scim token revoke: exit %d\n%s", code, out)
	}
}
