package postgres

import (
	"context"

	"github.com/dynapi/dynapi/engine"
)

const getSQL = `SELECT resource_version, stored_version, body, remainder FROM objects
WHERE resource = $1 AND namespace = $2 AND name = $3`

// Get returns the current state of the object at key, read with the gets
// of other requests in flight (see batcher). Errors: NotFound.
func (s *Store) Get(ctx context.Context, key engine.ObjectKey) (engine.Object, error) {
	obj := engine.Object{Key: key}
	err := s.reads.do(ctx, s.closed, statement{sql: getSQL, key: key,
		args: []any{resourceColumn(key.Resource), key.Namespace, key.Name},
		dest: []any{&obj.ResourceVersion, &obj.StoredVersion, &obj.Body, &obj.Remainder}})
	if err != nil {
		return engine.Object{}, translate("get", key, err)
	}
	obj.Body, obj.Remainder = fromJSONB(obj.Body), remainderFromJSONB(obj.Remainder)
	return obj, nil
}
