package main

import (
	"encoding/json"
	"fmt"
	"strings"
)

type resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

type resourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType"`
}

const (
	staticTextURI  = "test://static-text"
	staticBlobURI  = "test://static-binary"
	watchedURI     = "test://watched-resource"
	templatePrefix = "test://template/"
	templateSuffix = "/data"
)

var resources = []resource{
	{staticTextURI, "static-text", "A static text resource for testing", "text/plain"},
	{staticBlobURI, "static-binary", "A static binary resource (image) for testing", "image/png"},
	{watchedURI, "watched-resource", "A resource clients can subscribe to", "text/plain"},
}

var templates = []resourceTemplate{
	{templatePrefix + "{id}" + templateSuffix, "template", "A resource template with parameter substitution", "application/json"},
}

func readResource(req json.RawMessage, _ callContext) (any, error) {
	var params struct {
		URI string `json:"uri"`
	}
	if err := decode(req, &params); err != nil {
		return nil, err
	}
	if res, ok := readExtra(params.URI); ok {
		return res, nil
	}
	var c resourceContents
	switch uri := params.URI; {
	case uri == staticTextURI:
		c = resourceContents{URI: uri, MimeType: "text/plain", Text: "This is the content of the static text resource."}
	case uri == staticBlobURI:
		c = resourceContents{URI: uri, MimeType: "image/png", Blob: pngBase64}
	case uri == watchedURI:
		c = resourceContents{URI: uri, MimeType: "text/plain", Text: "Watched resource content"}
	default:
		id, found := templateID(uri)
		if !found {
			return nil, fmt.Errorf("resource not found: %s", uri)
		}
		body, _ := json.Marshal(map[string]any{"id": id, "templateTest": true, "data": "Data for ID: " + id})
		c = resourceContents{URI: uri, MimeType: "application/json", Text: string(body)}
	}
	return struct {
		Contents []resourceContents `json:"contents"`
	}{[]resourceContents{c}}, nil
}

// templateID returns the {id} of a URI matching test://template/{id}/data.
// Like an RFC 6570 simple expansion, the id is one non-empty path segment.
func templateID(uri string) (string, bool) {
	rest, ok := strings.CutPrefix(uri, templatePrefix)
	if !ok {
		return "", false
	}
	id, ok := strings.CutSuffix(rest, templateSuffix)
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", false
	}
	return id, true
}
