package table

import (
	"github.com/dynapi/dynapi/engine/registry"
)

// The descriptions kube-apiserver gives the columns it adds: the swagger
// docs of metav1.ObjectMeta's name and creationTimestamp (a test keeps them
// equal to apimachinery's).
const (
	nameDescription = "Name must be unique within a namespace. Is required when creating resources, " +
		"although some resources may allow a client to request the generation of an appropriate name " +
		"automatically. Name is primarily intended for creation idempotence and configuration definition. " +
		"Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names"
	creationTimestampDescription = "CreationTimestamp is a timestamp representing the server time when this " +
		"object was created. It is not guaranteed to be set in happens-before order across separate " +
		"operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\n" +
		"Populated by the system. Read-only. Null for lists. More info: " +
		"https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"
)

// defaultColumns is what kube-apiserver serves for a version that declares
// no printer columns (serveDefaultColumnsIfEmpty).
var defaultColumns = []registry.PrinterColumn{{
	Name: "Age", Type: "date", Description: creationTimestampDescription, JSONPath: ".metadata.creationTimestamp",
}}

// columnDefinition is a metav1.TableColumnDefinition.
type columnDefinition struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Format      string `json:"format"`
	Description string `json:"description"`
	Priority    int32  `json:"priority"`
}

// column is a printer column ready to evaluate.
type column struct {
	typ  string
	path path
	top  int // index in Builder.tops of the path's first key, or -1
}

// compileColumns builds the definitions and the evaluators of a version's
// printer columns, after the Name column, as tableconvertor.New does.
func compileColumns(printer []registry.PrinterColumn) ([]columnDefinition, []column) {
	if len(printer) == 0 {
		printer = defaultColumns
	}
	defs := []columnDefinition{{Name: "Name", Type: "string", Format: "name", Description: nameDescription}}
	cols := make([]column, 0, len(printer))
	for _, c := range printer {
		p, err := compilePath(c.JSONPath)
		if err != nil {
			// tableconvertor.New gives up at the first path client-go cannot
			// parse, and kube-apiserver serves the columns built until then.
			break
		}
		desc := c.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + c.JSONPath
		}
		defs = append(defs, columnDefinition{Name: c.Name, Type: c.Type, Format: c.Format,
			Description: desc, Priority: c.Priority})
		cols = append(cols, column{typ: c.Type, path: p, top: -1})
	}
	return defs, cols
}
