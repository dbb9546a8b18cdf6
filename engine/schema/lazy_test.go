package schema

import (
	"strings"
	"sync"
	"testing"
)

// validatorCount checks how many validators were compiled since before.
func validatorCount(t *testing.T, before int64, when string, want int64) {
	t.Helper()
	if got := ValidatorCompiles() - before; got != want {
		t.Errorf("%s: %d validator compiles, want %d", when, got, want)
	}
}

// A compiled schema's validator is compiled on its first use, and once,
// however many goroutines use it at the same time. Not parallel: it counts
// the package's validator compiles.
func TestValidatorCompiledOnFirstUse(t *testing.T) {
	before := ValidatorCompiles()
	s := mustCompile(t, spec(`"lazyA":{"type":"integer","minimum":1,"default":1}`))
	validatorCount(t, before, "compiled", 0)
	if errs := s.Validate([]byte(`{"spec":{"lazyA":2}}`)); len(errs) > 0 {
		t.Fatal(errs)
	}
	validatorCount(t, before, "a valid object (the quick check vouches for it)", 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if errs := s.Validate([]byte(`{"spec":{"lazyA":0}}`)); len(errs) != 1 {
				t.Errorf("Validate = %v, want one error", errs)
			}
		})
	}
	wg.Wait()
	validatorCount(t, before, "8 invalid objects at once", 1)
	if errs := s.ValidateUpdate([]byte(`{"spec":{"lazyA":-1}}`), []byte(`{"spec":{"lazyA":1}}`)); len(errs) != 1 {
		t.Errorf("ValidateUpdate = %v, want one error", errs)
	}
	validatorCount(t, before, "an update", 1)
}

// CheckValidator compiles the validator to check it, and does not keep it.
// Not parallel: it counts the package's validator compiles.
func TestCheckValidator(t *testing.T) {
	before := ValidatorCompiles()
	s := mustCompile(t, spec(`"lazyE":{"type":"integer","minimum":1}`))
	if err := s.CheckValidator(); err != nil {
		t.Error(err)
	}
	validatorCount(t, before, "checked", 1)
	if errs := s.Validate([]byte(`{"spec":{"lazyE":0}}`)); len(errs) != 1 {
		t.Errorf("Validate = %v, want one error", errs)
	}
	validatorCount(t, before, "an invalid object", 2)
}

// A default the quick check cannot vouch for is checked by the validator,
// compiled by Compile then, and kept for the schema's use. Not parallel:
// it counts the package's validator compiles.
func TestDefaultCheckedByTheValidator(t *testing.T) {
	before := ValidatorCompiles()
	s := mustCompile(t, spec(`"lazyB":{"type":"integer","multipleOf":2,"default":4}`))
	validatorCount(t, before, "compiled", 1)
	if errs := s.Validate([]byte(`{"spec":{"lazyB":3}}`)); len(errs) != 1 {
		t.Errorf("Validate = %v, want one error", errs)
	}
	validatorCount(t, before, "an invalid object", 1)
	_, err := Compile([]byte(spec(`"lazyC":{"type":"integer","multipleOf":2,"default":3}`)))
	if want := "properties.spec.properties.lazyC.default: Invalid value: 3: default in body should be a multiple of 2"; err == nil || err.Error() != want {
		t.Errorf("Compile = %v, want %s", err, want)
	}
	_, err = Compile([]byte(spec(`"lazyD":{"type":"string","default":"x","maxLength":"y"}`)))
	if err == nil || !strings.Contains(err.Error(), "lazyD.maxLength: expected integer, but got string") {
		t.Errorf("Compile = %v, want the bad maxLength refused", err)
	}
}
