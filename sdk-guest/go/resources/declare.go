package resources

import (
	"encoding/json"
	"errors"
	"strconv"

	"github.com/mcpwasm/mcpwasm/sdk-guest/go/internal/guest"
)

// ResourceDef is a registered concrete resource. Its methods add optional
// parts of the MCP Resource declaration and return the same ResourceDef,
// for chaining.
type ResourceDef struct {
	uri, name, title, description, mimeType, annotations string
	size                                                 int64
	handler                                              Handler
}

// TemplateDef is a registered resource template. Its methods add optional
// parts of the MCP ResourceTemplate declaration and return the same
// TemplateDef, for chaining.
type TemplateDef struct {
	uriTemplate, name, title, description, mimeType, annotations string
	handler                                                      Handler
	parsed                                                       *uriTemplate
	parseErr                                                     error
}

var (
	concrete  []*ResourceDef
	templates []*TemplateDef
)

func init() {
	guest.AddCheck(check)
	guest.TemplateVariables = func(uriTemplate string) ([]string, bool) {
		for _, t := range templates {
			if t.uriTemplate == uriTemplate && t.parsed != nil {
				return t.parsed.names, true
			}
		}
		return nil, false
	}
}

// Resource registers a concrete resource, exposed to clients under uri
// exactly, with a short name. Call it from an init function: the host asks
// for the list once, when it loads the plugin. Mistakes (an empty name, a
// URI without a scheme, a URI registered twice) make the plugin fail to
// load with a message naming the resource.
func Resource(uri, name string, h Handler) *ResourceDef {
	d := &ResourceDef{uri: uri, name: name, handler: h}
	concrete = append(concrete, d)
	return d
}

// Title sets the resource's human-readable title.
func (d *ResourceDef) Title(title string) *ResourceDef { d.title = title; return d }

// Description says what the resource holds.
func (d *ResourceDef) Description(description string) *ResourceDef {
	d.description = description
	return d
}

// MimeType sets the resource's MIME type. Contents the handler returns
// without one get it.
func (d *ResourceDef) MimeType(mimeType string) *ResourceDef { d.mimeType = mimeType; return d }

// Size sets the resource's size in bytes, if known.
func (d *ResourceDef) Size(bytes int64) *ResourceDef { d.size = bytes; return d }

// Annotations sets the MCP annotations as a JSON object, for example
// `{"audience":["user"],"priority":0.5}`.
func (d *ResourceDef) Annotations(annotations string) *ResourceDef {
	d.annotations = annotations
	return d
}

// URI returns the resource's URI as declared.
func (d *ResourceDef) URI() string { return d.uri }

// Template registers a resource template (RFC 6570): reads of every URI it
// matches go to h, with the template's variables in [Request].Vars. The
// template is exposed to clients exactly as written. See [Resource] about
// init and mistakes; a template that does not parse, or uses the explode
// modifier {var*}, is a mistake too.
func Template(uriTemplate, name string, h Handler) *TemplateDef {
	d := &TemplateDef{uriTemplate: uriTemplate, name: name, handler: h}
	d.parsed, d.parseErr = parseTemplate(uriTemplate)
	templates = append(templates, d)
	return d
}

// Title sets the template's human-readable title.
func (d *TemplateDef) Title(title string) *TemplateDef { d.title = title; return d }

// Description says what the template's resources hold.
func (d *TemplateDef) Description(description string) *TemplateDef {
	d.description = description
	return d
}

// MimeType sets the MIME type of the template's resources. Contents the
// handler returns without one get it.
func (d *TemplateDef) MimeType(mimeType string) *TemplateDef { d.mimeType = mimeType; return d }

// Annotations sets the MCP annotations as a JSON object.
func (d *TemplateDef) Annotations(annotations string) *TemplateDef {
	d.annotations = annotations
	return d
}

// URITemplate returns the template as declared.
func (d *TemplateDef) URITemplate() string { return d.uriTemplate }

// check is the load-time check list_tools runs.
func check() error {
	_, err := listResources()
	if err == nil {
		_, err = listTemplates()
	}
	return err
}

type resourceJSON struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Size        int64           `json:"size,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

type templateJSON struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MimeType    string          `json:"mimeType,omitempty"`
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// listResources checks the concrete resources and answers the MCP
// ListResourcesResult.
func listResources() ([]byte, error) {
	list := make([]resourceJSON, 0, len(concrete))
	seen := map[string]bool{}
	for _, d := range concrete {
		what := "resource " + guest.Quote(d.uri)
		if !hasScheme(d.uri) {
			return nil, errors.New(what + ": the URI needs a scheme, as in notes://today")
		}
		if seen[d.uri] {
			return nil, errors.New(what + " is registered twice")
		}
		seen[d.uri] = true
		if err := common(what, d.name, d.handler); err != nil {
			return nil, err
		}
		if d.size < 0 {
			return nil, errors.New(what + ": size " + strconv.FormatInt(d.size, 10) + " is negative")
		}
		ann, err := guest.Annotations(what, d.annotations)
		if err != nil {
			return nil, err
		}
		list = append(list, resourceJSON{d.uri, d.name, d.title, d.description, d.mimeType, d.size, ann})
	}
	return guest.Marshal(struct {
		Resources []resourceJSON `json:"resources"`
	}{list})
}

// listTemplates checks the templates and answers the MCP
// ListResourceTemplatesResult.
func listTemplates() ([]byte, error) {
	list := make([]templateJSON, 0, len(templates))
	seen := map[string]bool{}
	for _, d := range templates {
		what := "resource template " + guest.Quote(d.uriTemplate)
		if d.parseErr != nil {
			return nil, errors.New(what + " " + d.parseErr.Error())
		}
		if len(d.parsed.names) == 0 {
			return nil, errors.New(what + " has no {variables}; register it with resources.Resource")
		}
		if seen[d.uriTemplate] {
			return nil, errors.New(what + " is registered twice")
		}
		seen[d.uriTemplate] = true
		if err := common(what, d.name, d.handler); err != nil {
			return nil, err
		}
		ann, err := guest.Annotations(what, d.annotations)
		if err != nil {
			return nil, err
		}
		list = append(list, templateJSON{d.uriTemplate, d.name, d.title, d.description, d.mimeType, ann})
	}
	return guest.Marshal(struct {
		Templates []templateJSON `json:"resourceTemplates"`
	}{list})
}

func common(what, name string, h Handler) error {
	if name == "" {
		return errors.New(what + " has no name")
	}
	if h == nil {
		return errors.New(what + " has no handler")
	}
	return nil
}

// hasScheme reports whether uri starts with an RFC 3986 scheme and ':'.
func hasScheme(uri string) bool {
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return true
		default:
			return false
		}
	}
	return false
}
