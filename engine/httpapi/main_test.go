package httpapi_test

import (
	"testing"

	"github.com/dynapi/dynapi/engine/testkit/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }
