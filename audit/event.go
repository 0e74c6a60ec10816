package audit

import (
	"encoding/json"
	"strings"
	"time"
)

// CloudEvent is one event in CloudEvents 1.0's JSON structured mode
// (application/cloudevents+json): the envelope's attributes beside the
// data.
type CloudEvent struct {
	SpecVersion     string          `json:"specversion"`
	ID              string          `json:"id"`
	Source          string          `json:"source"`
	Type            string          `json:"type"`
	Time            time.Time       `json:"time"`
	Subject         string          `json:"subject,omitempty"`
	DataContentType string          `json:"datacontenttype"`
	Data            json.RawMessage `json:"data"`
}

// ContentType is the media type of one structured-mode event.
const ContentType = "application/cloudevents+json; charset=utf-8"

// requestData is the data of a floe.audit.request event.
type requestData struct {
	Surface    string `json:"surface"`
	Operation  string `json:"operation"`
	Write      bool   `json:"write"`
	Refused    bool   `json:"refused"`
	Outcome    string `json:"outcome"`
	Principal  string `json:"principal"`
	Via        string `json:"via,omitempty"`
	Resource   string `json:"resource"`
	Status     int    `json:"status,omitempty"`
	Fault      string `json:"fault,omitempty"`
	RequestID  string `json:"request_id,omitempty"`
	Client     string `json:"client,omitempty"`
	Method     string `json:"method,omitempty"`
	Path       string `json:"path,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// Event is the entry as a CloudEvent: its id is the entry's, so a
// receiver that sees it twice (at-least-once delivery) knows it.
func Event(e Entry) CloudEvent {
	ce := CloudEvent{SpecVersion: "1.0", ID: e.ID, Type: e.Type, Time: e.Time.UTC(), DataContentType: "application/json"}
	res := e.Resource()
	if res.Bucket != "" {
		ce.Subject = res.String()
	}
	switch e.Type {
	case TypeRequest:
		ce.Source = "/floe/" + e.Surface
		ce.Data, _ = json.Marshal(requestData{
			Surface: e.Surface, Operation: e.Operation, Write: e.Write, Refused: e.Refused, Outcome: e.Outcome(),
			Principal: e.Principal, Via: e.Via, Resource: res.String(), Status: e.Status, Fault: e.Fault,
			RequestID: e.RequestID, Client: e.Client, Method: e.Method, Path: e.Path, DurationMS: e.Duration.Milliseconds(),
		})
	default:
		ce.Source = "/floe/" + strings.TrimPrefix(strings.SplitN(strings.TrimPrefix(e.Type, "floe."), ".", 2)[0], "/")
		ce.Data = changeData(e)
	}
	return ce
}

// changeData is a change event's data: the resource, then the entry's
// own details (a table's id and format, a job's state).
func changeData(e Entry) json.RawMessage {
	m := map[string]any{}
	if e.Data != "" {
		_ = json.Unmarshal([]byte(e.Data), &m) // written by this package; a bad row still sends its resource
	}
	if e.Bucket != "" {
		m["bucket"] = e.Bucket
	}
	if e.Namespace != "" {
		m["namespace"] = e.Namespace
	}
	if e.Table != "" {
		m["table"] = e.Table
	}
	if e.Principal != "" && e.Principal != "-" {
		m["principal"] = e.Principal
	}
	b, _ := json.Marshal(m)
	return b
}
