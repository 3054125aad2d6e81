package realcluster

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// auditEvent is one line of the API server's audit log (level Metadata).
type auditEvent struct {
	Stage      string `json:"stage"`
	RequestURI string `json:"requestURI"`
	Verb       string `json:"verb"`
	User       struct {
		Username string `json:"username"`
	} `json:"user"`
	UserAgent string `json:"userAgent"`
	ObjectRef *struct {
		Resource    string `json:"resource"`
		Namespace   string `json:"namespace"`
		Name        string `json:"name"`
		Subresource string `json:"subresource"`
	} `json:"objectRef"`
	ResponseStatus *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Reason  string `json:"reason"`
	} `json:"responseStatus"`
	Received time.Time `json:"requestReceivedTimestamp"`
}

const serviceAccountUser = "system:serviceaccount:" + namespace + ":" + release

// auditEvents returns the answered requests of user received in
// [from, to) (to zero: no end). The log is written synchronously
// (--audit-log-mode=blocking): a request answered is in it.
func auditEvents(t testing.TB, user string, from, to time.Time) []auditEvent {
	t.Helper()
	f, err := os.Open(filepath.Join(cluster.kubeDir, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []auditEvent
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 16<<20)
	for s.Scan() {
		line := s.Bytes()
		if !strings.Contains(string(line), user) {
			continue
		}
		var e auditEvent
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("audit log: %v", err)
		}
		// A watch is logged when its response starts (and again when it
		// ends); every other request when it completes.
		done := e.Stage == "ResponseComplete" || (e.Stage == "ResponseStarted" && e.Verb == "watch")
		if !done || e.User.Username != user || e.Received.Before(from) ||
			(!to.IsZero() && !e.Received.Before(to)) {
			continue
		}
		out = append(out, e)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func (e auditEvent) String() string {
	code := 0
	if e.ResponseStatus != nil {
		code = e.ResponseStatus.Code
	}
	return e.Verb + " " + e.RequestURI + " -> " + itoa(code)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
