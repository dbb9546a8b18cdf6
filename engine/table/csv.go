package table

import (
	"encoding/json"

	"github.com/tidwall/gjson"
)

// ColumnNames are the names of the Table's columns, Name first: the header
// of a tabular representation without JSON (CSV).
func (b *Builder) ColumnNames() []string {
	var defs []struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(b.defs, &defs) // b.defs was encoded from such a list
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}

// Cells are the cells of obj's row as text, in ColumnNames' order: a
// string as it is, a number or boolean as JSON writes it, a missing value
// as "".
func (b *Builder) Cells(obj []byte) []string {
	row := gjson.GetBytes(b.AppendRow(nil, obj), "cells").Array()
	cells := make([]string, len(row))
	for i, c := range row {
		switch c.Type {
		case gjson.String:
			cells[i] = c.Str
		case gjson.Null:
		default:
			cells[i] = c.Raw
		}
	}
	return cells
}
