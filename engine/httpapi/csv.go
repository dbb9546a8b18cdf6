package httpapi

import (
	"bufio"
	"encoding/csv"
	"net/http"

	"github.com/dynapi/dynapi/engine"
	"github.com/dynapi/dynapi/engine/resource"
	"github.com/dynapi/dynapi/engine/table"
)

// CSV (text/csv, RFC 4180) is a tabular representation of the alternate
// representations proposal: the Table's columns (Name, the printer
// columns, Age), a header row, then a row per object; for a watch, the
// event type comes first in each row.

// csvContentType is the Content-Type of a CSV answer.
const csvContentType = "text/csv; charset=utf-8; header=present"

// sentWriter records whether anything reached the client, so that a
// failure before that can still be answered with a Status.
type sentWriter struct {
	w    http.ResponseWriter
	sent bool
}

func (s *sentWriter) Write(p []byte) (int, error) {
	s.sent = true
	return s.w.Write(p)
}

// listCSV streams a list as CSV, buffered by flushBytes.
func (s *Server) listCSV(w http.ResponseWriter, r *http.Request, req request, tb *table.Builder, opts engine.ListOptions) {
	w.Header().Set("Content-Type", csvContentType)
	sw := &sentWriter{w: w}
	buf := bufio.NewWriterSize(sw, flushBytes)
	err := s.writeCSV(r, req, tb, opts, buf)
	if err != nil && !sw.sent {
		w.Header().Del("Content-Type")
		s.writeError(w, r, err)
		return
	}
	if err != nil {
		s.logger.Error("list failed mid-stream", "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
}

// writeCSV writes the list's header and rows to buf and flushes it.
func (s *Server) writeCSV(r *http.Request, req request, tb *table.Builder, opts engine.ListOptions, buf *bufio.Writer) error {
	cw := csv.NewWriter(buf)
	if err := cw.Write(tb.ColumnNames()); err != nil {
		return err
	}
	_, err := s.service.List(r.Context(), req.target, opts, func(obj []byte) error {
		return cw.Write(tb.Cells(obj))
	})
	if err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return buf.Flush()
}

// csvEvents writes watch events as CSV rows after a header: the event
// type, then the object's cells; an ERROR's message in the second column.
// Bookmarks carry nothing a table shows and are left out.
type csvEvents struct {
	cw    *csv.Writer
	table *table.Builder
}

// start writes the header row.
func (c *csvEvents) start() error {
	return c.flushed(c.cw.Write(append([]string{"Type"}, c.table.ColumnNames()...)))
}

func (c *csvEvents) write(ev resource.WatchEvent, errText func(error) string) error {
	switch ev.Type {
	case engine.EventBookmark:
		return nil
	case engine.EventError:
		return c.flushed(c.cw.Write([]string{string(ev.Type), errText(ev.Err)}))
	}
	return c.flushed(c.cw.Write(append([]string{string(ev.Type)}, c.table.Cells(ev.Object)...)))
}

func (c *csvEvents) flushed(err error) error {
	if err != nil {
		return err
	}
	c.cw.Flush()
	return c.cw.Error()
}
